#include "policy/continuous_batching.h"

#include <algorithm>

namespace kvlab::policy {

void ContinuousBatching::serve(ServerState& server) {
  std::vector<RequestState*> active;  // in admission order
  active.reserve(static_cast<size_t>(slots_));
  SlotPool free_slots(slots_);

  while (!server.queue_empty() || !active.empty()) {
    // (1) Admit while a slot is free and the next request has arrived; the clock moves with each prefill.
    while (!free_slots.empty() && server.next_has_arrived() && take_memory(server.peek_next())) {
      RequestState& request = server.take_next();
      int slot = free_slots.take();
      prefill(server, request, slot);
      if (request.finished()) {  // a one-token answer is done at its prefill
        leave(request);
        free_slots.give_back(slot);
      } else {
        active.push_back(&request);
      }
    }
    if (!active.empty()) make_room(active, free_slots);
    if (!active.empty()) {
      // (2) One decode step over all active rows, each at its own context.
      server.decode_step(active);
      after_decode_step(active);
      for (const RequestState* row : active) {
        if (!row->finished()) continue;
        leave(*row);
        free_slots.give_back(row->slot);
      }
      active.erase(
          std::remove_if(active.begin(), active.end(), [](const RequestState* row) { return row->finished(); }),
          active.end());
    } else if (!server.queue_empty()) {
      // (3) Nothing active and nothing admitted: jump to the next arrival.
      server.wait_for_next_arrival();
    }
  }
}

}  // namespace kvlab::policy
