#pragma once
// The one monotonic clock that every timing reads: measure()'s step timer and the serving engine's run
// clock, so that a measured step table and a real run share one time base. In wasm, steady_clock is
// performance.now().
#include <chrono>
#include <functional>

namespace kvlab {

// Milliseconds on a monotonic clock.
inline double now_ms() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double, std::milli>(clock::now().time_since_epoch()).count();
}

// A clock a timer reads, in ms: now_ms, or in a test a fake one that the timed steps advance, so that
// the timer's logic is checked on injected times, never on the machine's speed.
using Clock = std::function<double()>;

}  // namespace kvlab
