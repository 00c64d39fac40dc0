#pragma once
// A serving policy: decides, step after step, which queued and running requests the server works on.
// Each policy is one class behind this interface; ServerState holds the shared bookkeeping, so a new
// policy (paged KV memory, chunked prefill, prefix reuse) is a new class plus a registry entry.
#include "sim/server_state.h"

namespace kvlab::sim {

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  // Serves every request in the server's queue to its last token.
  virtual void serve(ServerState& server) = 0;
};

}  // namespace kvlab::sim
