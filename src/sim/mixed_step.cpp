#include "sim/mixed_step.h"

namespace kvlab::sim {

double mixed_step_ms(const StepTable& steps, const std::vector<RequestState*>& decode_rows,
                     const std::vector<PrefillChunk>& chunks) {
  return mixed_step_ms(
      steps, static_cast<int>(decode_rows.size()),
      [&](int row) { return decode_rows[static_cast<size_t>(row)]->next_context(); }, static_cast<int>(chunks.size()),
      [&](int i) {
        const PrefillChunk& chunk = chunks[static_cast<size_t>(i)];
        return std::pair<int, int>(chunk.request->prefilled_tokens, chunk.request->prefilled_tokens + chunk.tokens);
      });
}

}  // namespace kvlab::sim
