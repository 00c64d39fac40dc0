#pragma once
// Times a short step where the clock may be coarse (a browser's performance.now() ticks in 0.1 ms):
// the step is repeated until one sample lasts at least min_sample_ms, several samples are taken, and
// the per-step mean, trimmed mean, median, min and max are reported with the samples' spread and the
// repeat and sample counts used. A cell whose samples spread wider than kNoisySpread is timed again;
// what stays wide is noisy (docs/benchmarks.md, "Figures that repeat").
#include <cstddef>
#include <functional>
#include <vector>

#include "common/clock.h"

namespace kvlab {

// A figure is noisy when its samples' spread, (max - min) / median, is wider than this: 25%. On a quiet
// machine a step's samples spread 5-20% (a one-row decode step's 5th-95th percentile was 1.40-1.94 ms
// around 1.62, docs/replay.md); one sample stretched by another process's time slice, or a device
// whose speed changes under the run, spreads them wider. The reasoning and the figures behind it are in
// docs/benchmarks.md. Exported as catalog().limits.timing.noisy_spread for the page.
constexpr double kNoisySpread = 0.25;

// The samples' spread: (max - min) / median, >= 0; 0 for samples whose median is 0.
double spread_of(double min_ms, double median_ms, double max_ms);

// Whether a spread is wider than kNoisySpread.
inline bool is_noisy(double spread) { return spread > kNoisySpread; }

struct StepTiming {
  double mean_ms = 0;          // mean of the samples' per-step times
  double trimmed_mean_ms = 0;  // mean of the samples without the fastest and slowest fifth: a cell's figure
  double median_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  double spread = 0;  // spread_of(min, median, max)
  int repeats = 0;    // steps per sample, as calibrated (the fewest a sample runs)
  int samples = 0;
  bool retimed = false;  // its first samples spread wider than kNoisySpread: these are a second set
  bool noisy() const { return is_noisy(spread); }
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
RepeatedRuns repeat_until(double target_ms, Run run, const Clock& clock = now_ms) {
  RepeatedRuns repeated;
  const double start_ms = clock();
  do {
    run(repeated.runs);
    ++repeated.runs;
    repeated.elapsed_ms = clock() - start_ms;
  } while (repeated.elapsed_ms < target_ms && repeated.runs < kMaxRepeats);
  return repeated;
}

// One sample of `step`: one untimed run (in a round the step before was another cell's: a prefill of 128
// tokens leaves other data in the caches than a decode step), then `repeats` timed runs, the clock read
// once at their end; and when they read shorter than min_sample_ms (the host stalled the calibration,
// which then counted too few), more runs until they do not. So no sample is ever shorter than the clock
// can see: a step of 4 us on a 0.1 ms clock once read 0 ms.
RepeatedRuns time_sample(const std::function<void()>& step, int repeats, double min_sample_ms,
                         const Clock& clock = now_ms);

// Per-step time of `step`, which must be repeatable (leave its state as it found it).
StepTiming time_step(const std::function<void()>& step, const TimingPolicy& policy, const Clock& clock = now_ms);

// Per-step times of a grid of repeatable steps, timed together: each step is warmed up and given its
// repeat count alone, then the samples are taken in rounds, every step once a round, so that each
// step's samples spread over the same seconds of the machine's drift instead of one moment each.
// Each sample follows one untimed run of its own step, so no cell pays for the one before it.
// Then every cell whose samples spread wider than kNoisySpread is timed again (retime_cells) and marked
// `retimed`. `on_round(fraction)` is called before each round of the first samples (calibration counts
// as one).
std::vector<StepTiming> time_steps_interleaved(const std::vector<std::function<void()>>& steps,
                                               const TimingPolicy& policy,
                                               const std::function<void(double fraction)>& on_round = nullptr,
                                               const Clock& clock = now_ms);

// The cells of `timings` whose spread is wider than kNoisySpread, in order.
std::vector<size_t> wide_cells(const std::vector<StepTiming>& timings);

// Times `cells` of a grid again: policy.samples fresh samples of each, in rounds among those cells only
// (interleaved, each at its calibrated repeats), which replace the cell's first samples in `timings`:
// the first ones were taken while something disturbed them, and a figure and its spread come from one
// set. A cell keeps its `retimed` mark.
void retime_cells(const std::vector<std::function<void()>>& steps, const std::vector<size_t>& cells,
                  const TimingPolicy& policy, std::vector<StepTiming>& timings, const Clock& clock = now_ms);

// Mean, trimmed mean, median, min, max and spread of a list of timings (each one run, so repeats = 1).
StepTiming summarise(std::vector<double> times_ms);

}  // namespace kvlab
