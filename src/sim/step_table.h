#pragma once
// The measured step times (contract section 1, `steps.json`) and the lookups that price every step a
// policy runs: prefill of one sequence, one decode step of a batch of rows at given contexts, and (where
// the table carries the optional `mixed` grid, docs/memory.md section 1) one mixed step of a prompt chunk
// and decode rows; and (where it carries the optional `after_prompt` and `prompt_pass` parts,
// sim/after_prompt.h and sim/prompt_pass.h) how much slower decode passes run soon after a prompt pass,
// and how a prompt pass's time depends on the pass right before it.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/input_error.h"
#include "sim/after_prompt.h"
#include "sim/grid_position.h"
#include "sim/prompt_pass.h"
#include "sim/workload.h"  // kMaxTokens

namespace kvlab::sim {

// The largest KV size in bytes: of a KV budget, and of the model's KV cache a token.
constexpr double kMaxKvBytes = 1e15;
// The largest model.max_seq a table may carry: the longest request a workload holds (the longest prompt
// and answer, minus 1) fits in it, so a larger one would bound nothing.
constexpr long long kMaxTableMaxSeq = 2 * kMaxTokens;

// A table's step-time grids: the points of each (strictly increasing) and its times in ms, row-major.
struct StepGrids {
  std::vector<int> decode_rows;
  std::vector<int> decode_contexts;
  std::vector<double> decode_ms;  // [decode_rows][decode_contexts]
  std::vector<int> prefill_tokens;
  std::vector<double> prefill_ms;       // [prefill_tokens]
  std::vector<int> mixed_chunk_tokens;  // empty: no measured mixed grid
  std::vector<int> mixed_rows;
  std::vector<int> mixed_contexts;
  std::vector<double> mixed_ms;  // [mixed_chunk_tokens][mixed_rows][mixed_contexts]
};

class StepTable {
 public:
  // A table made in this program (measured, or built for a bench): the grids, whose shapes and times the
  // maker guarantees (a bad one is a bug: std::logic_error), and the free-form description of the model
  // they were timed on (steps.model: its kv_bytes_per_token and max_seq are read), null for none.
  explicit StepTable(StepGrids grids, nlohmann::json model = nullptr);

  // Reads and checks a table given as JSON (a file, an Embind argument); every error names its field
  // under `path`.
  static StepTable from_json(const nlohmann::json& steps, const std::string& path = "steps");
  // The contract's JSON: the model description, the grids and the parts a table has.
  nlohmann::json to_json() const;

  // The cell-wise mean of two tables of one grid (what replay prices a run on: the machine's speed
  // between the measurements before and after it), with `before`'s description and parts.
  static StepTable mean(const StepTable& before, const StepTable& after);
  // The same table with the parts that price a pass by the passes before it (measured apart).
  StepTable with_history(AfterPromptTable after_prompt, PromptPassTable prompt_pass) const;

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

  // Whether the table carries the measured mixed-step grid; a table without it (measured before the grid
  // existed, or built by hand) prices mixed steps by the derived formula of mixed_step.h.
  bool has_mixed() const { return !grids_.mixed_chunk_tokens.empty(); }

  // One measured mixed step: a prompt chunk of `chunk_tokens` tokens from position 0 and `rows` decode rows
  // whose contexts are context_of(0 .. rows - 1), priced as decode_step_ms prices a decode step: the sum
  // of each row's share of the equal-context cell, sum_i mixed(chunk_tokens, rows, c_i) / rows, each cell
  // linear in context, then in rows, then in chunk tokens between the bracketing measured ones.
  // Only for a table that has_mixed().
  template <class ContextOf>
  double mixed_grid_step_ms(int chunk_tokens, int rows, ContextOf context_of) const {
    GridPosition chunk_position = GridPosition::locate(grids_.mixed_chunk_tokens, chunk_tokens);
    GridPosition row_position = GridPosition::locate(grids_.mixed_rows, rows);
    double sum_ms = 0;
    for (int row = 0; row < rows; ++row) sum_ms += mixed_at(chunk_position, row_position, context_of(row));
    return sum_ms / rows;
  }

  // The decode passes' ratios after a prompt pass; empty (every ratio 1) for a table without the part.
  const AfterPromptTable& after_prompt() const { return after_prompt_; }
  // The prompt passes' ratios by the pass before them; empty (every ratio 1) for a table without the part.
  const PromptPassTable& prompt_pass() const { return prompt_pass_; }
  // The same table without the after-prompt part, or without the prompt-pass part: what each part adds.
  StepTable without_after_prompt() const;
  StepTable without_prompt_pass() const;

  // The model's KV cache bytes a token (steps.model.kv_bytes_per_token, which measure writes), which only
  // a KV budget in bytes needs; nullopt where the table has none. The model part is a free-form
  // description that reading the table does not check, so a bad value throws its InputError here, for
  // the caller that needs it.
  std::optional<double> kv_bytes_per_token() const;
  // The positions of the model the table was measured on (steps.model.max_seq, which measure writes):
  // requests past it are refused (context_fit.h). nullopt where the table has none (roofline's, a hand-made one).
  std::optional<int> max_seq() const { return max_seq_; }

  // The measured grid's points, for comparing it with the formula: the callback gets each cell's chunk
  // tokens, rows, context and ms.
  template <class Visit>
  void for_each_mixed_cell(Visit visit) const {
    size_t cell = 0;
    for (double chunk_tokens : grids_.mixed_chunk_tokens)
      for (double rows : grids_.mixed_rows)
        for (double context : grids_.mixed_contexts) visit(chunk_tokens, rows, context, grids_.mixed_ms[cell++]);
  }

 private:
  GridPosition locate_rows(double rows) const { return GridPosition::locate(grids_.decode_rows, rows); }
  double decode_at(const GridPosition& row_position, double context) const;
  double mixed_at(const GridPosition& chunk_position, const GridPosition& row_position, double context) const;
  StepTable() = default;
  static StepGrids read_grids(const nlohmann::json& steps, const std::string& path);
  void read_model(const nlohmann::json& steps, const std::string& path);

  StepGrids grids_;
  nlohmann::json model_;  // steps.model as given or measured; null: none
  AfterPromptTable after_prompt_;
  PromptPassTable prompt_pass_;
  std::optional<double> kv_bytes_per_token_;
  std::optional<InputError> kv_bytes_per_token_error_;  // what kv_bytes_per_token() throws
  std::optional<int> max_seq_;
};

}  // namespace kvlab::sim
