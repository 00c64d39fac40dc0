// measure_pass_history(): the parts it measures have the documented shape, and there are none where the
// rested step is shorter than the threshold or no prompt fits. No timing is asserted: only shapes and
// bounds.
#include "measure/measure_pass_history.h"

#include <gtest/gtest.h>

#include "serve_test_support.h"

namespace kvlab {
namespace {

using nlohmann::json;

// Every ratio of a list of lists is in [lo, hi], and every list has `count` entries.
void expect_ratios(const json& lists, size_t count, double lo, double hi) {
  for (const json& ratios : lists) {
    ASSERT_EQ(ratios.size(), count);
    for (const json& ratio : ratios) {
      EXPECT_GE(ratio.get<double>(), lo);
      EXPECT_LE(ratio.get<double>(), hi);
    }
  }
}

TEST(MeasurePassHistory, TheDefaultModelGetsARatioForEveryCell) {
  MeasureOptions options;  // the "small" preset: an 8-row step lasts milliseconds
  Model model(options.model);
  const PassHistoryParts parts = measure_pass_history(model, options, 1);

  const json after_prompt = parts.after_prompt.to_json();
  EXPECT_EQ(after_prompt["prompt_rows"], json({8, 16, 32, 64, 128}));
  ASSERT_EQ(after_prompt["ratio"].size(), 5u);
  expect_ratios(after_prompt["ratio"], kAfterPromptPasses, sim::AfterPromptTable::kMinRatio,
                sim::AfterPromptTable::kMaxRatio);

  const json prompt_pass = parts.prompt_pass.to_json();
  EXPECT_EQ(prompt_pass["tokens"], json({8, 32, 128}));
  EXPECT_EQ(prompt_pass["decode_rows"], json({1, 8}));  // one row, and the largest grid row count up to 8
  ASSERT_EQ(prompt_pass["after_decode"].size(), 2u);
  ASSERT_EQ(prompt_pass["after_prompt"].size(), 3u);
  for (const char* cells : {"after_decode", "after_prompt"})
    expect_ratios(prompt_pass[cells], 3, sim::PromptPassTable::kMinRatio, sim::PromptPassTable::kMaxRatio);
  // A prompt pass right after one of its own size is measured against itself: its cell's price.
  for (size_t i = 0; i < 3; ++i)
    EXPECT_EQ(prompt_pass["after_prompt"][i][i].get<double>(), 1.0) << "tokens before " << i;

  // What replay writes into its tables reads back as a step table's parts.
  EXPECT_FALSE(sim::AfterPromptTable::from_json(after_prompt, "after_prompt").empty());
  EXPECT_FALSE(sim::PromptPassTable::from_json(prompt_pass, "prompt_pass").empty());
}

TEST(MeasurePassHistory, StepsTooShortToTimeGiveNoParts) {
  MeasureOptions options;
  options.model = serve::testing::tiny_model();
  Model model(options.model);
  // No step lasts a day: whatever this machine's speed (or a sanitizer's), the rested step is too short.
  const PassHistoryParts parts = measure_pass_history(model, options, 1, 86'400'000.0);
  EXPECT_TRUE(parts.after_prompt.empty());
  EXPECT_TRUE(parts.prompt_pass.empty());
}

TEST(MeasurePassHistory, AModelTooShortForAnyPromptGivesNoParts) {
  MeasureOptions options;
  options.model.max_seq = 8;  // no prompt of 8 tokens or more fits before a decode step
  options.decode_contexts = {4};
  Model model(options.model);
  const PassHistoryParts parts = measure_pass_history(model, options, 1);
  EXPECT_TRUE(parts.after_prompt.empty());
  EXPECT_TRUE(parts.prompt_pass.empty());
}

}  // namespace
}  // namespace kvlab
