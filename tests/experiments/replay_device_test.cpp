// replay() on a ForwardDevice: every timed and served pass goes to the device, which names caches only
// by its slots (DeviceSlots), and the tokens are the CPU's. The device here is a second copy of the
// model with KV caches of its own, standing in for the page's GPU (src/wasm/page_device.h).
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/input_error.h"
#include "experiments/replay.h"
#include "model/forward_device.h"
#include "model/kernels.h"
#include "model/model.h"
#include "serve_test_support.h"

namespace kvlab::experiments {
namespace {

using nlohmann::json;
using serve::testing::tiny_measure_options;
using serve::testing::tiny_model;

class MirrorDevice : public ForwardDevice {
 public:
  MirrorDevice(const ModelConfig& config, int slots) : model_(config), slots_(slots, "device.slots") {
    for (int i = 0; i < slots; ++i) caches_.emplace_back(config, config.max_seq);
  }
  long long passes = 0, rows = 0;

 protected:
  void run(const std::vector<Row>& rows_in, std::vector<int>& tokens) override {
    const std::vector<int>& slots = slots_.slots_of(rows_in);
    std::vector<Row> own;
    for (size_t r = 0; r < rows_in.size(); ++r) {
      KvCache& cache = caches_[static_cast<size_t>(slots[r])];
      // A row at position 0 starts its sequence over, as a cleared cache does.
      if (rows_in[r].position == 0) cache.length = 0;
      own.push_back(Row{rows_in[r].token, &cache, rows_in[r].position, rows_in[r].want_logits});
    }
    const float* logits = model_.forward(own);
    const int vocab = model_.config().vocab;
    for (size_t i = 0; i < tokens.size(); ++i)
      tokens[i] = kernels::argmax(logits + i * static_cast<size_t>(vocab), vocab);
    ++passes;
    rows += static_cast<long long>(rows_in.size());
  }

 private:
  Model model_;
  DeviceSlots slots_;
  std::vector<KvCache> caches_;
};

json device_replay_options(const std::vector<std::string>& policies) {
  return {{"measure", tiny_measure_options()},
          {"workload", {{"count", 10}, {"prompt", {2, 10}}, {"answer", {1, 12}}, {"seed", 5}}},
          {"policies", policies},
          {"nocache_requests", 4},
          {"timeline_requests", 0},
          {"after_prompt_rounds", 2}};
}

TEST(ReplayOnDevice, EveryPassRunsOnTheDeviceWithTheCpusTokens) {
  const json options = device_replay_options({"serial-nocache", "serial-cache", "static:3", "continuous:3"});
  const ReplayResult on_cpu = replay(read_replay_options(options));
  MirrorDevice device(tiny_model(), 16);
  const ReplayResult on_device = replay(read_replay_options(options), nullptr, &device);
  ASSERT_EQ(on_device.policies.size(), on_cpu.policies.size());
  long long served_steps = 0;
  for (size_t p = 0; p < on_cpu.policies.size(); ++p) {
    SCOPED_TRACE(on_cpu.policies[p].name);
    const RealRun &cpu = on_cpu.policies[p].replay.real, &device_run = on_device.policies[p].replay.real;
    ASSERT_EQ(device_run.answers.size(), cpu.answers.size());
    for (size_t i = 0; i < cpu.answers.size(); ++i) EXPECT_EQ(device_run.answers[i], cpu.answers[i]) << i;
    EXPECT_EQ(device_run.result.metrics.steps, cpu.result.metrics.steps);
    served_steps += device_run.result.metrics.steps;
  }
  // Served passes, and the tables' and the history parts' timed passes besides.
  EXPECT_GT(device.passes, served_steps);
}

TEST(ReplayOnDevice, APolicyWithKvInSharedBlocksIsRefusedBeforeAnythingRuns) {
  MirrorDevice device(tiny_model(), 16);
  try {
    replay(read_replay_options(device_replay_options({"serial-cache", "paged:4"})), nullptr, &device);
    ADD_FAILURE() << "no error";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("options.policies[1]"), std::string::npos) << error.what();
  }
  EXPECT_EQ(device.passes, 0);
}

std::vector<Row> rows_of(std::vector<KvCache*> caches) {
  std::vector<Row> rows;
  for (KvCache* cache : caches) rows.push_back(Row{1, cache, 0, true});
  return rows;
}

TEST(DeviceSlots, ACacheKeepsItsSlotAndTheLeastRecentlyUsedGivesWay) {
  const ModelConfig config = tiny_model();
  KvCache a(config, 4), b(config, 4), c(config, 4);
  DeviceSlots slots(2, "device.slots");
  EXPECT_EQ(slots.slots_of(rows_of({&a, &b, &a})), (std::vector<int>{0, 1, 0}));
  EXPECT_EQ(slots.slots_of(rows_of({&b})), (std::vector<int>{1}));
  EXPECT_EQ(slots.slots_of(rows_of({&c})), (std::vector<int>{0}));  // a was used longest ago
  EXPECT_EQ(slots.slots_of(rows_of({&b, &c})), (std::vector<int>{1, 0}));
  try {
    slots.slots_of(rows_of({&a, &b, &c}));
    ADD_FAILURE() << "no error";
  } catch (const InputError& error) {
    EXPECT_EQ(error.field().path, "device.slots");
    EXPECT_NE(std::string(error.what()).find("names at least 3 KV caches"), std::string::npos) << error.what();
  }
  KvBlockPool pool(config, 4, 2);
  KvCache paged(pool);
  paged.block_table = {0};
  EXPECT_THROW(slots.slots_of(rows_of({&paged})), std::logic_error);
}

}  // namespace
}  // namespace kvlab::experiments
