// The whole-queue playback (options.queue_timeline): seats, padding, memory change points and
// preemptions on workloads small enough to follow by hand. Every prefill costs 10 ms, every decode step 1.
#include <gtest/gtest.h>

#include <vector>

#include "common/input_error.h"
#include "sim/simulate.h"
#include "sim_test_support.h"

namespace kvlab::sim {
namespace {

using nlohmann::json;
using testing::constant_steps;
using testing::workload_json;

json played(const json& workload, const std::string& policy, SimulateOptions options = {}) {
  options.queue_timeline = true;
  return simulate_json(constant_steps(10, 1), workload, {policy}, options)[policy];
}

std::vector<double> numbers(const json& column) { return column.get<std::vector<double>>(); }

// Three requests at t = 0 with answers of 1, 3 and 2 tokens.
const json kThree = workload_json({{0, 4, 1}, {0, 4, 3}, {0, 4, 2}});

TEST(PlaybackLog, StaticBatchesHoldFinishedRowsAsPadding) {
  // Batch 1 = requests 0 and 1: prefills 0-10 (request 0 is done: one token) and 10-20, then decode
  // steps to 21 and 22 for request 1's tokens 2 and 3; request 0 rides along as padding until 22.
  // Batch 2 = request 2: prefill 22-32, one decode step to 33.
  const json stints = played(kThree, "static:2")["queue_timeline"]["stints"];
  EXPECT_EQ(stints["request"], json({0, 1, 2}));
  EXPECT_EQ(stints["slot"], json({0, 1, 0}));
  EXPECT_EQ(numbers(stints["start_ms"]), std::vector<double>({0, 10, 22}));
  EXPECT_EQ(numbers(stints["end_ms"]), std::vector<double>({10, 22, 33}));
  EXPECT_EQ(numbers(stints["held_until_ms"]), std::vector<double>({22, 22, 33}));
  EXPECT_EQ(stints["tokens_before"], json({0, 0, 0}));
}

TEST(PlaybackLog, ContinuousBatchingFreesASeatAtOnce) {
  // Request 0 (one token) leaves slot 0 at 10; request 1 takes it (prefill 10-20), request 2 slot 1
  // (20-30); decode steps to 31 (request 2 done) and 32 (request 1 done).
  const json result = played(kThree, "continuous:2");
  const json& stints = result["queue_timeline"]["stints"];
  EXPECT_EQ(stints["request"], json({0, 1, 2}));
  EXPECT_EQ(stints["slot"], json({0, 0, 1}));
  EXPECT_EQ(numbers(stints["start_ms"]), std::vector<double>({0, 10, 20}));
  EXPECT_EQ(numbers(stints["end_ms"]), std::vector<double>({10, 32, 31}));
  EXPECT_EQ(numbers(stints["held_until_ms"]), std::vector<double>({10, 32, 31}));
  const json& requests = result["queue_timeline"]["requests"];
  EXPECT_EQ(numbers(requests["arrival_ms"]), std::vector<double>({0, 0, 0}));
  EXPECT_EQ(numbers(requests["first_token_ms"]), std::vector<double>({10, 20, 30}));
  EXPECT_EQ(numbers(requests["finish_ms"]), std::vector<double>({10, 32, 31}));
  EXPECT_EQ(requests["prompt_tokens"], json({4, 4, 4}));
  EXPECT_EQ(requests["answer_tokens"], json({1, 3, 2}));
  EXPECT_FALSE(result.contains("memory_timeline"));  // continuous:B models no memory
}

// Two requests at t = 0, prompts of 2 and answers of 4 tokens, in 4 blocks of 2 tokens.
const json kTwo = workload_json({{0, 2, 4}, {0, 2, 4}});
SimulateOptions four_blocks_of_two() {
  SimulateOptions options;
  options.kv_tokens = 8;
  options.block_tokens = 2;
  return options;
}

TEST(PlaybackLog, PagedMemoryFillsPreemptsAndFrees) {
  // Prefills 0-10 and 10-20 take a block each; before the step to 21 both grow to 3 positions (2 blocks
  // each, all 4 held); the step to 22 leaves both at 4 positions, and the next token needs a fifth:
  // request 1 (the later admitted) is preempted at 22 and request 0 grows to 3 blocks, finishing at 23.
  // Request 1 then re-prefills its 2 + 3 tokens (3 blocks) from 23 to 33 in the freed slot 0.
  const json result = played(kTwo, "paged:2", four_blocks_of_two());
  const json& stints = result["queue_timeline"]["stints"];
  EXPECT_EQ(stints["request"], json({0, 1, 1}));
  EXPECT_EQ(stints["slot"], json({0, 1, 0}));
  EXPECT_EQ(numbers(stints["start_ms"]), std::vector<double>({0, 10, 23}));
  EXPECT_EQ(numbers(stints["end_ms"]), std::vector<double>({23, 22, 33}));
  EXPECT_EQ(stints["tokens_before"], json({0, 0, 3}));

  const json& memory = result["memory_timeline"];
  EXPECT_EQ(memory["budget_blocks"], 4);
  EXPECT_EQ(memory["block_tokens"], 2);
  EXPECT_EQ(numbers(memory["t_ms"]), std::vector<double>({0, 10, 20, 21, 22, 23, 33}));
  EXPECT_EQ(memory["held_blocks"], json({1, 2, 4, 4, 3, 3, 0}));
  EXPECT_EQ(memory["used_tokens"], json({0, 2, 4, 6, 4, 0, 0}));
  EXPECT_EQ(numbers(memory["preemptions"]["t_ms"]), std::vector<double>({22}));
  EXPECT_EQ(memory["preemptions"]["request"], json({1}));
  EXPECT_EQ(result["preemptions"], 1);
}

TEST(PlaybackLog, ReserveHoldsTheLongestAnswerFromAdmission) {
  // Each request reserves 2 + 4 - 1 = 5 positions (3 blocks): request 1 waits until request 0 is done at
  // 13, while the used tokens grow one a step inside the reservation.
  const json result = played(kTwo, "reserve:2", four_blocks_of_two());
  const json& memory = result["memory_timeline"];
  EXPECT_EQ(numbers(memory["t_ms"]), std::vector<double>({0, 10, 11, 12, 13, 23, 24, 25, 26}));
  EXPECT_EQ(memory["held_blocks"], json({3, 3, 3, 3, 3, 3, 3, 3, 0}));
  EXPECT_EQ(memory["used_tokens"], json({0, 2, 3, 4, 0, 2, 3, 4, 0}));
  EXPECT_EQ(memory["preemptions"]["t_ms"], json::array());
  EXPECT_EQ(numbers(result["queue_timeline"]["stints"]["start_ms"]), std::vector<double>({0, 13}));
}

TEST(PlaybackLog, OffByDefaultAndThePricedNumbersDoNotMove) {
  SimulateOptions options = four_blocks_of_two();
  const json plain = simulate_json(constant_steps(10, 1), kTwo, {"paged:2", "static:2"}, options);
  EXPECT_FALSE(plain["paged:2"].contains("queue_timeline"));
  EXPECT_FALSE(plain["paged:2"].contains("memory_timeline"));
  options.queue_timeline = true;
  json with = simulate_json(constant_steps(10, 1), kTwo, {"paged:2", "static:2"}, options);
  for (const char* policy : {"paged:2", "static:2"}) {
    with[policy].erase("queue_timeline");
    with[policy].erase("memory_timeline");
    EXPECT_EQ(with[policy], plain[policy]) << policy;
  }
}

TEST(PlaybackLog, TheOptionIsReadFromJson) {
  EXPECT_TRUE(read_simulate_options(json{{"queue_timeline", true}}).queue_timeline);
  EXPECT_FALSE(read_simulate_options(json::object()).queue_timeline);
  EXPECT_THROW(read_simulate_options(json{{"queue_timeline", 3}}), InputError);
}

}  // namespace
}  // namespace kvlab::sim
