#pragma once
// The serial policies: one request at a time, in queue order, from its prefill to its last token. They
// differ only in what each token after the first costs.
#include "sim/scheduler.h"

namespace kvlab::sim {

class SerialScheduler : public Scheduler {
 public:
  void serve(ServerState& server) override;

 protected:
  // Cost of the step that gives `request` its next token (its first came from the prefill).
  virtual double next_token_ms(const StepTable& steps, const RequestState& request) const = 0;
};

// `serial-nocache`: no KV cache, so token k is a full forward over p + k - 1 tokens, prefill(p + k - 1).
class SerialNoCache : public SerialScheduler {
 protected:
  double next_token_ms(const StepTable& steps, const RequestState& request) const override;
};

// `serial-cache`: token k (k >= 2) is one decode step of one row at context p + k - 1.
class SerialCache : public SerialScheduler {
 protected:
  double next_token_ms(const StepTable& steps, const RequestState& request) const override;
};

}  // namespace kvlab::sim
