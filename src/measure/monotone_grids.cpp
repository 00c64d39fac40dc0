#include "measure/monotone_grids.h"

#include <algorithm>
#include <functional>

namespace kvlab {

namespace {

// One line of a grid along which work grows: the positions of its cells in a grid's ms list.
using Line = std::vector<size_t>;

// The decode grid's lines along which the time may not decrease: one per context, along rows; positions
// into decode_ms.
std::vector<Line> decode_lines(const sim::StepGrids& grids) {
  const size_t rows = grids.decode_rows.size(), contexts = grids.decode_contexts.size();
  std::vector<Line> lines(contexts);
  for (size_t j = 0; j < contexts; ++j)
    for (size_t i = 0; i < rows; ++i) lines[j].push_back(i * contexts + j);
  return lines;
}

// The prefill grid's one line, along tokens; positions into prefill_ms.
Line prefill_line(const sim::StepGrids& grids) {
  Line line(grids.prefill_tokens.size());
  for (size_t k = 0; k < line.size(); ++k) line[k] = k;
  return line;
}

// The least-squares non-decreasing fit of `values` (pool-adjacent-violators).
std::vector<double> non_decreasing_fit(const std::vector<double>& values) {
  struct Block {
    double sum;
    size_t count;
    double mean() const { return sum / static_cast<double>(count); }
  };
  std::vector<Block> blocks;
  for (double value : values) {
    blocks.push_back({value, 1});
    while (blocks.size() > 1 && blocks[blocks.size() - 2].mean() > blocks.back().mean()) {
      blocks[blocks.size() - 2].sum += blocks.back().sum;
      blocks[blocks.size() - 2].count += blocks.back().count;
      blocks.pop_back();
    }
  }
  std::vector<double> fit;
  for (const Block& block : blocks) fit.insert(fit.end(), block.count, block.mean());
  return fit;
}

// Calls visit(position) for both cells of every decreasing pair along `line` of `ms`.
void visit_decreasing(const std::vector<double>& ms, const Line& line, const std::function<void(size_t)>& visit) {
  for (size_t k = 0; k + 1 < line.size(); ++k)
    if (ms[line[k]] > ms[line[k + 1]]) {
      visit(line[k]);
      visit(line[k + 1]);
    }
}

}  // namespace

std::vector<size_t> decreasing_cells(const sim::StepGrids& grids) {
  std::vector<size_t> cells;
  auto add = [&](size_t cell) {
    if (std::find(cells.begin(), cells.end(), cell) == cells.end()) cells.push_back(cell);
  };
  for (const Line& line : decode_lines(grids)) visit_decreasing(grids.decode_ms, line, add);
  const size_t decode_cells = grids.decode_ms.size();
  visit_decreasing(grids.prefill_ms, prefill_line(grids), [&](size_t k) { add(decode_cells + k); });
  std::sort(cells.begin(), cells.end());
  return cells;
}

std::vector<MonotoneCorrection> make_monotone(sim::StepGrids& grids) {
  std::vector<MonotoneCorrection> corrections;
  auto fit_line = [&](std::vector<double>& ms, const Line& line, auto describe) {
    std::vector<double> values;
    for (size_t position : line) values.push_back(ms[position]);
    const std::vector<double> fit = non_decreasing_fit(values);
    for (size_t k = 0; k < line.size(); ++k) {
      if (fit[k] == values[k]) continue;
      MonotoneCorrection correction = describe(line[k]);
      correction.measured_ms = values[k];
      correction.corrected_ms = fit[k];
      corrections.push_back(correction);
      ms[line[k]] = fit[k];
    }
  };
  const size_t contexts = grids.decode_contexts.size();
  for (const Line& line : decode_lines(grids))
    fit_line(grids.decode_ms, line, [&](size_t position) {
      return MonotoneCorrection{"decode", grids.decode_rows[position / contexts],
                                grids.decode_contexts[position % contexts]};
    });
  fit_line(grids.prefill_ms, prefill_line(grids), [&](size_t k) {
    return MonotoneCorrection{"prefill", 0, 0, grids.prefill_tokens[k]};
  });
  return corrections;
}

}  // namespace kvlab
