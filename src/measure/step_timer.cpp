#include "measure/step_timer.h"

#include <algorithm>
#include <numeric>
#include <vector>

namespace kvlab {

namespace {

// Warms `step` up (caches, page faults, lazy scratch growth), then counts the steps of a calibration
// (kCalibrationSamples).
int calibrate_repeats(const std::function<void()>& step, const TimingPolicy& policy) {
  step();
  return repeat_until(kCalibrationSamples * policy.min_sample_ms, [&](int) { step(); }).runs;
}

}  // namespace

RepeatedRuns time_sample(const std::function<void()>& step, int repeats, double min_sample_ms) {
  step();
  const double start_ms = now_ms();
  for (int i = 0; i < repeats; ++i) step();
  RepeatedRuns sample{repeats, now_ms() - start_ms};
  while (sample.elapsed_ms < min_sample_ms && sample.runs < kMaxRepeats) {
    step();
    ++sample.runs;
    sample.elapsed_ms = now_ms() - start_ms;
  }
  return sample;
}

StepTiming summarise(std::vector<double> times_ms) {
  std::sort(times_ms.begin(), times_ms.end());
  const size_t n = times_ms.size();
  StepTiming t;
  t.mean_ms = std::accumulate(times_ms.begin(), times_ms.end(), 0.0) / static_cast<double>(n);
  t.median_ms = n % 2 ? times_ms[n / 2] : 0.5 * (times_ms[n / 2 - 1] + times_ms[n / 2]);
  t.min_ms = times_ms.front();
  t.max_ms = times_ms.back();
  t.repeats = 1;
  t.samples = static_cast<int>(n);
  return t;
}

StepTiming time_step(const std::function<void()>& step, const TimingPolicy& policy) {
  return time_steps_interleaved({step}, policy)[0];
}

std::vector<StepTiming> time_steps_interleaved(const std::vector<std::function<void()>>& steps,
                                               const TimingPolicy& policy,
                                               const std::function<void(double)>& on_round) {
  const double rounds = policy.samples + 1.0;
  if (on_round) on_round(0);
  std::vector<int> repeats;
  repeats.reserve(steps.size());
  for (const auto& step : steps) repeats.push_back(calibrate_repeats(step, policy));

  std::vector<std::vector<double>> per_step_ms(steps.size());
  for (int s = 0; s < policy.samples; ++s) {
    if (on_round) on_round((s + 1) / rounds);
    for (size_t i = 0; i < steps.size(); ++i) {
      const RepeatedRuns sample = time_sample(steps[i], repeats[i], policy.min_sample_ms);
      per_step_ms[i].push_back(sample.elapsed_ms / sample.runs);
    }
  }
  std::vector<StepTiming> timings;
  timings.reserve(steps.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    timings.push_back(summarise(std::move(per_step_ms[i])));
    timings.back().repeats = repeats[i];
  }
  return timings;
}

}  // namespace kvlab
