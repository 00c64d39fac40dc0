#pragma once
// A serving policy run for real: decides which forward pass the engine runs next. One class per policy,
// each following the simulator contract's section 3 to the letter, so that the same workload makes the
// same decisions (admission order, batch composition, slots) as in the simulator while the times come
// from the clock.
#include "serve/engine.h"

namespace kvlab::serve {

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  // KV caches the policy needs: 1 for the serial policies, B for the batching ones.
  virtual int slots() const = 0;
  // Serves every request in the engine's queue to its last token.
  virtual void serve(Engine& engine) = 0;
};

}  // namespace kvlab::serve
