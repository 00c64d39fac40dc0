// The timer's bookkeeping (not its speed): repeats grow until a sample is long enough.
#include <gtest/gtest.h>

#include "bench/step_timer.h"

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
  EXPECT_GE(t.repeats * 0.05, 2.0 * 0.99);  // a sample covers at least min_sample_ms
  EXPECT_GE(calls, 1 + 3 * t.repeats);
  EXPECT_LE(t.min_ms, t.median_ms);
  EXPECT_LE(t.median_ms, t.max_ms);
}

TEST(StepTimer, SummariseTakesTheMedian) {
  StepTiming t = summarise({5.0, 1.0, 3.0, 2.0});
  EXPECT_DOUBLE_EQ(t.median_ms, 2.5);
  EXPECT_DOUBLE_EQ(t.min_ms, 1.0);
  EXPECT_DOUBLE_EQ(t.max_ms, 5.0);
  EXPECT_EQ(t.samples, 4);
}

}  // namespace
}  // namespace kvlab
