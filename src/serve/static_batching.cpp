#include "serve/static_batching.h"

#include <algorithm>

namespace kvlab::serve {

void StaticBatching::serve(Engine& engine) {
  std::vector<ServedRequest*> members;
  std::vector<Slot*> rows;
  members.reserve(static_cast<size_t>(engine.slot_count()));
  rows.reserve(static_cast<size_t>(engine.slot_count()));
  while (!engine.queue_empty()) {
    engine.wait_for_next_arrival();
    // Members are chosen before any prefill runs: a request arriving during the prefills waits for the
    // next batch.
    members.clear();
    while (static_cast<int>(members.size()) < engine.slot_count() && engine.next_has_arrived())
      members.push_back(&engine.take_next());
    rows.clear();
    for (ServedRequest* member : members) {
      Slot& slot = engine.slot(static_cast<int>(rows.size()));
      engine.prefill(slot, *member);
      rows.push_back(&slot);
    }
    // The batch runs until its longest answer is done: max(n_i) - 1 steps over every row.
    auto generating = [](const Slot* slot) { return slot->state() == Slot::State::generating; };
    while (std::any_of(rows.begin(), rows.end(), generating)) engine.decode_step(rows);
    for (Slot* slot : rows) slot->release();
  }
}

}  // namespace kvlab::serve
