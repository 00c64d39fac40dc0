#pragma once
// The price of one forward step that mixes decode rows and prefill chunks (chunked prefill), or that
// prefills only the part of a prompt missing from the KV cache (prefix reuse), as docs/memory.md
// section 1 defines.
//
// Measured: a table with the `mixed` grid prices a step of r >= 1 decode rows and chunks of k tokens in
// all on it (StepTable::mixed_grid_step_ms at k, r and the rows' contexts: the grid's chunk starts at
// position 0), plus, for each chunk [from, to) with from > 0, what attending to its first `from` positions
// adds: prefill_span(from, to) - prefill_span(0, to - from), floored at 0.
//
// Derived (the fallback: a table without the grid, and every step without decode rows or without chunks):
//
//   step = F + sum over chunks of (prefill(to) - prefill(from)), each term floored at 0,
//   F    = the decode rows' step, sum_i decode(r, c_i) / r, when it has decode rows; else prefill(0).
//
// F is the part of a forward that does not grow with its tokens (reading the weights): the decode rows'
// step includes it, and a prefill chunk's difference cancels it. Without decode rows, the first chunk that
// starts a prompt is charged its whole prefill(to), which is F + (prefill(to) - prefill(0)), so that a
// whole prompt alone costs exactly the contract's prefill(p); with no such chunk, prefill(0) (the table's
// prefill line extrapolated to 0 tokens, floored at 0) stands for F.
#include <algorithm>
#include <utility>
#include <vector>

#include "policy/server_state.h"
#include "sim/step_table.h"

namespace kvlab::sim {

// The derived formula's price of a step shaped as below.
template <class ContextOf, class SpanOf>
double derived_mixed_step_ms(const StepTable& steps, int decode_rows, ContextOf context_of, int chunks,
                             SpanOf span_of) {
  bool fixed_part_paid = decode_rows > 0;
  double cost_ms = fixed_part_paid ? steps.decode_step_ms(decode_rows, context_of) : 0.0;
  for (int i = 0; i < chunks; ++i) {
    const auto [from_tokens, to_tokens] = span_of(i);
    if (!fixed_part_paid && from_tokens == 0) {
      cost_ms += steps.prefill_ms(to_tokens);
      fixed_part_paid = true;
    } else {
      cost_ms += steps.prefill_span_ms(from_tokens, to_tokens);
    }
  }
  if (!fixed_part_paid) cost_ms += steps.prefill_ms(0);
  return cost_ms;
}

// The step's price from its shape: `decode_rows` rows at contexts context_of(0 .. decode_rows - 1), and
// `chunks` chunks, chunk i computing positions [from, to) = span_of(i) of its sequence.
template <class ContextOf, class SpanOf>
double mixed_step_ms(const StepTable& steps, int decode_rows, ContextOf context_of, int chunks, SpanOf span_of) {
  if (!steps.has_mixed() || decode_rows == 0 || chunks == 0)
    return derived_mixed_step_ms(steps, decode_rows, context_of, chunks, span_of);
  int chunk_tokens = 0;
  double earlier_positions_ms = 0;
  for (int i = 0; i < chunks; ++i) {
    const auto [from_tokens, to_tokens] = span_of(i);
    chunk_tokens += to_tokens - from_tokens;
    if (from_tokens > 0)
      earlier_positions_ms += std::max(
          0.0, steps.prefill_span_ms(from_tokens, to_tokens) - steps.prefill_span_ms(0, to_tokens - from_tokens));
  }
  return steps.mixed_grid_step_ms(chunk_tokens, decode_rows, context_of) + earlier_positions_ms;
}

// How far the derived formula is from the measured grid: (formula - measured) / measured at each cell of
// a table that has_mixed() (a cell of measured 0 ms is skipped), in the grid's order.
std::vector<double> derived_formula_errors(const StepTable& steps);

// The price of a policy's step; `chunks` are priced from their requests' progress before the step
// (prefilled_tokens).
double mixed_step_ms(const StepTable& steps, const std::vector<policy::RequestState*>& decode_rows,
                     const std::vector<policy::PrefillChunk>& chunks);

}  // namespace kvlab::sim
