#pragma once
// Whether the threads a run asks for pay on this device now. Another program busy on the cores can make
// N threads slower than one: a measurement on more than one thread first times a one-row and a 16-row
// decode step on those threads and on one, interleaved, and runs on one if the threads are not faster
// on both, saying so in steps.model.thread_check (docs/threads.md, "When threads do not pay").
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "measure/step_timer.h"
#include "model/model.h"

namespace kvlab {

// The decode steps the check times, at kThreadCheckContext (or the model's max_seq if less).
const std::vector<int>& thread_check_rows();  // {1, 16}
constexpr int kThreadCheckContext = 64;
// Samples of each step on each count, taken in rounds.
constexpr int kThreadCheckSamples = 5;

// The check's medians, one per thread_check_rows() entry.
struct ThreadCheckTimings {
  std::vector<double> one_thread_ms;
  std::vector<double> asked_threads_ms;
};

struct ThreadChoice {
  int asked = 1;
  int used = 1;
  ThreadCheckTimings timings;
  std::string reason;
  // {"asked", "used", "rows", "one_thread_ms", "asked_threads_ms", "reason"}
  nlohmann::json to_json() const;
};

// The choice from the timings alone: the asked count if it was faster than one thread on every step
// timed, else one, with the reason in words.
ThreadChoice choose_threads(int asked, const ThreadCheckTimings& timings);

// Times the steps on `asked` threads and on one (asked > 1), chooses, and leaves `model` on the count
// chosen.
ThreadChoice check_threads(Model& model, int asked, const TimingPolicy& policy);

}  // namespace kvlab
