#include "bench/step_timer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

namespace kvlab {

double now_ms() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double, std::milli>(clock::now().time_since_epoch()).count();
}

StepTiming summarise(std::vector<double> times_ms) {
  std::sort(times_ms.begin(), times_ms.end());
  const size_t n = times_ms.size();
  StepTiming t;
  t.median_ms = n % 2 ? times_ms[n / 2] : 0.5 * (times_ms[n / 2 - 1] + times_ms[n / 2]);
  t.min_ms = times_ms.front();
  t.max_ms = times_ms.back();
  t.repeats = 1;
  t.samples = static_cast<int>(n);
  return t;
}

StepTiming time_step(const std::function<void()>& step, const TimingPolicy& policy) {
  step();  // warm-up: caches, page faults, lazy scratch growth

  // Grow the repeat count until one sample is long enough for the clock.
  int repeats = 1;
  for (;;) {
    double start = now_ms();
    for (int i = 0; i < repeats; ++i) step();
    double elapsed = now_ms() - start;
    if (elapsed >= policy.min_sample_ms || repeats >= (1 << 24)) break;
    // Aim 20% past the target; at most 10x per round, since a zero reading says little.
    double scale = elapsed > 0 ? 1.2 * policy.min_sample_ms / elapsed : 10.0;
    repeats = static_cast<int>(std::ceil(repeats * std::min(10.0, std::max(2.0, scale))));
  }

  std::vector<double> per_step_ms;
  for (int s = 0; s < policy.samples; ++s) {
    double start = now_ms();
    for (int i = 0; i < repeats; ++i) step();
    per_step_ms.push_back((now_ms() - start) / repeats);
  }
  StepTiming t = summarise(per_step_ms);
  t.repeats = repeats;
  return t;
}

}  // namespace kvlab
