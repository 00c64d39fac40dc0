#include "serve/serial.h"

namespace kvlab::serve {

void SerialScheduler::serve(Engine& engine) {
  Slot& slot = engine.slot(0);
  while (!engine.queue_empty()) {
    engine.wait_for_next_arrival();
    engine.prefill(slot, engine.take_next());
    while (slot.state() == Slot::State::generating) next_token(engine, slot);
    slot.release();
  }
}

void SerialCache::next_token(Engine& engine, Slot& slot) {
  row_.assign(1, &slot);  // allocates on the first token only
  engine.decode_step(row_);
}

}  // namespace kvlab::serve
