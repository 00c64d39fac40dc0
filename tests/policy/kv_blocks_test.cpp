// The block manager alone: counts, refusals that change nothing, prefix hits, and eviction order.
#include "policy/kv_blocks.h"

#include <gtest/gtest.h>

#include <vector>

#include "policy/step_series.h"
#include "sim_test_support.h"

namespace kvlab::sim {
namespace {

// A request whose prefill of `prompt_tokens` is done (one token out), in `conversation`.
policy::RequestState prefilled(int prompt_tokens, int conversation) {
  policy::RequestState state;
  state.request = {0, prompt_tokens, 8, 0, conversation};
  state.answer_tokens_out = 1;
  state.prefill_tokens = state.prefilled_tokens = prompt_tokens;
  return state;
}

TEST(KvBlockManager, PlainBlocksWithoutReuse) {
  std::vector<policy::RequestState> requests = {prefilled(3, -1), prefilled(4, -1)};
  policy::KvBlockManager blocks(testing::kv_blocks(4, 2), requests, false);
  EXPECT_EQ(blocks.cached_prefix_tokens(requests[0], 3), 0);
  ASSERT_TRUE(blocks.admit(requests[0], 0, 3, 3));   // 2 blocks
  EXPECT_FALSE(blocks.admit(requests[1], 0, 5, 4));  // 3 more do not fit...
  EXPECT_EQ(blocks.held_blocks(), 2);                // ...and nothing changed
  ASSERT_TRUE(blocks.admit(requests[1], 0, 4, 4));
  EXPECT_TRUE(blocks.grow(requests[0], 4));   // position 3 is in its second block
  EXPECT_FALSE(blocks.grow(requests[0], 5));  // a third: none free
  EXPECT_EQ(blocks.held_blocks(), 4);
  blocks.release(requests[1]);
  EXPECT_TRUE(blocks.grow(requests[0], 5));
  EXPECT_EQ(blocks.held_blocks(), 3);
}

TEST(KvBlockManager, HitsAreLookedUpAfreshAndEvictedLastBlockFirst) {
  // Blocks of 2, 4 in all, prefix reuse on. X (conversation 0, p = 4) computes its 4 positions: blocks 0
  // and 1 get their content keys. Freed (as a preemption frees them), they stay cached, block 1 ahead of
  // block 0 in the eviction order.
  std::vector<policy::RequestState> requests = {prefilled(4, 0), prefilled(6, 1), prefilled(5, 0)};
  const policy::RequestState &x = requests[0], &y = requests[1], &z = requests[2];
  policy::KvBlockManager blocks(testing::kv_blocks(4, 2), requests, true);
  ASSERT_TRUE(blocks.admit(x, 0, 4, 4));
  blocks.note_computed(x);
  blocks.release(x);
  EXPECT_EQ(blocks.held_blocks(), 0);
  // X again (p = 4) may hit at most (4 - 1) / 2 = 1 block: one token must be computed to give a token.
  EXPECT_EQ(blocks.cached_prefix_tokens(x, 4), 2);
  // Z, a later turn of the same conversation (p = 5), finds both.
  EXPECT_EQ(blocks.cached_prefix_tokens(z, 5), 4);
  // Y (another conversation) takes 3 blocks: the 2 free ones and, evicted, X's block 1.
  ASSERT_TRUE(blocks.admit(y, 0, 6, 6));
  EXPECT_EQ(blocks.cached_prefix_tokens(z, 5), 2);  // only block 0 is left to find
  // Z needs 3 blocks: it would claim the cached block 0 and needs 2 more, but Y holds the other 3 and block
  // 0 cannot be both claimed and evicted: refused.
  EXPECT_FALSE(blocks.admit(z, 2, 5, 5));
  blocks.release(y);
  ASSERT_TRUE(blocks.admit(z, 2, 5, 5));
  EXPECT_EQ(blocks.held_blocks(), 3);
  blocks.record_step(1, 1);
  const policy::KvBlockReport report = blocks.report();
  // Tokens looked up at the three admissions: 4 + 6 + 5, of which 2 were found (Z's block 0).
  EXPECT_DOUBLE_EQ(report.prefix_hit_rate.value(), 2.0 / 15);
  EXPECT_EQ(report.peak_blocks, 3);
  // During the step Z held 3 blocks (6 slots) and 2 used positions (the cached ones).
  EXPECT_DOUBLE_EQ(report.waste_pct.value(), 100 * 4.0 / 6);
}

TEST(KvBlockManager, SharedBlocksAreCountedOnce) {
  // Two requests of one conversation hold the same keyed block: 1 block, 2 used slots, not 2 and 4.
  std::vector<policy::RequestState> requests = {prefilled(3, 0), prefilled(3, 0)};
  policy::KvBlockManager blocks(testing::kv_blocks(8, 2), requests, true);
  ASSERT_TRUE(blocks.admit(requests[0], 0, 3, 3));
  blocks.note_computed(requests[0]);  // block 0 keyed
  ASSERT_TRUE(blocks.admit(requests[1], 2, 3, 3));
  blocks.note_computed(requests[1]);
  EXPECT_EQ(blocks.held_blocks(), 3);  // the shared block 0 and one second block each
  blocks.record_step(1, 1);
  // 6 slots held, 2 (shared) + 1 + 1 used.
  EXPECT_DOUBLE_EQ(blocks.report().waste_pct.value(), 100 * 2.0 / 6);
  blocks.release(requests[0]);
  EXPECT_EQ(blocks.held_blocks(), 2);  // the shared block is still held by the other
}

TEST(StepSeries, KeepsAtMostItsCapEvenlySpread) {
  policy::StepSeries series;
  for (int step = 0; step < 5000; ++step) series.add(step, step % 7);
  nlohmann::json points = series.to_json("v");
  size_t kept = points["t_ms"].size();
  EXPECT_GE(kept, policy::StepSeries::kMaxPoints / 2);
  EXPECT_LE(kept, policy::StepSeries::kMaxPoints);
  // 5000 steps with a cap of 512: the stride has doubled to 16, keeping steps 0, 16, 32, ... 4992.
  EXPECT_EQ(kept, 313u);
  EXPECT_EQ(points["t_ms"][1], 16.0);
  EXPECT_EQ(points["t_ms"][312], 4992.0);
  EXPECT_EQ(points["v"][1], 2.0);  // 16 % 7
}

}  // namespace
}  // namespace kvlab::sim
