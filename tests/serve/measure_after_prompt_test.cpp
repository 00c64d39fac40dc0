// measure_after_prompt(): the table it measures has the documented shape, and none where the rested step
// is shorter than the threshold or no prompt fits. No timing is asserted: only shapes and bounds.
#include "serve/measure_after_prompt.h"

#include <gtest/gtest.h>

#include "serve_test_support.h"

namespace kvlab::serve {
namespace {

using nlohmann::json;

TEST(MeasureAfterPrompt, TheDefaultModelGetsARatioForEveryPromptSizeAndPass) {
  MeasureOptions options;  // the "small" preset: an 8-row step lasts milliseconds
  Model model(options.model);
  const json table = measure_after_prompt(model, options, 1).to_json();
  EXPECT_EQ(table["prompt_rows"], json({8, 16, 32, 64, 128}));
  ASSERT_EQ(table["ratio"].size(), 5u);
  for (const json& ratios : table["ratio"]) {
    ASSERT_EQ(ratios.size(), static_cast<size_t>(kAfterPromptPasses));
    for (const json& ratio : ratios) {
      EXPECT_GE(ratio.get<double>(), sim::AfterPromptTable::kMinRatio);
      EXPECT_LE(ratio.get<double>(), sim::AfterPromptTable::kMaxRatio);
    }
  }
  // What replay writes into its tables reads back as a step table's part.
  EXPECT_FALSE(sim::AfterPromptTable::from_json(table, "after_prompt").empty());
}

TEST(MeasureAfterPrompt, StepsTooShortToTimeGiveNoTable) {
  MeasureOptions options;
  options.model = testing::tiny_model();
  Model model(options.model);
  // No step lasts a day: whatever this machine's speed (or a sanitizer's), the rested step is too short.
  EXPECT_TRUE(measure_after_prompt(model, options, 1, 86'400'000.0).empty());
}

TEST(MeasureAfterPrompt, AModelTooShortForAnyPromptGivesNoTable) {
  MeasureOptions options;
  options.model.max_seq = 8;  // no prompt of 8 tokens or more fits before a decode step
  options.decode_contexts = {4};
  Model model(options.model);
  EXPECT_TRUE(measure_after_prompt(model, options, 1).empty());
}

}  // namespace
}  // namespace kvlab::serve
