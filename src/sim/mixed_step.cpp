#include "sim/mixed_step.h"

namespace kvlab::sim {

double mixed_step_ms(const StepTable& steps, const std::vector<policy::RequestState*>& decode_rows,
                     const std::vector<policy::PrefillChunk>& chunks) {
  return mixed_step_ms(
      steps, static_cast<int>(decode_rows.size()),
      [&](int row) { return decode_rows[static_cast<size_t>(row)]->next_context(); }, static_cast<int>(chunks.size()),
      [&](int i) {
        const policy::PrefillChunk& chunk = chunks[static_cast<size_t>(i)];
        return std::pair<int, int>(chunk.request->prefilled_tokens, chunk.request->prefilled_tokens + chunk.tokens);
      });
}

std::vector<double> derived_formula_errors(const StepTable& steps) {
  std::vector<double> errors;
  steps.for_each_mixed_cell([&](double chunk_tokens, double rows, double context, double measured_ms) {
    if (measured_ms <= 0) return;
    const double formula_ms = derived_mixed_step_ms(
        steps, static_cast<int>(rows), [&](int) { return context; }, 1,
        [&](int) { return std::pair<int, int>(0, static_cast<int>(chunk_tokens)); });
    errors.push_back((formula_ms - measured_ms) / measured_ms);
  });
  return errors;
}

}  // namespace kvlab::sim
