// The timer's bookkeeping (not its speed): repeats grow until a sample is long enough.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "measure/step_timer.h"

namespace kvlab {
namespace {

TEST(StepTimer, RepeatsUntilASampleIsLongEnough) {
  int calls = 0;
  StepTiming t = time_step(
      [&] {
        ++calls;
        double start = now_ms();
        while (now_ms() - start < 0.05) {
        }
      },
      {2.0, 3});
  EXPECT_EQ(t.samples, 3);
  // A 0.05 ms step is repeated to fill 2 ms (how many times depends on the machine's load meanwhile).
  EXPECT_GT(t.repeats, 1);
  EXPECT_GE(calls, 1 + 3 * t.repeats);
  EXPECT_LE(t.min_ms, t.median_ms);
  EXPECT_LE(t.median_ms, t.max_ms);
}

TEST(StepTimer, InterleavedTakesOneSampleOfEveryStepARound) {
  // Two steps that take different times, so that each gets its own repeat count.
  std::vector<char> calls;
  auto spin = [&](char name, double ms) {
    return [&calls, name, ms] {
      calls.push_back(name);
      double start = now_ms();
      while (now_ms() - start < ms) {
      }
    };
  };
  std::vector<double> rounds;
  std::vector<StepTiming> t =
      time_steps_interleaved({spin('a', 0.05), spin('b', 0.2)}, {1.0, 3}, [&](double f) { rounds.push_back(f); });
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(rounds, (std::vector<double>{0, 0.25, 0.5, 0.75}));
  for (const StepTiming& s : t) {
    EXPECT_EQ(s.samples, 3);
    EXPECT_LE(s.min_ms, s.mean_ms);
    EXPECT_LE(s.mean_ms, s.max_ms);
  }
  // The last 3 rounds: `a` once untimed and then repeated, then `b` the same, three times over.
  const size_t timed = 3 * static_cast<size_t>(1 + t[0].repeats + 1 + t[1].repeats);
  ASSERT_GE(calls.size(), timed);
  std::vector<char> expected;
  for (int round = 0; round < 3; ++round) {
    expected.insert(expected.end(), static_cast<size_t>(1 + t[0].repeats), 'a');
    expected.insert(expected.end(), static_cast<size_t>(1 + t[1].repeats), 'b');
  }
  EXPECT_EQ(std::vector<char>(calls.end() - static_cast<std::ptrdiff_t>(timed), calls.end()), expected);
  // Before them, each step was warmed up and calibrated alone: all of `a`'s calls, then all of `b`'s.
  const std::vector<char> calibration(calls.begin(), calls.end() - static_cast<std::ptrdiff_t>(timed));
  EXPECT_TRUE(std::is_sorted(calibration.begin(), calibration.end()));
  EXPECT_EQ(calibration.front(), 'a');
  EXPECT_EQ(calibration.back(), 'b');
}

TEST(StepTimer, SummariseTakesTheMeanAndTheMedian) {
  StepTiming t = summarise({5.0, 1.0, 3.0, 2.0});
  EXPECT_DOUBLE_EQ(t.mean_ms, 2.75);
  EXPECT_DOUBLE_EQ(t.median_ms, 2.5);
  EXPECT_DOUBLE_EQ(t.min_ms, 1.0);
  EXPECT_DOUBLE_EQ(t.max_ms, 5.0);
  EXPECT_EQ(t.samples, 4);
}

}  // namespace
}  // namespace kvlab
