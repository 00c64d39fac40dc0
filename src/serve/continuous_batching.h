#pragma once
// `continuous:B` for real: B slots. Each iteration admits arrived requests into idle slots (lowest index
// first), each prefilled alone while decoding waits, then runs one decode step over every active row;
// rows whose answer is done leave at once and their slots (and KV caches) take the next requests.
#include <vector>

#include "serve/scheduler.h"

namespace kvlab::serve {

class ContinuousBatching : public Scheduler {
 public:
  explicit ContinuousBatching(int slots) : slots_(slots) {}
  int slots() const override { return slots_; }
  void serve(Engine& engine) override;

 private:
  int slots_;
};

}  // namespace kvlab::serve
