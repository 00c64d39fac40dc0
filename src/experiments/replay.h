#pragma once
// Replay: the simulator checked against reality. Serves the workload for real under each policy with the
// engine, measuring the step table before and after each run; simulates the same explicit workload on
// the mean of those two tables; and reports each policy's real and simulated metrics with the
// simulator's relative error.
#include "experiments/replay_options.h"
#include "experiments/replay_result.h"
#include "measure/measure.h"
#include "model/forward_device.h"

namespace kvlab::experiments {

// Each policy's real run, its simulation and where the real time went, in the order given (replay_result.h).
// With `device`, every pass that is timed or served runs on it (model/forward_device.h: the reader's GPU,
// through the page): the step tables, the passes by what ran before them and the real runs. The prompts
// and the answers each request gives alone are the CPU's. A policy that keeps its KV in blocks of one
// pool is refused there (InputError naming options.policies[i]): a device slot holds one sequence.
ReplayResult replay(const ReplayOptions& options, const ProgressFn& progress = nullptr,
                    ForwardDevice* device = nullptr);

}  // namespace kvlab::experiments
