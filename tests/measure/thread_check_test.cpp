// The check of a run's threads: the choice from given timings (no clock here), and what a measurement on
// threads says about it. Which count a real check picks depends on the machine's load, so the
// measurement's test asserts only that the result agrees with itself.
#include <gtest/gtest.h>

#include "measure/measure.h"
#include "measure/measure_options.h"
#include "measure/thread_check.h"

namespace kvlab {
namespace {

using nlohmann::json;

// A short measurement: only what it says about threads matters here.
json short_measure_options() {
  return {{"preset", "tiny"},       {"runs", 1},
          {"answer_tokens", 4},     {"decode_rows", {1}},
          {"decode_contexts", {4}}, {"prefill_tokens", {1}},
          {"min_sample_ms", 0.2},   {"samples", 1}};
}

TEST(ThreadCheck, TimesAOneRowAndASixteenRowStep) { EXPECT_EQ(thread_check_rows(), (std::vector<int>{1, 16})); }

TEST(ThreadCheck, KeepsThreadsFasterOnEveryStep) {
  const ThreadChoice choice = choose_threads(2, {{3.7, 15.0}, {1.5, 8.1}});
  EXPECT_EQ(choice.asked, 2);
  EXPECT_EQ(choice.used, 2);
  // The step where they gain least (16 rows: 0.54x) is the one named.
  EXPECT_EQ(choice.reason,
            "2 threads were faster than one: 0.54x its time at most (8.100 against 15.000 ms for a 16-row step).");
}

TEST(ThreadCheck, FallsBackToOneWhenAnyStepIsSlower) {
  // A busy core: the one-row step 3.2x slower on 2 threads, the 16-row one 1.5x.
  const ThreadChoice busy = choose_threads(2, {{3.7, 15.0}, {12.1, 22.7}});
  EXPECT_EQ(busy.used, 1);
  EXPECT_EQ(busy.reason,
            "2 threads took 3.27x one thread's time (12.100 against 3.700 ms for a one-row step), so this run used "
            "one: other work was presumably running on this device's cores.");
  // Faster on 16 rows, slower on one: still one thread.
  EXPECT_EQ(choose_threads(4, {{3.7, 15.0}, {3.8, 9.0}}).used, 1);
  // As fast as one is not faster.
  EXPECT_EQ(choose_threads(2, {{3.0, 12.0}, {3.0, 6.0}}).used, 1);
}

TEST(ThreadCheck, SaysTheChoiceAsJson) {
  const json j = choose_threads(2, {{3.7, 15.0}, {12.1, 22.7}}).to_json();
  EXPECT_EQ(j["asked"], 2);
  EXPECT_EQ(j["used"], 1);
  EXPECT_EQ(j["rows"], json::array({1, 16}));
  EXPECT_EQ(j["one_thread_ms"], json::array({3.7, 15.0}));
  EXPECT_EQ(j["asked_threads_ms"], json::array({12.1, 22.7}));
  EXPECT_TRUE(j["reason"].is_string());
}

TEST(ThreadCheck, MeasurementOnThreadsSaysWhatItChoseAndRunsOnIt) {
  json options = short_measure_options();
  options["threads"] = 2;
  const json model = measure(read_measure_options(options)).to_json()["steps"]["model"];
  ASSERT_TRUE(model.contains("thread_check"));
  const json& check = model["thread_check"];
  EXPECT_EQ(check["asked"], 2);
  const int used = check["used"].get<int>();
  ASSERT_TRUE(used == 1 || used == 2) << used;
  // steps.model.threads is the count the measurement ran on, said when not 1.
  if (used == 1)
    EXPECT_FALSE(model.contains("threads"));
  else
    EXPECT_EQ(model["threads"], 2);
  EXPECT_EQ(check["one_thread_ms"].size(), 2u);
  EXPECT_EQ(check["asked_threads_ms"].size(), 2u);
}

TEST(ThreadCheck, NoCheckOnOneThreadOrWhenTurnedOff) {
  json options = short_measure_options();
  EXPECT_FALSE(measure(read_measure_options(options)).to_json()["steps"]["model"].contains("thread_check"));
  options["threads"] = 2;
  options["thread_check"] = false;
  const json model = measure(read_measure_options(options)).to_json()["steps"]["model"];
  EXPECT_FALSE(model.contains("thread_check"));
  EXPECT_EQ(model["threads"], 2);
}

}  // namespace
}  // namespace kvlab
