#include "sim/static_batching.h"

#include <algorithm>
#include <vector>

namespace kvlab::sim {

void StaticBatching::serve(ServerState& server) {
  std::vector<RequestState*> batch;
  batch.reserve(static_cast<size_t>(max_batch_rows_));
  while (!server.queue_empty()) {
    server.wait_for_next_arrival();
    // The batch is formed before its prefills run: requests arriving during them wait for the next batch.
    batch.clear();
    while (batch.size() < batch.capacity() && server.next_has_arrived()) batch.push_back(&server.take_next());

    int longest_answer = 0;
    for (size_t row = 0; row < batch.size(); ++row) {
      server.run_prefill(*batch[row], static_cast<int>(row));
      longest_answer = std::max(longest_answer, batch[row]->request.answer_tokens);
    }
    // Decode step k puts every row, finished or not, at context p_i + k.
    int rows = static_cast<int>(batch.size());
    for (int k = 1; k < longest_answer; ++k) {
      double cost_ms =
          server.steps().decode_step_ms(rows, [&](int row) { return batch[static_cast<size_t>(row)]->request.prompt_tokens + k; });
      server.run_token_step(cost_ms, batch);
    }
  }
}

}  // namespace kvlab::sim
