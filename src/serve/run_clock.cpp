#include "serve/run_clock.h"

#ifndef __EMSCRIPTEN__
#include <chrono>
#include <thread>
#endif

#include "common/clock.h"

namespace kvlab::serve {

RunClock::RunClock() : start_ms_(kvlab::now_ms()) {}

double RunClock::now_ms() const { return kvlab::now_ms() - start_ms_; }

void RunClock::wait_until(double ms) const {
#ifndef __EMSCRIPTEN__
  constexpr double kSpinMs = 1.0;  // spin this close to the deadline rather than trust a sleep's wake-up
  double remaining_ms = ms - now_ms();
  if (remaining_ms > kSpinMs)
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(remaining_ms - kSpinMs));
#endif
  while (now_ms() < ms) {
  }
}

}  // namespace kvlab::serve
