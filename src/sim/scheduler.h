#pragma once
// A serving policy: decides, step after step, which queued and running requests the server works on.
// Each policy is one class behind this interface; ServerState holds the shared bookkeeping, so a new
// policy is a new class plus a registry entry.
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/server_state.h"

namespace kvlab::sim {

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  // Throws an InputError if the policy cannot serve `workload` at all (a KV memory too small for one of
  // its requests), before anything runs.
  virtual void check(const std::vector<Request>& /*workload*/) const {}
  // Serves every request in the server's queue to its last token.
  virtual void serve(ServerState& server) = 0;
  // Adds what the policy measured beyond the request times (KV memory use) to its result.
  virtual void report(nlohmann::json& /*metrics*/) const {}
};

}  // namespace kvlab::sim
