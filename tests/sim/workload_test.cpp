// Workloads: the generator's exact draws (so that a change of generator is caught), explicit lists, and
// their checks.
#include "sim/workload.h"

#include <gtest/gtest.h>

#include "common/input_error.h"

namespace kvlab::sim {
namespace {

using nlohmann::json;

void expect_request(const Request& request, double arrival_ms, int prompt_tokens, int answer_tokens) {
  EXPECT_DOUBLE_EQ(request.arrival_ms, arrival_ms);
  EXPECT_EQ(request.prompt_tokens, prompt_tokens);
  EXPECT_EQ(request.answer_tokens, answer_tokens);
}

// Expected values come from a separate Python SplitMix64 following the documented draw order.
TEST(GeneratedWorkload, DrawsAreFixedBySeed) {
  auto requests = read_workload({{"count", 1000}, {"prompt", {8, 32}}, {"answer", {16, 96}},
                                 {"arrival", {{"kind", "all-at-zero"}}}, {"seed", 1}});
  ASSERT_EQ(requests.size(), 1000u);
  expect_request(requests[0], 0, 23, 68);
  expect_request(requests[1], 0, 23, 36);
  expect_request(requests[2], 0, 19, 93);
  expect_request(requests[3], 0, 28, 82);
  long long prompt_sum = 0, answer_sum = 0;
  for (const Request& r : requests) prompt_sum += r.prompt_tokens, answer_sum += r.answer_tokens;
  EXPECT_EQ(prompt_sum, 20080);
  EXPECT_EQ(answer_sum, 55220);
}

TEST(GeneratedWorkload, PoissonGapsFollowEachRequestsSizes) {
  auto requests = read_workload({{"count", 3}, {"prompt", {8, 32}}, {"answer", {16, 96}},
                                 {"arrival", {{"kind", "poisson"}, {"rate_per_s", 50}}}, {"seed", 7}});
  // Per request: prompt, answer, then the gap -ln(1 - u) / 50 s; the first arrives one gap after t = 0.
  expect_request(requests[0], 46.204419567462814, 20, 94);
  expect_request(requests[1], 51.942907352993046, 11, 59);
  expect_request(requests[2], 54.82628098164236, 31, 55);
}

TEST(GeneratedWorkload, SameSeedSameWorkloadOtherSeedOther) {
  json spec = {{"count", 50}, {"prompt", {1, 100}}, {"answer", {1, 100}}, {"seed", 42}};
  EXPECT_EQ(explicit_workload(spec), explicit_workload(spec));
  json other = spec;
  other["seed"] = 43;
  EXPECT_NE(explicit_workload(spec), explicit_workload(other));
  // Without arrival and seed: all at zero, seed 1.
  json defaults = {{"count", 4}, {"prompt", {8, 32}}, {"answer", {16, 96}}};
  EXPECT_EQ(explicit_workload(defaults)["requests"][3], (json{{"arrival_ms", 0.0}, {"prompt", 28}, {"answer", 82}}));
}

TEST(ExplicitWorkload, RoundTripsAGeneratedOne) {
  json spec = {{"count", 20}, {"prompt", {1, 9}}, {"answer", {1, 9}}, {"arrival", {{"kind", "poisson"}, {"rate_per_s", 10}}}};
  auto generated = read_workload(spec);
  auto replayed = read_workload(explicit_workload(spec));
  ASSERT_EQ(replayed.size(), generated.size());
  for (size_t i = 0; i < generated.size(); ++i)
    expect_request(replayed[i], generated[i].arrival_ms, generated[i].prompt_tokens, generated[i].answer_tokens);
}

TEST(ExplicitWorkload, KeepsListOrder) {
  auto requests = read_workload({{"requests",
                                  {{{"arrival_ms", 5}, {"prompt", 2}, {"answer", 3}},
                                   {{"arrival_ms", 0.5}, {"prompt", 1}, {"answer", 1}}}}});
  expect_request(requests[0], 5, 2, 3);
  expect_request(requests[1], 0.5, 1, 1);
}

// The InputError message of reading `workload`.
std::string error_of(const json& workload) {
  try {
    read_workload(workload);
  } catch (const InputError& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(WorkloadErrors, NameTheField) {
  json good = {{"arrival_ms", 0}, {"prompt", 4}, {"answer", 4}};
  json zero_prompt = good, zero_answer = good, negative_arrival = good, nan_arrival = good, extra = good, missing = good;
  zero_prompt["prompt"] = 0;
  zero_answer["answer"] = 0;
  negative_arrival["arrival_ms"] = -1;
  nan_arrival["arrival_ms"] = "NaN";
  extra["priority"] = 1;
  missing.erase("answer");
  auto list = [&](const json& bad) { return json{{"requests", {good, good, good, bad}}}; };
  EXPECT_EQ(error_of(list(zero_prompt)), "workload.requests[3].prompt must be an integer from 1 to 1000000 (got 0)");
  EXPECT_EQ(error_of(list(zero_answer)), "workload.requests[3].answer must be an integer from 1 to 1000000 (got 0)");
  EXPECT_NE(error_of(list(negative_arrival)).find("workload.requests[3].arrival_ms must be a number from 0"), std::string::npos);
  EXPECT_NE(error_of(list(nan_arrival)).find("workload.requests[3].arrival_ms"), std::string::npos);
  EXPECT_NE(error_of(list(nan_arrival)).find("(got NaN)"), std::string::npos);
  EXPECT_NE(error_of(list(extra)).find("workload.requests[3].priority is not a known field"), std::string::npos);
  EXPECT_NE(error_of(list(missing)).find("workload.requests[3].answer is missing"), std::string::npos);
  EXPECT_NE(error_of({{"requests", json::array()}}).find("workload.requests"), std::string::npos);
  EXPECT_NE(error_of(json::array()).find("workload must be an object"), std::string::npos);

  json spec = {{"count", 10}, {"prompt", {8, 32}}, {"answer", {16, 96}}};
  auto with = [&](const char* key, const json& value) {
    json changed = spec;
    changed[key] = value;
    return error_of(changed);
  };
  EXPECT_NE(with("answer", {0, 5}).find("workload.answer[0] must be an integer from 1"), std::string::npos);
  EXPECT_NE(with("prompt", {32, 8}).find("workload.prompt must be a range [lo, hi] with lo <= hi"), std::string::npos);
  EXPECT_NE(with("prompt", {8}).find("workload.prompt must be a range [lo, hi]"), std::string::npos);
  EXPECT_NE(with("count", 0).find("workload.count must be an integer from 1 to 1000000 (got 0)"), std::string::npos);
  EXPECT_NE(with("seed", -1).find("workload.seed"), std::string::npos);
  EXPECT_NE(with("arrival", {{"kind", "bursty"}}).find("workload.arrival.kind"), std::string::npos);
  EXPECT_NE(with("arrival", {{"kind", "poisson"}}).find("workload.arrival.rate_per_s is missing"), std::string::npos);
  EXPECT_NE(with("arrival", {{"kind", "poisson"}, {"rate_per_s", 0}}).find("workload.arrival.rate_per_s must be a number"),
            std::string::npos);
  EXPECT_NE(with("arrival", {{"kind", "all-at-zero"}, {"rate_per_s", 3}}).find("workload.arrival.rate_per_s is not a known field"),
            std::string::npos);
  json no_count = spec;
  no_count.erase("count");
  EXPECT_NE(error_of(no_count).find("workload.count is missing"), std::string::npos);
}

TEST(WorkloadErrors, TooManyAnswerTokensInAll) {
  // 1,000,000 answers of at least 101 tokens: more than the 100,000,000 simulated tokens allowed.
  std::string message = error_of({{"count", 1000000}, {"prompt", {1, 1}}, {"answer", {101, 101}}});
  EXPECT_NE(message.find("workload asks for 101000000 answer tokens"), std::string::npos) << message;
}

}  // namespace
}  // namespace kvlab::sim
