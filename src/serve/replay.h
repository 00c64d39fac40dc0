#pragma once
// Replay: the simulator checked against reality. Measures the step table, serves the workload for real
// under each policy with the engine, simulates the same explicit workload on the measured table, and
// reports each policy's real and simulated metrics with the simulator's relative error.
#include <nlohmann/json.hpp>

#include "bench/measure.h"
#include "serve/replay_options.h"

namespace kvlab::serve {

// One object with a key per policy name as given, each
//   { "request_count": N,
//     "real":  { median_ttft_ms, p95_ttft_ms, makespan_ms, ..., requests: [...], timeline: [...] },
//     "sim":   { the same keys, from the simulator },
//     "error": { median_ttft, p95_ttft, makespan }   (sim - real) / real, as fractions,
//     "drift": { median_ttft, p95_ttft, makespan }   (sim on a table measured after the runs - sim) / sim,
//     "step_check": { real_steps_ms, table_steps_ms, outside_steps_ms,
//                     kinds: [{ kind, rows, steps, real_ms, table_ms }] } }
// "real" and "sim" hold every key of the simulator's per-policy result (sim/metrics.h, sim/timeline.h).
// "drift" is how far the machine's own speed moved while the replay ran: the error cannot be read more
// finely than that. "step_check" prices every forward pass the engine ran on the step table, so that an
// error can be traced to the kind of step (prefill, decode at r rows, no-cache pass) whose cost the table
// misjudges, or to time spent outside forward passes.
nlohmann::json replay(const ReplayOptions& options, const ProgressFn& progress = nullptr);

}  // namespace kvlab::serve
