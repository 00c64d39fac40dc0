#pragma once
// A real run's forward passes priced on the step table it was simulated on, so that the simulator's error
// can be traced to the kind of step (prefill, decode at r rows, no-cache pass, mixed step) whose cost the
// table misjudges, to what ran before a pass, or to time spent outside forward passes.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "serve/step_log.h"
#include "sim/step_table.h"

namespace kvlab::experiments {

// Passes summed: how many, their real time and their price on the table.
struct PassTotals {
  long long steps = 0;
  double real_ms = 0;
  double table_ms = 0;

  void add(double pass_real_ms, double pass_table_ms);
};

// The passes of one kind and row count.
struct KindTotals {
  serve::StepKind kind = serve::StepKind::decode;
  int rows = 0;
  PassTotals totals;
  // Mixed steps on a table with the measured mixed grid: their price by the derived formula.
  std::optional<double> derived_ms;
};

// Passes grouped by what ran before them: `when` is a group of kPassesSincePrompt ("1", "4-7", "16+") for
// decode passes, the pass before ("none", "prefill", "decode", ...) for prompt passes.
struct PassGroup {
  std::string when;
  PassTotals totals;
};

// The derived mixed-step formula against the table's measured mixed grid: |formula - measured| / measured
// over its cells (none without cells).
struct FormulaCheck {
  size_t cells = 0;
  std::optional<double> mean_abs_error;
  std::optional<double> max_abs_error;
};

struct StepCheck {
  double real_steps_ms = 0;
  double table_steps_ms = 0;
  double outside_steps_ms = 0;    // the real makespan less the real passes
  std::vector<KindTotals> kinds;  // by kind, then rows
  // Decode passes (and mixed steps without a prompt chunk) by the passes since the last prompt pass (a
  // prefill, a no-cache pass or a mixed step with a chunk), the groups that have any; prompt passes by the
  // pass just before, by its name.
  std::vector<PassGroup> decode_by_passes_since_prompt;
  std::vector<PassGroup> prompt_by_pass_before;
  std::optional<FormulaCheck> mixed_formula;  // a table with the measured mixed grid

  // { real_steps_ms, table_steps_ms, outside_steps_ms, kinds: [{kind, rows, steps, real_ms, table_ms,
  //   derived_ms}], decode_by_passes_since_prompt: [{passes_since_prompt, steps, real_ms, table_ms}],
  //   prompt_by_pass_before: [{pass_before, ...}], mixed_formula: {cells, mean_abs_error, max_abs_error} }
  nlohmann::json to_json() const;
};

// Every forward pass of `log` priced on `table`. The table times each cell in a stretch of its own, and on
// some hosts a pass costs more soon after dense prompt work (docs/replay.md, "An Intel host"): the groups
// by what ran before show how much.
StepCheck step_check(const serve::StepLog& log, const sim::StepTable& table, double real_makespan_ms);

}  // namespace kvlab::experiments
