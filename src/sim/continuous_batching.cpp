#include "sim/continuous_batching.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <vector>

namespace kvlab::sim {

void ContinuousBatching::serve(ServerState& server) {
  std::vector<RequestState*> active;  // in admission order
  active.reserve(static_cast<size_t>(slots_));
  // A freed slot is reused lowest index first, so that the timeline packs rows at the top.
  std::vector<int> slot_storage;
  slot_storage.reserve(static_cast<size_t>(slots_));
  std::priority_queue<int, std::vector<int>, std::greater<int>> free_slots(std::greater<int>(), std::move(slot_storage));
  for (int slot = 0; slot < slots_; ++slot) free_slots.push(slot);

  while (!server.queue_empty() || !active.empty()) {
    // (1) Admit while a slot is free and the next request has arrived; the clock moves with each prefill.
    while (!free_slots.empty() && server.next_has_arrived()) {
      RequestState& request = server.take_next();
      int slot = free_slots.top();
      free_slots.pop();
      server.run_prefill(request, slot);
      if (request.finished())
        free_slots.push(slot);  // a one-token answer is done at its prefill
      else
        active.push_back(&request);
    }
    if (!active.empty()) {
      // (2) One decode step over all active rows, each at its own context.
      double cost_ms = server.steps().decode_step_ms(
          static_cast<int>(active.size()), [&](int row) { return active[static_cast<size_t>(row)]->next_context(); });
      server.run_token_step(cost_ms, active);
      for (const RequestState* row : active)
        if (row->finished()) free_slots.push(row->slot);
      active.erase(std::remove_if(active.begin(), active.end(), [](const RequestState* row) { return row->finished(); }),
                   active.end());
    } else if (!server.queue_empty()) {
      // (3) Nothing active and (all slots being free) nothing arrived: jump to the next arrival.
      server.wait_for_next_arrival();
    }
  }
}

}  // namespace kvlab::sim
