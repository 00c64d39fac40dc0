#include "measure/step_timer.h"

#include <algorithm>
#include <numeric>
#include <vector>

namespace kvlab {

namespace {

// Warms `step` up (caches, page faults, lazy scratch growth), then counts the steps of a calibration
// (kCalibrationSamples).
int calibrate_repeats(const std::function<void()>& step, const TimingPolicy& policy, const Clock& clock) {
  step();
  return repeat_until(
             kCalibrationSamples * policy.min_sample_ms, [&](int) { step(); }, clock)
      .runs;
}

// policy.samples rounds over `cells`, one sample of each a round: each cell's per-step times.
std::vector<std::vector<double>> sample_rounds(const std::vector<std::function<void()>>& steps,
                                               const std::vector<size_t>& cells, const std::vector<int>& repeats,
                                               const TimingPolicy& policy, const Clock& clock,
                                               const std::function<void(int round)>& on_round) {
  std::vector<std::vector<double>> per_cell_ms(cells.size());
  for (int round = 0; round < policy.samples; ++round) {
    if (on_round) on_round(round);
    for (size_t i = 0; i < cells.size(); ++i) {
      const RepeatedRuns sample = time_sample(steps[cells[i]], repeats[i], policy.min_sample_ms, clock);
      per_cell_ms[i].push_back(sample.elapsed_ms / sample.runs);
    }
  }
  return per_cell_ms;
}

// The fastest and the slowest fifth of the samples each side (none of fewer than 5) are left out of the
// trimmed mean: a 20% trimmed mean (docs/benchmarks.md says why).
size_t trimmed_each_side(size_t samples) { return samples / 5; }

}  // namespace

double spread_of(double min_ms, double median_ms, double max_ms) {
  return median_ms > 0 ? (max_ms - min_ms) / median_ms : 0.0;
}

RepeatedRuns time_sample(const std::function<void()>& step, int repeats, double min_sample_ms, const Clock& clock) {
  step();
  const double start_ms = clock();
  for (int i = 0; i < repeats; ++i) step();
  RepeatedRuns sample{repeats, clock() - start_ms};
  while (sample.elapsed_ms < min_sample_ms && sample.runs < kMaxRepeats) {
    step();
    ++sample.runs;
    sample.elapsed_ms = clock() - start_ms;
  }
  return sample;
}

StepTiming summarise(std::vector<double> times_ms) {
  std::sort(times_ms.begin(), times_ms.end());
  const size_t n = times_ms.size();
  const size_t trimmed = trimmed_each_side(n);
  StepTiming t;
  t.mean_ms = std::accumulate(times_ms.begin(), times_ms.end(), 0.0) / static_cast<double>(n);
  t.trimmed_mean_ms =
      std::accumulate(times_ms.begin() + trimmed, times_ms.end() - trimmed, 0.0) / static_cast<double>(n - 2 * trimmed);
  t.median_ms = n % 2 ? times_ms[n / 2] : 0.5 * (times_ms[n / 2 - 1] + times_ms[n / 2]);
  t.min_ms = times_ms.front();
  t.max_ms = times_ms.back();
  t.spread = spread_of(t.min_ms, t.median_ms, t.max_ms);
  t.repeats = 1;
  t.samples = static_cast<int>(n);
  return t;
}

StepTiming time_step(const std::function<void()>& step, const TimingPolicy& policy, const Clock& clock) {
  return time_steps_interleaved({step}, policy, nullptr, clock)[0];
}

std::vector<size_t> wide_cells(const std::vector<StepTiming>& timings) {
  std::vector<size_t> cells;
  for (size_t i = 0; i < timings.size(); ++i)
    if (timings[i].noisy()) cells.push_back(i);
  return cells;
}

void retime_cells(const std::vector<std::function<void()>>& steps, const std::vector<size_t>& cells,
                  const TimingPolicy& policy, std::vector<StepTiming>& timings, const Clock& clock) {
  std::vector<int> repeats;
  for (size_t cell : cells) repeats.push_back(timings[cell].repeats);
  std::vector<std::vector<double>> per_cell_ms = sample_rounds(steps, cells, repeats, policy, clock, nullptr);
  for (size_t i = 0; i < cells.size(); ++i) {
    StepTiming& timing = timings[cells[i]];
    const bool retimed = timing.retimed;
    timing = summarise(std::move(per_cell_ms[i]));
    timing.repeats = repeats[i];
    timing.retimed = retimed;
  }
}

std::vector<StepTiming> time_steps_interleaved(const std::vector<std::function<void()>>& steps,
                                               const TimingPolicy& policy, const std::function<void(double)>& on_round,
                                               const Clock& clock) {
  const double rounds = policy.samples + 1.0;
  if (on_round) on_round(0);
  std::vector<int> repeats;
  repeats.reserve(steps.size());
  for (const auto& step : steps) repeats.push_back(calibrate_repeats(step, policy, clock));

  std::vector<size_t> every_cell(steps.size());
  std::iota(every_cell.begin(), every_cell.end(), size_t{0});
  std::vector<std::vector<double>> per_step_ms =
      sample_rounds(steps, every_cell, repeats, policy, clock, [&](int round) {
        if (on_round) on_round((round + 1) / rounds);
      });
  std::vector<StepTiming> timings;
  timings.reserve(steps.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    timings.push_back(summarise(std::move(per_step_ms[i])));
    timings.back().repeats = repeats[i];
  }
  const std::vector<size_t> wide = wide_cells(timings);
  for (size_t cell : wide) timings[cell].retimed = true;
  if (!wide.empty()) retime_cells(steps, wide, policy, timings, clock);
  return timings;
}

}  // namespace kvlab
