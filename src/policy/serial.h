#pragma once
// The serial policies: one request at a time, in queue order, in slot 0, from its prefill to its last
// token. They differ only in the pass that gives each token after the first.
#include <vector>

#include "policy/scheduler.h"

namespace kvlab::policy {

class SerialScheduler : public Scheduler {
 public:
  int slots() const override { return 1; }
  void serve(ServerState& server) override;

 protected:
  // The pass that gives `request` its next token (its first came from the prefill).
  virtual void next_token(ServerState& server, RequestState& request) = 0;
};

// `serial-nocache`: no KV cache, so token k is a full forward over the p + k - 1 tokens so far.
class SerialNoCache : public SerialScheduler {
 protected:
  void next_token(ServerState& server, RequestState& request) override { server.nocache_step(request); }
};

// `serial-cache`: token k (k >= 2) is one decode step of one row at context p + k - 1.
class SerialCache : public SerialScheduler {
 protected:
  void next_token(ServerState& server, RequestState& request) override;

 private:
  std::vector<RequestState*> row_ = std::vector<RequestState*>(1);
};

}  // namespace kvlab::policy
