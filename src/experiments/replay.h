#pragma once
// Replay: the simulator checked against reality. Serves the workload for real under each policy with the
// engine, measuring the step table before and after each run; simulates the same explicit workload on
// the mean of those two tables; and reports each policy's real and simulated metrics with the
// simulator's relative error.
#include <nlohmann/json.hpp>

#include "experiments/replay_options.h"
#include "measure/measure.h"
#include "model/forward_device.h"

namespace kvlab::experiments {

// One object with a key per policy name as given, each
//   { "request_count": N,
//     "real":  { median_ttft_ms, p95_ttft_ms, makespan_ms, ..., requests: [... each with its answer's
//                "tokens"], timeline: [...] },
//     "sim":   { the same keys, from the simulator },
//     "error": { median_ttft, p95_ttft, makespan }   (sim - real) / real, as fractions,
//     "drift": { median_ttft, p95_ttft, makespan }   (sim on the table after the run - sim on the one
//                                                      before) / the latter,
//     "step_check": { real_steps_ms, table_steps_ms, outside_steps_ms,
//                     kinds: [{ kind, rows, steps, real_ms, table_ms, derived_ms (mixed steps, measured
//                               mixed grid only: the derived formula's price) }],
//                     mixed_formula: { cells, mean_abs_error, max_abs_error } (measured mixed grid only:
//                               the derived formula against the grid's cells, |formula - measured| / measured) },
//     "error_without": { "after_prompt": {...}, "prompt_pass": {...} } where the table has those parts: the
//                   errors of the run priced without each, and "error_grid_only" without any,
//     "step_table": the table "sim" was computed on (the contract's steps.json; its "after_prompt" and
//                   "prompt_pass" parts, what ran before a pass does to its time, measured once per
//                   replay: measure/measure_pass_history.h) }
// "real" and "sim" hold every key of the simulator's per-policy result (sim/metrics.h, sim/timeline.h).
// "drift" is how far the machine's own speed moved while the policy ran: the error cannot be read more
// finely than that. "step_check" prices every forward pass the engine ran on the step table, so that an
// error can be traced to the kind of step (prefill, decode at r rows, no-cache pass) whose cost the table
// misjudges, or to time spent outside forward passes.
// With `device`, every pass that is timed or served runs on it (model/forward_device.h: the reader's GPU,
// through the page): the step tables, the passes by what ran before them and the real runs. The prompts
// and the answers each request gives alone are the CPU's. A policy that keeps its KV in blocks of one
// pool is refused there (InputError naming options.policies[i]): a device slot holds one sequence.
nlohmann::json replay(const ReplayOptions& options, const ProgressFn& progress = nullptr,
                      ForwardDevice* device = nullptr);

}  // namespace kvlab::experiments
