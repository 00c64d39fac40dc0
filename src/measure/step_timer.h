#pragma once
// Times a short step where the clock may be coarse (a browser's performance.now() ticks in 0.1 ms):
// the step is repeated until one sample lasts at least min_sample_ms, several samples are taken, and
// the per-step mean, median, min and max are reported with the repeat and sample counts used.
#include <functional>
#include <vector>

#include "common/clock.h"

namespace kvlab {

struct StepTiming {
  double mean_ms = 0;  // mean of the samples' per-step times
  double median_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  int repeats = 0;  // steps per sample, as calibrated (the fewest a sample runs)
  int samples = 0;
};

// The shortest sample a measurement takes (the least options.min_sample_ms).
constexpr double kMinSampleMs = 0.1;

struct TimingPolicy {
  double min_sample_ms = 5.0;
  int samples = 5;
};

// Runs that together last at least a target time: how many ran, and how long they took in all.
struct RepeatedRuns {
  int runs = 0;
  double elapsed_ms = 0;
};

// A grid cell's calibration lasts this many samples: it counts the steps that last 20% more than
// min_sample_ms, so that a sample of that many steps is long enough for the clock despite noise.
constexpr double kCalibrationSamples = 1.2;

// Most runs repeat_until makes: a step that the clock cannot see (it reads 0 for every run) stops here.
constexpr int kMaxRepeats = 1 << 24;

// Calls run(i) for i = 0, 1, ... until the runs together last at least target_ms (the clock is read
// after each run), or kMaxRepeats ran. The one repeat loop of timing a step and timing an answer.
template <class Run>
RepeatedRuns repeat_until(double target_ms, Run run) {
  RepeatedRuns repeated;
  const double start_ms = now_ms();
  do {
    run(repeated.runs);
    ++repeated.runs;
    repeated.elapsed_ms = now_ms() - start_ms;
  } while (repeated.elapsed_ms < target_ms && repeated.runs < kMaxRepeats);
  return repeated;
}

// One sample of `step`: one untimed run (in a round the step before was another cell's: a prefill of 128
// tokens leaves other data in the caches than a decode step), then `repeats` timed runs, the clock read
// once at their end; and when they read shorter than min_sample_ms (the host stalled the calibration,
// which then counted too few), more runs until they do not. So no sample is ever shorter than the clock
// can see: a step of 4 us on a 0.1 ms clock once read 0 ms.
RepeatedRuns time_sample(const std::function<void()>& step, int repeats, double min_sample_ms);

// Per-step time of `step`, which must be repeatable (leave its state as it found it).
StepTiming time_step(const std::function<void()>& step, const TimingPolicy& policy);

// Per-step times of a grid of repeatable steps, timed together: each step is warmed up and given its
// repeat count alone, then the samples are taken in rounds, every step once a round, so that each
// step's samples spread over the same seconds of the machine's drift instead of one moment each.
// Each sample follows one untimed run of its own step, so no cell pays for the one before it.
// `on_round(fraction)` is called before each round (calibration counts as one).
std::vector<StepTiming> time_steps_interleaved(const std::vector<std::function<void()>>& steps,
                                               const TimingPolicy& policy,
                                               const std::function<void(double fraction)>& on_round = nullptr);

// Mean, median, min and max of a list of timings (each one run, so repeats = 1).
StepTiming summarise(std::vector<double> times_ms);

}  // namespace kvlab
