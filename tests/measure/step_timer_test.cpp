// The timer's bookkeeping (not its speed): repeats grow until a sample is long enough.
#include <gtest/gtest.h>

#include <utility>
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
  // Run-length encoded, the calls are each step's warm-up and calibration (`a`'s, then `b`'s) and then
  // the 3 rounds, `a` then `b`: each sample one untimed run and at least its calibrated repeats (more
  // when the host stalled it, see time_sample).
  std::vector<std::pair<char, size_t>> runs;
  for (char c : calls) {
    if (runs.empty() || runs.back().first != c) runs.push_back({c, 0});
    ++runs.back().second;
  }
  ASSERT_EQ(runs.size(), 8u);
  for (size_t i = 0; i < runs.size(); ++i) EXPECT_EQ(runs[i].first, i % 2 ? 'b' : 'a');
  for (size_t i = 2; i < runs.size(); ++i)
    EXPECT_GE(runs[i].second, static_cast<size_t>(1 + t[i % 2].repeats)) << "run " << i;
}

TEST(StepTimer, ASampleTheCalibrationUndercountedRunsOnUntilTheClockSeesIt) {
  // One timed run where the calibration counted 1 but the step takes no time: the sample runs on until
  // it lasts min_sample_ms, instead of reading ~0 ms (on a 0.1 ms browser clock, exactly 0).
  int calls = 0;
  const RepeatedRuns sample = time_sample([&] { ++calls; }, 1, 1.0);
  EXPECT_GE(sample.elapsed_ms, 1.0);
  EXPECT_GT(sample.runs, 1);
  EXPECT_EQ(calls, 1 + sample.runs);
}

TEST(StepTimer, ASampleLongEnoughRunsItsRepeatsOnly) {
  int calls = 0;
  const RepeatedRuns sample = time_sample([&] { ++calls; }, 3, 0.0);
  EXPECT_EQ(sample.runs, 3);
  EXPECT_EQ(calls, 4);
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
