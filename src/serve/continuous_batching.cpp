#include "serve/continuous_batching.h"

#include <algorithm>

namespace kvlab::serve {

void ContinuousBatching::serve(Engine& engine) {
  std::vector<Slot*> active;  // in admission order
  active.reserve(static_cast<size_t>(engine.slot_count()));
  auto done = [](const Slot* slot) { return slot->state() == Slot::State::done; };
  while (!engine.queue_empty() || !active.empty()) {
    // (1) Admission, one prefill at a time; the clock runs on during each, so later arrivals may join.
    for (Slot* idle = engine.lowest_idle_slot(); idle && engine.next_has_arrived(); idle = engine.lowest_idle_slot()) {
      engine.prefill(*idle, engine.take_next());
      if (done(idle))
        idle->release();  // a one-token answer is done at its prefill
      else
        active.push_back(idle);
    }
    if (!active.empty()) {
      // (2) One decode step over the active rows; the rows it finishes leave and free their slots.
      engine.decode_step(active);
      for (Slot* slot : active)
        if (done(slot)) slot->release();
      active.erase(std::remove_if(active.begin(), active.end(), [](const Slot* slot) { return slot->state() == Slot::State::idle; }),
                   active.end());
    } else if (!engine.queue_empty()) {
      // (3) Nothing active and nothing arrived: wait for the next arrival.
      engine.wait_for_next_arrival();
    }
  }
}

}  // namespace kvlab::serve
