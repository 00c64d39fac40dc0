// Prompt passes priced by the pass before them: the lookups, the history a run keeps, and runs whose
// times are worked out by hand. linear_steps(): prefill(L) = L ms, decode(r, c) = r + c ms.
#include "sim/prompt_pass.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/pass_history.h"
#include "sim/step_table.h"
#include "sim_test_support.h"

namespace kvlab::sim {
namespace {

using nlohmann::json;
using testing::expect_part_error;
using testing::expect_same_times;
using testing::expect_times;
using testing::serve;

// A prompt pass of 2 or 4 tokens right after a one-row decode pass: 0.5 or 0.75; after a two-row one: 1.
// Right after a prompt pass of 2 tokens: 2; of 4 tokens: 3.
json prompt_pass_part() {
  return {{"tokens", {2, 4}},
          {"decode_rows", {1, 2}},
          {"after_decode", {{0.5, 0.75}, {1.0, 1.0}}},
          {"after_prompt", {{2.0, 2.0}, {3.0, 3.0}}}};
}

json linear_steps_prompt_pass() {
  json steps = testing::linear_steps();
  steps["prompt_pass"] = prompt_pass_part();
  return steps;
}

TEST(PromptPassTable, InterpolatesInBothSizesAndHoldsTheEnds) {
  const PromptPassTable table = PromptPassTable::from_json(prompt_pass_part(), "prompt_pass");
  EXPECT_DOUBLE_EQ(table.after_decode(1, 2), 0.5);
  EXPECT_DOUBLE_EQ(table.after_decode(1, 3), 0.625);
  EXPECT_DOUBLE_EQ(table.after_decode(1.5, 2), 0.75);
  EXPECT_DOUBLE_EQ(table.after_decode(1.5, 3), 0.8125);
  EXPECT_DOUBLE_EQ(table.after_decode(8, 3), 1);       // more rows than measured: held
  EXPECT_DOUBLE_EQ(table.after_decode(1, 1), 0.5);     // fewer tokens: held
  EXPECT_DOUBLE_EQ(table.after_decode(1, 100), 0.75);  // more tokens: held
  EXPECT_DOUBLE_EQ(table.after_prompt(2, 3), 2);
  EXPECT_DOUBLE_EQ(table.after_prompt(3, 3), 2.5);
  EXPECT_DOUBLE_EQ(table.after_prompt(100, 1), 3);
  EXPECT_DOUBLE_EQ(PromptPassTable().after_decode(1, 2), 1);
  EXPECT_DOUBLE_EQ(PromptPassTable().after_prompt(2, 2), 1);
}

TEST(PassHistory, PricesAPromptPassByThePassRightBeforeIt) {
  const PromptPassTable table = PromptPassTable::from_json(prompt_pass_part(), "prompt_pass");
  const AfterPromptTable no_decode_part;
  PassHistory history(no_decode_part, table);
  EXPECT_DOUBLE_EQ(history.prompt_pass(3), 1);     // the first pass of a run: nothing before it
  EXPECT_DOUBLE_EQ(history.prompt_pass(2), 2.5);   // after a prompt pass of 3 tokens
  EXPECT_DOUBLE_EQ(history.decode_pass(1), 1);     // no after-prompt part: decode passes at the table's price
  EXPECT_DOUBLE_EQ(history.prompt_pass(4), 0.75);  // after a one-row decode pass
  history.decode_pass(1);
  history.decode_pass(2);
  EXPECT_DOUBLE_EQ(history.prompt_pass(2), 1);  // the pass right before counts, not the ones before it
}

TEST(PromptPassPricing, SerialCacheAPrefillAfterDecodePasses) {
  auto served = serve(linear_steps_prompt_pass(), {{0, 3, 3}, {0, 2, 3}}, "serial-cache");
  const auto& r = served.requests;
  // prefill(3), the run's first pass -> 3; decode(1, 4) = 5 -> 8; decode(1, 5) = 6 -> 14.
  expect_times(r[0], 3, 14, 0);
  // prefill(2) = 2 after a one-row decode pass, x 0.5 -> 15; decode(1, 3) = 4 -> 19; decode(1, 4) = 5 -> 24.
  expect_times(r[1], 15, 24, 0);
}

TEST(PromptPassPricing, SerialNocacheEveryPassAfterAPromptPass) {
  auto served = serve(linear_steps_prompt_pass(), {{0, 2, 3}, {0, 2, 2}}, "serial-nocache");
  const auto& r = served.requests;
  // prefill(2), the first pass -> 2; no-cache passes over 3 tokens = 3 x ratio(after 2, 3 tokens) = 2 -> 8,
  // over 4 tokens = 4 x ratio(after 3, 4 tokens) = 2.5 -> 18.
  expect_times(r[0], 2, 18, 0);
  // prefill(2) after a prompt pass of 4 tokens: x 3 -> 24; over 3 tokens after 2: x 2 -> 30.
  expect_times(r[1], 24, 30, 0);
}

TEST(PromptPassPricing, AChunkAfterADecodePassIsPricedByIt) {
  // chunked:2,4: the second request arrives while the first decodes, and its chunk joins a mixed step
  // right after a one-row decode pass: cheaper (ratio 0.5) than on the grid alone. The first request's
  // prompt is the run's first pass: the same on both.
  json steps = testing::linear_steps();
  steps["prompt_pass"] = prompt_pass_part();
  steps["prompt_pass"]["after_prompt"] = {{1.0, 1.0}, {1.0, 1.0}};
  const std::vector<policy::Request> requests = {{0, 2, 6}, {7, 2, 3}};
  auto plain = serve(testing::linear_steps(), requests, "chunked:2,4");
  auto priced = serve(steps, requests, "chunked:2,4");
  EXPECT_EQ(priced.requests[0].first_token_ms, plain.requests[0].first_token_ms);
  EXPECT_LT(priced.requests[1].first_token_ms, plain.requests[1].first_token_ms);
}

TEST(PromptPassPricing, RatiosOfOneGiveTheGridsPricesToTheBit) {
  json ones = testing::measured_like_steps();
  ones["prompt_pass"] = {{"tokens", {8, 128}},
                         {"decode_rows", {1, 8}},
                         {"after_decode", {{1, 1}, {1, 1}}},
                         {"after_prompt", {{1, 1}, {1, 1}}}};
  const std::vector<policy::Request> requests = testing::random_requests(5, 60, 50);
  for (const std::string policy : {"serial-nocache", "serial-cache", "static:4", "continuous:4", "chunked:4,16"})
    expect_same_times(serve(ones, requests, policy), serve(testing::measured_like_steps(), requests, policy), policy);
}

TEST(PromptPassTable, BadPartsNameTheField) {
  const json tokens = {2, 4}, rows = {1}, ratios = {{1.0, 1.0}}, square = {{1.0, 1.0}, {1.0, 1.0}};
  // A good part with the fields of `change` replaced (or, where null, left out).
  auto part = [&](const json& change) {
    json p = {{"tokens", tokens}, {"decode_rows", rows}, {"after_decode", ratios}, {"after_prompt", square}};
    for (const auto& [key, value] : change.items()) {
      if (value.is_null())
        p.erase(key);
      else
        p[key] = value;
    }
    return p;
  };
  expect_part_error("prompt_pass", 5, "steps.prompt_pass must be an object");
  expect_part_error("prompt_pass", part({{"after_prompt", nullptr}}), "steps.prompt_pass.after_prompt is missing");
  expect_part_error("prompt_pass", part({{"tokens", {4, 2}}}), "steps.prompt_pass.tokens");
  expect_part_error("prompt_pass", part({{"decode_rows", {1, 8}}}),
                    "steps.prompt_pass.after_decode must be a list of 2");
  expect_part_error("prompt_pass", part({{"after_decode", {{1.0}}}}), "steps.prompt_pass.after_decode[0]");
  expect_part_error("prompt_pass", part({{"after_prompt", {{1.0, 1.0}, {1.0, 0.1}}}}),
                    "steps.prompt_pass.after_prompt[1]");
  expect_part_error("prompt_pass", part({{"after_prompt", {{1.0, 1.0}}}}),
                    "steps.prompt_pass.after_prompt must be a list of 2");
  expect_part_error("prompt_pass", part({{"speed", 1}}), "steps.prompt_pass.speed is not a known field");
}

}  // namespace
}  // namespace kvlab::sim
