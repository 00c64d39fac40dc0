#include "sim/mixed_step.h"

namespace kvlab::sim {

double mixed_step_ms(const StepTable& steps, const std::vector<RequestState*>& decode_rows,
                     const std::vector<PrefillChunk>& chunks) {
  bool fixed_part_paid = !decode_rows.empty();
  double cost_ms = fixed_part_paid ? steps.decode_step_ms(static_cast<int>(decode_rows.size()), [&](int row) {
    return decode_rows[static_cast<size_t>(row)]->next_context();
  })
                                   : 0.0;
  for (const PrefillChunk& chunk : chunks) {
    int from_tokens = chunk.request->prefilled_tokens, to_tokens = from_tokens + chunk.tokens;
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

}  // namespace kvlab::sim
