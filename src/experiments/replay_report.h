#pragma once
// The text form of a replay() result: per policy the real and simulated median TTFT, p95 TTFT and
// makespan with the simulator's error, then where the real time went by kind of forward pass.
#include <string>

#include "experiments/replay_result.h"

namespace kvlab::experiments {

std::string format_replay_report(const ReplayResult& result);

}  // namespace kvlab::experiments
