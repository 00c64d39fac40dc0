#pragma once
// A measured step takes no less time for more work: a prefill of more tokens, a decode step of more rows
// at one context. On a busy device a noisy cell can break that (a 1-token prefill timed slower than an
// 8-token one, a 16-row step faster than one row), and the simulator would price the queue on it. The
// measurement times the cells of such a pair again first (decreasing_cells); what still decreases is
// corrected (make_monotone) and the correction recorded in the table (docs/benchmarks.md).
#include <cstddef>
#include <string>
#include <vector>

#include "sim/step_table.h"

namespace kvlab {

// One cell a correction changed: its grid ("decode" or "prefill"), its point (rows and context, or
// tokens; the others 0), and its time as measured and as corrected.
struct MonotoneCorrection {
  std::string grid;
  int rows = 0;
  int context = 0;
  int tokens = 0;
  double measured_ms = 0;
  double corrected_ms = 0;
};

// The cells, in the order measure_steps times them (decode row-major over rows x contexts, then prefill),
// that take longer than the next cell of more work: both of each such pair, each once, in order.
std::vector<size_t> decreasing_cells(const sim::StepGrids& grids);

// Makes the prefill times non-decreasing in tokens and each context's decode times non-decreasing in rows:
// along each such line, the least-squares non-decreasing fit (pool-adjacent-violators: a run of cells
// that decreases is replaced by its mean), which moves the measured times as little as the order allows
// and keeps their sum. Returns the cells it changed.
std::vector<MonotoneCorrection> make_monotone(sim::StepGrids& grids);

}  // namespace kvlab
