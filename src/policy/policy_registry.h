#pragma once
// Policy names: "serial-nocache", "serial-cache", "static:B", "continuous:B", "reserve:B", "paged:B" (B from
// 1 to 4096) and "chunked:B,T" (T from B to 1,000,000). A new policy is one entry in the registry's table
// (policy_registry.cpp) next to its Scheduler class.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "policy/kv_blocks.h"
#include "policy/scheduler.h"

namespace kvlab::policy {

constexpr int kMaxBatchRows = 4096;
constexpr int kMaxStepTokens = 1'000'000;

struct PolicyName {
  size_t family = 0;    // index in the registry, which is also the table's row order
  int batch_rows = 0;   // B for the batching policies, 0 for the others
  int step_tokens = 0;  // T for chunked:B,T, 0 for the others
};

// Parses a policy name; `path` names where it came from ("policies[2]") in the error.
PolicyName parse_policy_name(const std::string& name, const std::string& path);

// The policy's scheduler; the KV-memory policies (reserve, paged, chunked) use `kv`, the others ignore it.
std::unique_ptr<Scheduler> make_scheduler(const PolicyName& policy, const KvSettings& kv = {});

// A JSON list of 1 to 64 policy names, none given twice (each is parsed when it is simulated); `path`
// names the list in errors ("options.policies").
std::vector<std::string> read_policy_names(const nlohmann::json& list, const std::string& path);

// Each family's name with its parameters, in the table's row order: "serial-nocache", "static:B", ..., "chunked:B,T".
std::vector<std::string> policy_name_forms();

// The published lab's four: {"serial-nocache", "serial-cache", "static:16", "continuous:16"}.
std::vector<std::string> default_policies();

}  // namespace kvlab::policy
