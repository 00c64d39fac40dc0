// The KV-memory policies on tiny workloads, with the times, blocks and waste worked out by hand.
// linear_steps(): prefill(L) = L ms, decode(r, c) = r + c ms (a step of r rows costs r + mean(c_i)).
// affine_steps(): prefill(L) = 2 + L ms, so prefill(0) = 2; decode as above.
#include <gtest/gtest.h>

#include <vector>

#include "sim/workload.h"
#include "sim_test_support.h"

namespace kvlab::sim {
namespace {

using nlohmann::json;
using testing::affine_steps;
using testing::expect_times;
using testing::kv_blocks;
using testing::linear_steps;
using testing::serve;

// A (p = 3, n = 4: up to 6 positions, 3 blocks of 2) and B (p = 2, n = 3: up to 4 positions, 2 blocks),
// both at t = 0, in a memory of 4 blocks of 2 tokens.
const std::vector<policy::Request> kTwoInFourBlocks = {{0, 3, 4}, {0, 2, 3}};

TEST(PagedBatching, PreemptsTheLatestByRecompute) {
  auto served = serve(linear_steps(), kTwoInFourBlocks, "paged:2", kv_blocks(4, 2));
  const auto& r = served.requests;
  // Admit A: blocks for its 3 prompt positions, 2 of 4; prefill(3) -> 3. Admit B: 1 block (3 held);
  // prefill(2) -> 5.
  // Step 1: A's token 2 writes position 4 (its 2 blocks hold it); B's writes position 3, a new block (4
  // held). Contexts 4 and 3: 2 + 3.5 = 5.5 -> 10.5.
  // Step 2: A needs a third block for position 5, none is free: B, admitted last, is preempted (it held
  // 3 positions), its 2 blocks freed, and it goes back to the front of the queue. A alone at context 5:
  // 1 + 5 = 6 -> 16.5. B cannot come back: its re-prefill of 2 + 2 = 4 tokens needs 2 blocks, 1 is free.
  // Step 3: A at context 6: 7 -> 23.5, A done (its 3 blocks freed).
  // B is re-admitted: prefill(4) = 4 -> 27.5 gives its third token: done. Its first token stays at 5.
  expect_times(r[0], 3, 23.5, 0);
  expect_times(r[1], 5, 27.5, 0);  // re-admitted into slot 0, free again since A left
  EXPECT_DOUBLE_EQ(r[1].prefill_start_ms, 3);
  EXPECT_EQ(r[1].admissions, 2);
  EXPECT_EQ(served.steps_run, 6);
  EXPECT_EQ(served.memory->preemptions, 1);
  EXPECT_EQ(served.memory->recomputed_tokens, 3);  // the 3 positions B held, computed again
  EXPECT_EQ(served.memory->blocks.peak_blocks, 4);
  EXPECT_EQ(served.memory->blocks.budget_blocks.value(), 4);
  EXPECT_DOUBLE_EQ(served.memory->blocks.peak_utilisation_pct.value(), 100);
  // Slots held x unused slots, per step: A prefill 3 ms x (4 - 3); B prefill 2 ms x (6 - 5); step 1
  // 5.5 ms x (8 - 7); step 2 6 ms x (6 - 5); step 3 7 ms x (6 - 6); B again 4 ms x (4 - 4). Allocated:
  // 12 + 12 + 44 + 36 + 42 + 16 = 162 slot-ms, unused 3 + 2 + 5.5 + 6 = 16.5.
  EXPECT_DOUBLE_EQ(served.memory->blocks.waste_pct.value(), 100 * 16.5 / 162);
  EXPECT_FALSE(served.memory->blocks.prefix_hit_rate);  // the workload shares no prefix
}

TEST(ReserveBatching, HoldsPromptPlusTheLongestAnswer) {
  auto served = serve(linear_steps(), kTwoInFourBlocks, "reserve:2", kv_blocks(4, 2));
  const auto& r = served.requests;
  // The longest answer is 4: A reserves 3 + 4 - 1 = 6 positions (3 blocks), B 2 + 3 = 5 (3 blocks), so B
  // waits for A whole. A: prefill 3 -> 3; contexts 4, 5, 6: 5, 6, 7 -> 21. B: prefill 2 -> 23; contexts 3, 4:
  // 4, 5 -> 32.
  expect_times(r[0], 3, 21, 0);
  expect_times(r[1], 23, 32, 0);
  EXPECT_EQ(served.memory->preemptions, 0);
  EXPECT_EQ(served.memory->blocks.peak_blocks, 3);
  // 6 slots held throughout (32 ms: 192 slot-ms); unused per step: A 3 ms x 3, 5 x 2, 6 x 1, 7 x 0;
  // B 2 x 4, 4 x 3, 5 x 2: 9 + 10 + 6 + 8 + 12 + 10 = 55.
  EXPECT_DOUBLE_EQ(served.memory->blocks.waste_pct.value(), 100 * 55.0 / 192);
}

TEST(ReserveAndPaged, WithoutALimitAreContinuousBatching) {
  for (const char* policy : {"reserve:2", "paged:2"}) {
    auto served = serve(linear_steps(), kTwoInFourBlocks, policy);
    auto continuous = serve(linear_steps(), kTwoInFourBlocks, "continuous:2");
    for (size_t i = 0; i < 2; ++i)
      expect_times(served.requests[i], continuous.requests[i].first_token_ms, continuous.requests[i].finish_ms,
                   continuous.requests[i].slot);
    EXPECT_FALSE(served.memory->blocks.budget_blocks) << policy;
    EXPECT_FALSE(served.memory->blocks.peak_utilisation_pct) << policy;
  }
}

TEST(ChunkedPrefill, DecodesFirstThenChunks) {
  // chunked:2,4 on affine_steps(). A (p = 6, n = 2) and B (p = 1, n = 3) at 0; C (p = 5, n = 1) at 8.
  const std::vector<policy::Request> requests = {{0, 6, 2}, {0, 1, 3}, {8, 5, 1}};
  auto served = serve(affine_steps(), requests, "chunked:2,4");
  const auto& r = served.requests;
  // Step 1 (t = 0): no decode rows; A does not fit 4 tokens but is the step's first prefill: cut to
  // [0, 4). Alone and from 0: prefill(4) = 6 -> 6.
  // Step 2: A's rest [4, 6) costs prefill(6) - prefill(4) = 2; B [0, 1) fits the 2 tokens left and is the
  // first chunk from 0 with no decode rows, so it carries the fixed part: prefill(1) = 3. 5 -> 11: first
  // tokens of A and B.
  // Step 3: decode rows A (context 7) and B (context 2): 2 + 4.5 = 6.5 -> 17.5, A done. C arrived at 8 but
  // both slots are taken.
  // Step 4: B's row (context 3): 1 + 3 = 4, and 3 tokens left: C (5 tokens) is cut to [0, 3), priced
  // prefill(3) - prefill(0) = 3 since the decode row paid the fixed part. 7 -> 24.5, B done.
  // Step 5: C's rest [3, 5): prefill(5) - prefill(3) = 2, and no decode row nor chunk from 0 pays the
  // fixed part: + prefill(0) = 2. 4 -> 28.5: C's only token.
  expect_times(r[0], 11, 17.5, 0);
  expect_times(r[1], 11, 24.5, 1);
  expect_times(r[2], 28.5, 28.5, 0);
  EXPECT_DOUBLE_EQ(r[0].prefill_start_ms, 0);
  EXPECT_DOUBLE_EQ(r[2].prefill_start_ms, 17.5);
  EXPECT_EQ(served.steps_run, 5);
  EXPECT_EQ(served.memory->split_prefills.value(), 2);  // A and C
}

// affine_steps()'s decode (r + c), a convex prefill over tokens {1, 2, 4} of {3, 4, 8} (prefill(0) = 2,
// prefill(3) = 6), and, with `mixed`, a measured mixed grid of cell (k, r, c) = 10 + k + r + c over
// chunk_tokens {1, 3} x rows {1, 2} x contexts {1, 3}.
nlohmann::json convex_steps(bool mixed) {
  nlohmann::json steps = {{"decode", {{"rows", {1, 2}}, {"contexts", {1, 2}}, {"ms", {{2, 3}, {3, 4}}}}},
                          {"prefill", {{"tokens", {1, 2, 4}}, {"ms", {3, 4, 8}}}}};
  if (mixed)
    steps["mixed"] = {{"chunk_tokens", {1, 3}},
                      {"rows", {1, 2}},
                      {"contexts", {1, 3}},
                      {"ms", {{{13, 15}, {14, 16}}, {{15, 17}, {16, 18}}}}};
  return steps;
}

TEST(ChunkedPrefill, PricedOnTheMeasuredMixedGrid) {
  // chunked:2,3: A (p = 2, n = 3) and B (p = 4, n = 1) at 0.
  // Step 1: A [0, 2) whole; B (4) does not fit the 1 token left and waits. No decode rows: the formula,
  // prefill(2) = 4 -> 4, A's first token.
  // Step 2: A's row (context 3); B, the step's first prefill, is cut to [0, 2). On the grid:
  // mixed(2, 1, 3) = 16 -> 20.
  // Step 3: A's row (context 4) and B's rest [2, 4): mixed(2, 1, 4) = 17, plus what attending to B's first
  // 2 positions adds, (prefill(4) - prefill(2)) - (prefill(2) - prefill(0)) = 4 - 2 = 2: 19 -> 39.
  auto measured = serve(convex_steps(true), {{0, 2, 3}, {0, 4, 1}}, "chunked:2,3");
  expect_times(measured.requests[0], 4, 39, 0);
  expect_times(measured.requests[1], 39, 39, 1);
  // Without the grid, the formula: step 2 = decode(1, 3) + prefill(2) - prefill(0) = 4 + 2 -> 10; step 3 =
  // decode(1, 4) + prefill(4) - prefill(2) = 5 + 4 -> 19.
  auto derived = serve(convex_steps(false), {{0, 2, 3}, {0, 4, 1}}, "chunked:2,3");
  expect_times(derived.requests[0], 4, 19, 0);
  expect_times(derived.requests[1], 19, 19, 1);
}

TEST(ChunkedPrefill, TheGridPricesOnlyStepsOfDecodeRowsAndChunks) {
  // The other policies never run such a step, nor does chunked with one slot: the same times on tables
  // with and without the grid.
  const std::vector<policy::Request> requests = {{0, 4, 2}, {0, 4, 2}, {5, 3, 1}};
  for (const char* policy : {"paged:2", "chunked:1,4", "reserve:2", "continuous:2", "static:2"}) {
    auto measured = serve(convex_steps(true), requests, policy);
    auto derived = serve(convex_steps(false), requests, policy);
    for (size_t i = 0; i < requests.size(); ++i) {
      EXPECT_DOUBLE_EQ(measured.requests[i].first_token_ms, derived.requests[i].first_token_ms) << policy;
      EXPECT_DOUBLE_EQ(measured.requests[i].finish_ms, derived.requests[i].finish_ms) << policy;
    }
  }
}

TEST(ChunkedPrefill, APromptThatFitsWaitsRatherThanBeingCut) {
  // chunked:3,5 on linear_steps(): A (p = 3, n = 2), B (p = 3, n = 1) at 0.
  // Step 1: A [0, 3) whole, 2 tokens left; B (3) does not fit and is not the step's first prefill: it
  // waits. prefill(3) = 3 -> 3.
  // Step 2: A's decode row (context 4): 1 + 4 = 5, B [0, 3) whole in the 4 left: + 3 - 0. 8 -> 11.
  auto served = serve(linear_steps(), {{0, 3, 2}, {0, 3, 1}}, "chunked:3,5");
  expect_times(served.requests[0], 3, 11, 0);
  expect_times(served.requests[1], 11, 11, 1);
  EXPECT_EQ(served.memory->split_prefills.value(), 0);
}

TEST(ChunkedPrefill, PreemptsAPrefillInProgress) {
  // chunked:2,3 with 4 blocks of 2 tokens on linear_steps(): A (p = 3, n = 4: up to 6 positions, 3 blocks)
  // and B (p = 4, n = 1: 2 blocks for its prompt) at 0.
  // Step 1: A [0, 3) whole (2 blocks); B does not fit the 0 tokens left. prefill(3) = 3 -> 3.
  // Step 2: A's row (context 4, still in its 2 blocks): 1 + 4 = 5; B, the step's first prefill, is cut to
  // [0, 2) and takes the blocks of its whole prompt (4 held): + 2 - 0. 7 -> 10.
  // Step 3: A's row needs a third block, none is free: B, admitted last and half prefilled, is preempted
  // (2 positions thrown away) and goes back to the front of the queue; its re-admission needs 2 blocks, 1
  // is free. A at context 5: 6 -> 16.
  // Step 4: A at context 6: 7 -> 23, A done.
  // Step 5: B again, cut to [0, 3): prefill(3) = 3 -> 26. Step 6: [3, 4): 1 + prefill(0) = 1 -> 27.
  auto served = serve(linear_steps(), {{0, 3, 4}, {0, 4, 1}}, "chunked:2,3", kv_blocks(4, 2));
  const auto& r = served.requests;
  expect_times(r[0], 3, 23, 0);
  expect_times(r[1], 27, 27, 0);  // slot 0, free again since A left
  EXPECT_DOUBLE_EQ(r[1].prefill_start_ms, 3);
  EXPECT_EQ(r[1].admissions, 2);
  EXPECT_EQ(served.steps_run, 6);
  EXPECT_EQ(served.memory->preemptions, 1);
  EXPECT_EQ(served.memory->recomputed_tokens, 2);
  EXPECT_EQ(served.memory->split_prefills.value(), 2);
  EXPECT_EQ(served.memory->blocks.peak_blocks, 4);
}

TEST(PrefixReuse, SystemPromptBlocksAreFoundAgain) {
  // paged:1, blocks of 2, no limit, affine_steps(); a system prompt of 4 tokens. A (p = 5, n = 1) at 0,
  // B (p = 6, n = 2) at 10.
  json workload = {
      {"system_prompt", 4},
      {"requests",
       {{{"arrival_ms", 0}, {"prompt", 5}, {"answer", 1}}, {{"arrival_ms", 10}, {"prompt", 6}, {"answer", 2}}}}};
  auto requests = read_workload(workload);
  auto served = serve(affine_steps(), requests, "paged:1", testing::kv_blocks(100, 2));
  // A: nothing cached: prefill(5) = 7 -> 7, done. Its blocks 0 and 1 (positions 0-3, inside the system
  // prompt) are full and keyed; freed, they stay cached.
  // B at 10: at most (6 - 1) / 2 = 2 blocks may hit, and both do: 4 tokens. It computes [4, 6) alone:
  // prefill(0) + prefill(6) - prefill(4) = 2 + 2 = 4 -> 14 (TTFT 4 instead of prefill(6) = 8). Then
  // context 7: 1 + 7 = 8 -> 22.
  expect_times(served.requests[0], 7, 7, 0);
  expect_times(served.requests[1], 14, 22, 0);
  EXPECT_DOUBLE_EQ(served.memory->blocks.prefix_hit_rate.value(), 4.0 / 11);  // 4 of 5 + 6 tokens looked up

  // Without the system prompt in the workload, nothing is shared: B pays prefill(6) = 8 -> 18.
  json plain = workload;
  plain.erase("system_prompt");
  auto unshared = serve(affine_steps(), read_workload(plain), "paged:1", testing::kv_blocks(100, 2));
  expect_times(unshared.requests[1], 18, 26, 0);
  EXPECT_FALSE(unshared.memory->blocks.prefix_hit_rate);
}

TEST(PrefixReuse, AChatTurnFindsThePreviousTurn) {
  // Turn 1 (p = 3, n = 3) holds positions 0-4 when done: blocks 0 and 1 of 2 are full and keyed. Turn 2
  // (p = 3 + 3 + 2 = 8) of the same conversation finds both: 4 of its 8 tokens. Another conversation's
  // request (p = 8) finds nothing. paged:1, linear_steps().
  json workload = {{"requests",
                    {{{"arrival_ms", 0}, {"prompt", 3}, {"answer", 3}, {"conversation", 0}},
                     {{"arrival_ms", 50}, {"prompt", 8}, {"answer", 1}, {"conversation", 0}},
                     {{"arrival_ms", 60}, {"prompt", 8}, {"answer", 1}, {"conversation", 1}}}}};
  auto served = serve(linear_steps(), read_workload(workload), "paged:1", testing::kv_blocks(100, 2));
  // Turn 2 computes [4, 8): prefill(0) + 8 - 4 = 4 -> 54. The other: prefill(8) = 8 -> 68.
  expect_times(served.requests[1], 54, 54, 0);
  expect_times(served.requests[2], 68, 68, 0);
  EXPECT_DOUBLE_EQ(served.memory->blocks.prefix_hit_rate.value(), 4.0 / 19);
}

}  // namespace
}  // namespace kvlab::sim
