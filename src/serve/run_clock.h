#pragma once
// The engine's clock: milliseconds since the run started, on the monotonic clock that measure() times
// its steps with (common/clock.h), so that the real run and the step table share one time base.
namespace kvlab::serve {

class RunClock {
 public:
  // Starts the clock at 0.
  RunClock();

  double now_ms() const;

  // Returns once now_ms() >= ms. Natively it sleeps through most of a long wait and spins the last
  // millisecond (a sleep may overshoot by the scheduler's tick); in wasm it spins, since a page's worker
  // cannot block without Asyncify, and a spin on performance.now() is exact to its resolution.
  void wait_until(double ms) const;

 private:
  double start_ms_;
};

}  // namespace kvlab::serve
