#pragma once
// The measured step times (contract section 1, `steps.json`) and the lookups that price every step a
// policy runs: prefill of one sequence, and one decode step of a batch of rows at given contexts.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/grid_position.h"

namespace kvlab::sim {

class StepTable {
 public:
  // Reads and checks the table; every error names its field under `path`.
  static StepTable from_json(const nlohmann::json& steps, const std::string& path = "steps");

  // Prefill of one sequence of `tokens` tokens, which is also one no-cache forward over that many tokens.
  double prefill_ms(double tokens) const;

  // The work of prefilling positions [from, to) of one sequence whose first `from` positions are already
  // in the KV cache (a prefill chunk, or the rest of a prompt after a prefix hit): prefill(to) -
  // prefill(from), floored at 0. The part of a step that does not grow with its tokens cancels out; the
  // step pays it once (mixed_step.h, docs/memory.md).
  double prefill_span_ms(int from_tokens, int to_tokens) const;

  // One decode step of `rows` rows, every row at `context`: linear in context along each measured row
  // count, then linear in the row count between the two bracketing measured ones.
  double decode_ms(double rows, double context) const { return decode_at(locate_rows(rows), context); }

  // One decode step of `rows` rows whose contexts are context_of(0 .. rows - 1): the sum of each row's
  // share of an equal-context step, sum_i decode(rows, c_i) / rows.
  template <class ContextOf>
  double decode_step_ms(int rows, ContextOf context_of) const {
    GridPosition row_position = locate_rows(rows);  // shared by every row of the step
    double sum_ms = 0;
    for (int row = 0; row < rows; ++row) sum_ms += decode_at(row_position, context_of(row));
    return sum_ms / rows;
  }

 private:
  GridPosition locate_rows(double rows) const { return GridPosition::locate(decode_rows_, rows); }
  double decode_at(const GridPosition& row_position, double context) const;

  std::vector<double> decode_rows_;
  std::vector<double> decode_contexts_;
  std::vector<double> decode_ms_;  // row-major: decode_ms_[i * contexts + j] for rows[i], contexts[j]
  std::vector<double> prefill_tokens_;
  std::vector<double> prefill_ms_;
};

}  // namespace kvlab::sim
