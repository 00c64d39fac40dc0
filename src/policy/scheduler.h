#pragma once
// A serving policy: the loop that decides, step after step, what the server runs next (admit, prefill a
// prompt or a chunk, decode these rows, preempt). Each policy is one class behind this interface, written
// once against the backend of server_state.h, so the same class is priced by the simulator (PricedServer)
// and run for real by the engine (serve::Engine). A new policy is a new class plus a registry entry.
#include <optional>
#include <vector>

#include "policy/kv_memory_report.h"
#include "policy/server_state.h"

namespace kvlab::policy {

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  // Slots the policy seats requests in (0 .. slots() - 1): 1 for the serial policies, B for the batching
  // ones. The real backend gives each its own KV cache.
  virtual int slots() const = 0;
  // Throws an InputError if the policy cannot serve `workload` at all (a KV memory too small for one of
  // its requests), before anything runs.
  virtual void check(const std::vector<Request>& /*workload*/) const {}
  // Serves every request in the server's queue to its last token.
  virtual void serve(ServerState& server) = 0;
  // What a KV-memory policy measured beyond the request times, once it has served; none for the others.
  virtual std::optional<KvMemoryReport> memory_report() const { return std::nullopt; }
};

}  // namespace kvlab::policy
