// A new serving policy is one Scheduler class plus one registry entry: a throwaway policy, added to a
// registry of its own, is parsed by name, served on the priced backend and listed with its traits.
// linear_steps(): prefill(L) = L ms, decode(r, c) = r + c ms.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/input_error.h"
#include "policy/policy_registry.h"
#include "policy/scheduler.h"
#include "sim_test_support.h"

namespace kvlab::policy {
namespace {

using sim::testing::expect_times;
using sim::testing::linear_steps;
using sim::testing::serve;

// "one-at-a-time": each request in queue order in slot 0, its prompt prefilled, then one-row decode steps.
class OneAtATime : public Scheduler {
 public:
  int slots() const override { return 1; }
  void serve(ServerState& server) override {
    while (!server.queue_empty()) {
      server.wait_for_next_arrival();
      RequestState& request = server.take_next();
      server.prefill(request, 0);
      while (!request.finished()) server.decode_step({&request});
    }
  }
};

PolicyFamily one_at_a_time() {
  return {{"one-at-a-time",
           PolicyParameters::none,
           Admission::one_at_a_time,
           "One at a time",
           "one",
           "#333333",
           {1, 1},
           "one request at a time, with a KV cache",
           true,
           false,
           false,
           false,
           {}},
          [](const PolicyName&, const KvSettings&) -> std::unique_ptr<Scheduler> {
            return std::make_unique<OneAtATime>();
          }};
}

PolicyRegistry registry_with_one_at_a_time() {
  PolicyRegistry registry;
  registry.add(one_at_a_time());
  return registry;
}

TEST(PolicyRegistry, AnAddedPolicyIsParsedAndServed) {
  const PolicyRegistry registry = registry_with_one_at_a_time();
  const PolicyName name = registry.parse("one-at-a-time", "policy");
  EXPECT_EQ(name.traits().family, "one-at-a-time");
  EXPECT_EQ(name.order, 7u);  // after the seven built-in families

  // Two requests at 0 (the second with a one-token answer), one at 20 after the server has run dry.
  const std::vector<Request> requests = {{0, 3, 2}, {0, 2, 1}, {20, 1, 3}};
  const sim::testing::Served served = serve(linear_steps(), requests, name);
  expect_times(served.requests[0], 3, 8, 0);    // prefill(3) -> 3; decode(1, 4) = 5 -> 8
  expect_times(served.requests[1], 10, 10, 0);  // prefill(2) -> 10
  expect_times(served.requests[2], 21, 28, 0);  // idle to 20; prefill(1) -> 21; decode(1, 2) -> 24; decode(1, 3) -> 28
  EXPECT_EQ(served.steps_run, 6);
}

TEST(PolicyRegistry, AnAddedPolicyIsListedWithItsTraits) {
  const PolicyRegistry registry = registry_with_one_at_a_time();
  EXPECT_EQ(registry.name_forms().back(), "one-at-a-time");
  const PolicyTraits& listed = registry.families().back().traits;
  EXPECT_EQ(listed.label, "One at a time");
  EXPECT_EQ(listed.help, "one request at a time, with a KV cache");
  EXPECT_TRUE(listed.caches_kv);
  EXPECT_FALSE(listed.keeps_kv_in_blocks);
  EXPECT_FALSE(listed.takes_kv_budget);
  EXPECT_EQ(listed.admission, Admission::one_at_a_time);
  try {
    registry.parse("fifo", "policies[1]");
    ADD_FAILURE() << "no error for fifo";
  } catch (const InputError& error) {
    EXPECT_EQ(
        std::string(error.what()),
        "policies[1] \"fifo\" is not a known policy (known: serial-nocache, serial-cache, static:B, continuous:B, "
        "reserve:B, paged:B, chunked:B,T, one-at-a-time)");
  }
  EXPECT_THROW(registry.parse("one-at-a-time:4", "policy"), InputError);  // it takes no batch size
}

TEST(PolicyRegistry, TheDefaultRegistryHasTheBuiltInsAlone) {
  EXPECT_EQ(policy_name_forms(), PolicyRegistry().name_forms());
  EXPECT_EQ(policy_name_forms().size(), 7u);
  EXPECT_THROW(parse_policy_name("one-at-a-time", "policy"), InputError);
}

TEST(PolicyRegistry, AFamilyNameIsRegisteredOnce) {
  PolicyRegistry registry = registry_with_one_at_a_time();
  EXPECT_THROW(registry.add(one_at_a_time()), std::logic_error);
}

TEST(PolicyRegistry, TheMemoryTraitsOfTheBuiltIns) {
  auto traits = [](const std::string& name) { return parse_policy_name(name, "policy").traits(); };
  EXPECT_FALSE(traits("serial-nocache").caches_kv);
  EXPECT_TRUE(traits("serial-cache").caches_kv);
  EXPECT_FALSE(traits("continuous:4").takes_kv_budget);
  EXPECT_TRUE(traits("reserve:4").takes_kv_budget);
  EXPECT_FALSE(traits("reserve:4").keeps_kv_in_blocks);
  EXPECT_TRUE(traits("paged:4").keeps_kv_in_blocks);
  EXPECT_TRUE(traits("chunked:4,8").keeps_kv_in_blocks);
  EXPECT_FALSE(traits("paged:4").runs_mixed_steps);
  EXPECT_TRUE(traits("chunked:4,8").runs_mixed_steps);
  EXPECT_EQ(default_policies(8),
            (std::vector<std::string>{"serial-nocache", "serial-cache", "static:8", "continuous:8"}));
}

}  // namespace
}  // namespace kvlab::policy
