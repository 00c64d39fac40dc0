#include "policy/static_batching.h"

#include <algorithm>
#include <vector>

namespace kvlab::policy {

void StaticBatching::serve(ServerState& server) {
  std::vector<RequestState*> batch;
  batch.reserve(static_cast<size_t>(max_batch_rows_));
  auto generating = [](const RequestState* row) { return !row->finished(); };
  while (!server.queue_empty()) {
    server.wait_for_next_arrival();
    // The batch is formed before its prefills run: requests arriving during them wait for the next batch.
    batch.clear();
    while (static_cast<int>(batch.size()) < max_batch_rows_ && server.next_has_arrived())
      batch.push_back(&server.take_next());
    for (size_t row = 0; row < batch.size(); ++row) server.prefill(*batch[row], static_cast<int>(row));
    // Decode step k puts every row, finished or not, at context p_i + k: max(n_i) - 1 steps in all.
    while (std::any_of(batch.begin(), batch.end(), generating)) server.decode_step(batch);
  }
}

}  // namespace kvlab::policy
