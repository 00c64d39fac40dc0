#pragma once
// `continuous:B`: B slots, rebuilt every iteration. Arrived requests are admitted into free slots one at a
// time (their prefill runs alone, decode paused); then one decode step runs over every active row, and
// rows that are done leave at once, freeing their slot.
#include "sim/scheduler.h"

namespace kvlab::sim {

class ContinuousBatching : public Scheduler {
 public:
  explicit ContinuousBatching(int slots) : slots_(slots) {}
  void serve(ServerState& server) override;

 private:
  int slots_;
};

}  // namespace kvlab::sim
