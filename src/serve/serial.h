#pragma once
// The serial policies for real: one request at a time in queue order, in slot 0, from its prefill to its
// last token. They differ in how each token after the first is computed.
#include <vector>

#include "serve/scheduler.h"

namespace kvlab::serve {

class SerialScheduler : public Scheduler {
 public:
  int slots() const override { return 1; }
  void serve(Engine& engine) override;

 protected:
  // The forward pass that gives the request in `slot` its next token.
  virtual void next_token(Engine& engine, Slot& slot) = 0;
};

// `serial-nocache`: token k reruns the whole sequence, p + k - 1 tokens, into a cleared cache.
class SerialNoCache : public SerialScheduler {
 protected:
  void next_token(Engine& engine, Slot& slot) override { engine.nocache_step(slot); }
};

// `serial-cache`: token k is a decode step of the one row, at context p + k - 1.
class SerialCache : public SerialScheduler {
 protected:
  void next_token(Engine& engine, Slot& slot) override;

 private:
  std::vector<Slot*> row_;
};

}  // namespace kvlab::serve
