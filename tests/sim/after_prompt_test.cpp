// Decode passes after a prompt pass priced at the table's measured ratios: the lookups, the history a
// run keeps, and runs whose times are worked out by hand. linear_steps(): prefill(L) = L ms,
// decode(r, c) = r + c ms.
#include "sim/after_prompt.h"
#include "sim/pass_history.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/input_error.h"
#include "sim/step_table.h"
#include "sim_test_support.h"

namespace kvlab::sim {
namespace {

using nlohmann::json;
using testing::expect_part_error;
using testing::expect_same_times;
using testing::expect_times;
using testing::serve;

// After a prompt pass of 2 rows: 1.5, then 1.25; of 4 rows: 2, then 1.5; from the third pass on, 1.
json after_prompt_part() { return {{"prompt_rows", {2, 4}}, {"ratio", {{1.5, 1.25}, {2.0, 1.5}}}}; }

json linear_steps_after_prompt() {
  json steps = testing::linear_steps();
  steps["after_prompt"] = after_prompt_part();
  return steps;
}

TEST(AfterPromptTable, InterpolatesInPromptRowsAndHoldsTheEnds) {
  const AfterPromptTable table = AfterPromptTable::from_json(after_prompt_part(), "after_prompt");
  EXPECT_DOUBLE_EQ(table.ratio(2, 1), 1.5);
  EXPECT_DOUBLE_EQ(table.ratio(3, 1), 1.75);
  EXPECT_DOUBLE_EQ(table.ratio(3, 2), 1.375);
  EXPECT_DOUBLE_EQ(table.ratio(4, 2), 1.5);
  EXPECT_DOUBLE_EQ(table.ratio(1, 1), 1.5);   // below the smallest prompt: held
  EXPECT_DOUBLE_EQ(table.ratio(64, 1), 2.0);  // above the largest: held
  EXPECT_DOUBLE_EQ(table.ratio(3, 3), 1);     // past the measured passes
  EXPECT_DOUBLE_EQ(AfterPromptTable().ratio(3, 1), 1);
}

TEST(PassHistory, CountsDecodePassesSinceTheLastPromptPass) {
  const AfterPromptTable table = AfterPromptTable::from_json(after_prompt_part(), "after_prompt");
  const PromptPassTable no_prompt_part;
  PassHistory history(table, no_prompt_part);
  EXPECT_DOUBLE_EQ(history.decode_pass(1), 1);  // no prompt pass yet
  EXPECT_DOUBLE_EQ(history.prompt_pass(4), 1);  // prompt passes: the table's price
  history.prompt_pass(2);                       // consecutive prompt passes: the largest counts
  EXPECT_DOUBLE_EQ(history.decode_pass(1), 2.0);
  EXPECT_DOUBLE_EQ(history.decode_pass(8), 1.5);
  EXPECT_DOUBLE_EQ(history.decode_pass(1), 1);
  history.prompt_pass(2);  // after decode passes: its own size
  EXPECT_DOUBLE_EQ(history.decode_pass(1), 1.5);
}

TEST(AfterPromptPricing, SerialCacheDecodePassesAfterEachPrefill) {
  auto served = serve(linear_steps_after_prompt(), {{0, 3, 3}, {0, 2, 3}}, "serial-cache");
  const auto& r = served.requests;
  // prefill(3) -> 3; decode(1, 4) = 5 x ratio(3 rows, pass 1) = 1.75 -> 11.75; decode(1, 5) = 6 x 1.375 -> 20.
  expect_times(r[0], 3, 20, 0);
  // prefill(2) -> 22; decode(1, 3) = 4 x 1.5 -> 28; decode(1, 4) = 5 x 1.25 -> 34.25.
  expect_times(r[1], 22, 34.25, 0);
}

TEST(AfterPromptPricing, AStaticBatchsPrefillsCountAsOnePromptPassOfTheLargest) {
  auto served = serve(linear_steps_after_prompt(), {{0, 3, 2}, {0, 2, 2}}, "static:2");
  const auto& r = served.requests;
  // Prefills 3 -> 3 and 2 -> 5; one step over contexts 4, 3: (decode(2, 4) + decode(2, 3)) / 2 = 5.5, after
  // prompt passes of at most 3 rows: x 1.75 = 9.625 -> 14.625.
  expect_times(r[0], 3, 14.625, 0);
  expect_times(r[1], 5, 14.625, 1);
}

TEST(AfterPromptPricing, AMixedStepCountsByItsLargestPromptChunk) {
  // chunked:2,4 on two 1-token prompts: one mixed step holds both chunks. Counted by its largest chunk
  // (1 row) the decode passes after it are priced at ratio(1) = 1, as on the grid alone; counted by all
  // its rows (2) they would cost 3 times as much.
  json steps = testing::linear_steps();
  steps["after_prompt"] = {{"prompt_rows", {1, 2}}, {"ratio", {{1.0, 1.0}, {3.0, 3.0}}}};
  const std::vector<policy::Request> requests = {{0, 1, 3}, {0, 1, 3}};
  auto plain = serve(testing::linear_steps(), requests, "chunked:2,4");
  auto priced = serve(steps, requests, "chunked:2,4");
  for (size_t i = 0; i < requests.size(); ++i) {
    EXPECT_EQ(priced.requests[i].first_token_ms, plain.requests[i].first_token_ms) << i;
    EXPECT_EQ(priced.requests[i].finish_ms, plain.requests[i].finish_ms) << i;
  }
  // The same with 2-token prompts, so that the largest chunk is 2: every decode pass after it at 3x.
  const std::vector<policy::Request> longer = {{0, 2, 3}, {0, 2, 3}};
  auto plain_longer = serve(testing::linear_steps(), longer, "chunked:2,4");
  auto priced_longer = serve(steps, longer, "chunked:2,4");
  EXPECT_GT(priced_longer.requests[0].finish_ms, plain_longer.requests[0].finish_ms);
}

TEST(AfterPromptPricing, ChunkedDecodePassesAfterTheLastChunk) {
  // chunked:2,2: the 3-token prompt runs as chunks of 2 and 1 tokens; a mixed step without a chunk is a
  // decode pass. Its price follows mixed_step.h; here only the ratio's effect is checked, against the
  // same run on the grid alone.
  const std::vector<policy::Request> requests = {{0, 3, 4}};
  auto plain = serve(testing::linear_steps(), requests, "chunked:2,2");
  auto priced = serve(linear_steps_after_prompt(), requests, "chunked:2,2");
  EXPECT_DOUBLE_EQ(priced.requests[0].first_token_ms, plain.requests[0].first_token_ms);  // prompt passes: table price
  // The three decode passes after the last chunk (1 token): decode(1, 4), (1, 5), (1, 6) = 5, 6, 7 ms at
  // ratios 1.5, 1.25, 1: 2.5 + 1.5 ms more than on the grid alone.
  EXPECT_DOUBLE_EQ(priced.requests[0].finish_ms - priced.requests[0].first_token_ms,
                   plain.requests[0].finish_ms - plain.requests[0].first_token_ms + 4);
}

TEST(AfterPromptPricing, RatiosOfOneGiveTheGridsPricesToTheBit) {
  json ones = testing::measured_like_steps();
  ones["after_prompt"] = {{"prompt_rows", {8, 128}}, {"ratio", {{1, 1, 1}, {1, 1, 1}}}};
  const std::vector<policy::Request> requests = testing::random_requests(5, 60, 50);
  for (const std::string policy : {"serial-cache", "static:4", "continuous:4"})
    expect_same_times(serve(ones, requests, policy), serve(testing::measured_like_steps(), requests, policy), policy);
}

TEST(AfterPromptTable, BadPartsNameTheField) {
  expect_part_error("after_prompt", 5, "steps.after_prompt must be an object");
  expect_part_error("after_prompt", {{"prompt_rows", {2}}}, "steps.after_prompt.ratio");
  expect_part_error("after_prompt", {{"ratio", {{1.5}}}}, "steps.after_prompt.prompt_rows");
  expect_part_error("after_prompt", {{"prompt_rows", {4, 2}}, {"ratio", {{1.5}, {1.5}}}},
                    "steps.after_prompt.prompt_rows");
  expect_part_error("after_prompt", {{"prompt_rows", {2, 4}}, {"ratio", {{1.5}}}}, "steps.after_prompt.ratio");
  expect_part_error("after_prompt", {{"prompt_rows", {2, 4}}, {"ratio", {{1.5, 1.2}, {1.5}}}},
                    "steps.after_prompt.ratio[1]");
  expect_part_error("after_prompt", {{"prompt_rows", {2}}, {"ratio", {{0.1}}}}, "steps.after_prompt.ratio[0]");
  expect_part_error("after_prompt", {{"prompt_rows", {2}}, {"ratio", {json::array()}}}, "steps.after_prompt.ratio[0]");
  expect_part_error("after_prompt", {{"prompt_rows", {2}}, {"ratio", {{1.5}}}, {"speed", 1}},
                    "steps.after_prompt.speed is not a known field");
}

}  // namespace
}  // namespace kvlab::sim
