#pragma once
// What serving a queue under one policy gives, typed (simulate() returns one per policy, and the replay
// one for each real run), and its JSON: the contract's per-policy object (section 4; docs/memory.md).
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "policy/kv_memory_report.h"
#include "sim/metrics.h"
#include "sim/timeline.h"

namespace kvlab::sim {

struct PolicyResult {
  PolicyMetrics metrics;
  std::vector<TimelineSpan> timeline;
  std::optional<policy::KvMemoryReport> memory;  // a KV-memory policy's
  // The whole-queue playback (playback_log.h), recorded on request (SimulateOptions::queue_timeline):
  // columns only a page reads, so they are made as JSON where they are recorded. memory_timeline for a
  // KV-memory policy only.
  std::optional<nlohmann::json> queue_timeline, memory_timeline;

  // The metrics' keys, the memory's, "timeline", and the playback's when recorded. On a result used for
  // the last time the playback is moved rather than copied: it is most of a large result's memory.
  nlohmann::json to_json() const&;
  nlohmann::json to_json() &&;
};

struct NamedPolicyResult {
  std::string name;  // the policy's name as given
  PolicyResult result;
};

// The policies' results, in the order the policies were given.
struct SimulateResult {
  std::vector<NamedPolicyResult> policies;

  // The result of the policy named `name`; std::out_of_range if there is none.
  const PolicyResult& at(const std::string& name) const;
  // One object with a key per policy name (moving each playback out of a result used for the last time).
  nlohmann::json to_json() const&;
  nlohmann::json to_json() &&;
};

}  // namespace kvlab::sim
