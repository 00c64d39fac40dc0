// The timer's bookkeeping and its noise rule, on a fake clock that the timed steps advance: repeats grow
// until a sample is long enough, samples are taken in rounds, a wide cell is timed again, a cell still
// wide is noisy. No test here reads the machine's clock.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "measure/step_timer.h"

namespace kvlab {
namespace {

// Time as the timer sees it: only the fake steps move it.
struct FakeTime {
  double now_ms = 0;
  Clock clock() {
    return [this] { return now_ms; };
  }
};

TEST(StepTimer, RepeatsUntilASampleIsLongEnough) {
  FakeTime time;
  int calls = 0;
  const StepTiming t = time_step(
      [&] {
        ++calls;
        time.now_ms += 0.25;
      },
      {2.0, 3}, time.clock());
  // Calibration: runs until 1.2 x 2 ms = 2.4 ms have passed: 10 of 0.25 ms.
  EXPECT_EQ(t.repeats, 10);
  EXPECT_EQ(t.samples, 3);
  // A warm-up and the calibration's 10, then 3 samples of one untimed run and 10 timed ones.
  EXPECT_EQ(calls, 1 + 10 + 3 * 11);
  EXPECT_DOUBLE_EQ(t.median_ms, 0.25);
  EXPECT_DOUBLE_EQ(t.trimmed_mean_ms, 0.25);
  EXPECT_DOUBLE_EQ(t.spread, 0.0);
  EXPECT_FALSE(t.retimed);
  EXPECT_FALSE(t.noisy());
}

TEST(StepTimer, InterleavedTakesOneSampleOfEveryStepARound) {
  FakeTime time;
  std::vector<char> calls;
  auto step = [&](char name, double ms) {
    return [&calls, &time, name, ms] {
      calls.push_back(name);
      time.now_ms += ms;
    };
  };
  std::vector<double> rounds;
  const std::vector<StepTiming> t = time_steps_interleaved(
      {step('a', 0.125), step('b', 0.5)}, {1.0, 3}, [&](double f) { rounds.push_back(f); }, time.clock());
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(rounds, (std::vector<double>{0, 0.25, 0.5, 0.75}));
  EXPECT_EQ(t[0].repeats, 10);  // 1.2 ms of 0.125 ms steps
  EXPECT_EQ(t[1].repeats, 3);   // 1.2 ms of 0.5 ms steps: 1.5 ms
  // Run-length encoded, the calls are each step's warm-up and calibration (`a`'s, then `b`'s), then the
  // 3 rounds, `a` then `b`: each sample one untimed run and its calibrated repeats.
  std::vector<std::pair<char, size_t>> runs;
  for (char c : calls) {
    if (runs.empty() || runs.back().first != c) runs.push_back({c, 0});
    ++runs.back().second;
  }
  const std::vector<std::pair<char, size_t>> expected = {{'a', 11}, {'b', 4}, {'a', 11}, {'b', 4},
                                                         {'a', 11}, {'b', 4}, {'a', 11}, {'b', 4}};
  EXPECT_EQ(runs, expected);
}

TEST(StepTimer, ASampleTheCalibrationUndercountedRunsOnUntilTheClockSeesIt) {
  // One timed run where the calibration counted 1 but the step is shorter: the sample runs on until it
  // lasts min_sample_ms, instead of reading ~0 ms (on a 0.1 ms browser clock, exactly 0).
  FakeTime time;
  int calls = 0;
  const RepeatedRuns sample = time_sample(
      [&] {
        ++calls;
        time.now_ms += 0.25;
      },
      1, 1.0, time.clock());
  EXPECT_EQ(sample.runs, 4);
  EXPECT_DOUBLE_EQ(sample.elapsed_ms, 1.0);
  EXPECT_EQ(calls, 1 + sample.runs);
}

TEST(StepTimer, ASampleLongEnoughRunsItsRepeatsOnly) {
  int calls = 0;
  const RepeatedRuns sample = time_sample([&] { ++calls; }, 3, 0.0);
  EXPECT_EQ(sample.runs, 3);
  EXPECT_EQ(calls, 4);
}

TEST(StepTimer, SummariseTakesTheMeansTheMedianAndTheSpread) {
  const StepTiming t = summarise({4.0, 2.0, 3.0, 10.0, 3.0});
  EXPECT_DOUBLE_EQ(t.mean_ms, 4.4);
  // Five samples: the fastest (2) and the slowest (10) are left out of the trimmed mean.
  EXPECT_DOUBLE_EQ(t.trimmed_mean_ms, 10.0 / 3.0);
  EXPECT_DOUBLE_EQ(t.median_ms, 3.0);
  EXPECT_DOUBLE_EQ(t.min_ms, 2.0);
  EXPECT_DOUBLE_EQ(t.max_ms, 10.0);
  EXPECT_DOUBLE_EQ(t.spread, (10.0 - 2.0) / 3.0);
  EXPECT_TRUE(t.noisy());
  EXPECT_EQ(t.samples, 5);

  // Fewer than five samples: nothing is trimmed.
  const StepTiming four = summarise({5.0, 1.0, 3.0, 2.0});
  EXPECT_DOUBLE_EQ(four.mean_ms, 2.75);
  EXPECT_DOUBLE_EQ(four.trimmed_mean_ms, 2.75);
  EXPECT_DOUBLE_EQ(four.median_ms, 2.5);
  EXPECT_DOUBLE_EQ(four.spread, 4.0 / 2.5);

  // Ten samples: two each side.
  EXPECT_DOUBLE_EQ(summarise({1, 2, 3, 4, 5, 6, 7, 8, 9, 100}).trimmed_mean_ms, 5.5);
}

TEST(StepTimer, TheSpreadIsRangeOverMedianAndNoisyPastTheThreshold) {
  EXPECT_DOUBLE_EQ(spread_of(2.0, 4.0, 3.0 + 2.0), 0.75);
  EXPECT_DOUBLE_EQ(spread_of(0.0, 0.0, 0.0), 0.0);
  EXPECT_FALSE(is_noisy(kNoisySpread));
  EXPECT_TRUE(is_noisy(kNoisySpread + 1e-9));
  EXPECT_FALSE(summarise({4.0, 4.5, 5.0}).noisy());  // (5 - 4) / 4.5 = 22%
  EXPECT_TRUE(summarise({4.0, 4.5, 5.5}).noisy());   // 33%
}

TEST(StepTimer, WideCellsAreTheNoisyOnesInOrder) {
  std::vector<StepTiming> timings(4);
  timings[1].spread = kNoisySpread * 2;
  timings[3].spread = kNoisySpread * 1.01;
  timings[2].spread = kNoisySpread;
  EXPECT_EQ(wide_cells(timings), (std::vector<size_t>{1, 3}));
}

// Two cells, `a` of 0.5 ms and `b` of 1 ms; a burst makes `a`'s sample of the second round 1.5 ms.
TEST(StepTimer, ACellWhoseSamplesSpreadWideIsTimedAgainAmongTheWideOnly) {
  FakeTime time;
  int round = -1;  // 0: calibration; then the first samples' rounds 1 .. 5; the re-timing reports none
  int a_calls = 0, b_calls = 0;
  auto a = [&] {
    ++a_calls;
    time.now_ms += round == 2 ? 1.5 : 0.5;
  };
  auto b = [&] {
    ++b_calls;
    time.now_ms += 1.0;
  };
  const std::vector<StepTiming> t = time_steps_interleaved(
      {a, b}, {4.0, 5}, [&](double) { ++round; }, time.clock());
  ASSERT_EQ(round, 5);
  // `a`'s first samples spread (1.5 - 0.5) / 0.5 = 200%: timed again, 5 fresh samples, which replace them.
  EXPECT_TRUE(t[0].retimed);
  EXPECT_FALSE(t[0].noisy());
  EXPECT_DOUBLE_EQ(t[0].spread, 0.0);
  EXPECT_DOUBLE_EQ(t[0].trimmed_mean_ms, 0.5);
  EXPECT_EQ(t[0].samples, 5);
  EXPECT_FALSE(t[1].retimed);
  EXPECT_DOUBLE_EQ(t[1].trimmed_mean_ms, 1.0);
  // `a` (10 repeats: 4.8 ms of 0.5 ms): warm-up, calibration, 10 samples of 11 runs; `b` (5 repeats)
  // only its first 5 samples of 6 runs.
  EXPECT_EQ(t[0].repeats, 10);
  EXPECT_EQ(a_calls, 1 + 10 + 10 * 11);
  EXPECT_EQ(t[1].repeats, 5);
  EXPECT_EQ(b_calls, 1 + 5 + 5 * 6);
}

TEST(StepTimer, ACellStillWideAfterTimingItAgainIsNoisy) {
  // A step whose samples alternate between 0.5 and 1 ms a sample (a device whose speed keeps changing):
  // its first samples 0.5, 1, 0.5, 1, 0.5 (spread 100%), again 1, 0.5, 1, 0.5, 1 (50%).
  FakeTime time;
  int calls = 0;
  const int warm_up_and_calibration = 1 + 10, runs_per_sample = 11;
  auto step = [&] {
    const int sample = (calls - warm_up_and_calibration) / runs_per_sample;
    time.now_ms += calls >= warm_up_and_calibration && sample % 2 ? 1.0 : 0.5;
    ++calls;
  };
  const std::vector<StepTiming> t = time_steps_interleaved({step}, {4.0, 5}, nullptr, time.clock());
  EXPECT_TRUE(t[0].retimed);
  EXPECT_TRUE(t[0].noisy());
  EXPECT_DOUBLE_EQ(t[0].median_ms, 1.0);
  EXPECT_DOUBLE_EQ(t[0].spread, 0.5);
  EXPECT_DOUBLE_EQ(t[0].trimmed_mean_ms, (0.5 + 1.0 + 1.0) / 3);
  EXPECT_EQ(calls, warm_up_and_calibration + 10 * runs_per_sample);
}

TEST(StepTimer, RetimingNamedCellsReplacesTheirSamplesAndKeepsTheRest) {
  FakeTime time;
  double a_ms = 0.5;
  auto a = [&] { time.now_ms += a_ms; };
  auto b = [&] { time.now_ms += 1.0; };
  const std::vector<std::function<void()>> steps = {a, b};
  std::vector<StepTiming> t = time_steps_interleaved(steps, {4.0, 3}, nullptr, time.clock());
  const StepTiming b_before = t[1];
  a_ms = 0.75;
  retime_cells(steps, {0}, {4.0, 3}, t, time.clock());
  EXPECT_DOUBLE_EQ(t[0].trimmed_mean_ms, 0.75);
  EXPECT_EQ(t[0].repeats, 10);  // the calibrated count, kept
  EXPECT_FALSE(t[0].retimed);   // a re-timing asked for by name is not the noise rule's
  EXPECT_DOUBLE_EQ(t[1].trimmed_mean_ms, b_before.trimmed_mean_ms);
}

}  // namespace
}  // namespace kvlab
