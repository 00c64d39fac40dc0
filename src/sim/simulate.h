#pragma once
// The simulator's entry point: replays one workload on one step-time table under each named policy
// (contract sections 1-5; KV memory in docs/memory.md), on typed inputs, or on JSON for the CLI and Embind.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/progress.h"
#include "policy/policy_registry.h"  // policy::default_policies()
#include "sim/policy_result.h"
#include "sim/policy_table.h"  // format_policy_table()
#include "sim/step_table.h"
#include "sim/workload.h"  // explicit_workload()

namespace kvlab::sim {

// The range of the KV memory options (the page's form reads them through src/wasm/catalog.h).
constexpr long long kMaxKvTokens = 1'000'000'000'000;
constexpr int kMaxBlockTokens = 65536;
// Requests x policies of one simulate() call: bounds the memory of its per-request results.
constexpr size_t kMaxRequestResults = 1'000'000;

// Refuses `request_count` requests under `policy_count` policies past kMaxRequestResults, naming `path`:
// a generated workload's count (`count_field`: the message gives its range) or the workload.
void check_request_results(size_t request_count, size_t policy_count, const std::string& path,
                           bool count_field = false);

struct SimulateOptions {
  int timeline_requests = 60;  // the timeline covers the first this many requests (0 to 1,000,000)
  // Adds the whole queue's playback (playback_log.h): "queue_timeline" for every policy and, for the
  // KV-memory policies, "memory_timeline". Off by default: it is about 110 bytes of JSON a request.
  bool queue_timeline = false;
  // The KV memory of reserve, paged and chunked (the contract's four policies model none): a budget in
  // tokens, or in bytes at steps.model.kv_bytes_per_token bytes a token; neither: no limit.
  std::optional<long long> kv_tokens = std::nullopt;  // 1 to 1e12
  std::optional<double> kv_bytes = std::nullopt;      // 1 to 1e15
  int block_tokens = 16;                              // 1 to 65,536
  // Goodput: requests with TTFT <= ttft_target_ms and TPOT <= tpot_target_ms (each 0 to 1e12).
  double ttft_target_ms = 1000;
  double tpot_target_ms = 100;
};

// The options as a JSON object (for Embind): keys timeline_requests, queue_timeline (true/false), kv_tokens, kv_bytes, block_tokens,
// ttft_target_ms, tpot_target_ms, each optional; errors name the field under `path`.
SimulateOptions read_simulate_options(const nlohmann::json& options, const std::string& path = "options");

// The KV memory `options` give (kv_tokens or kv_bytes, block_tokens), checked, errors naming the field;
// bytes become tokens at the kv_bytes_per_token() of `steps`, and fail without a table (the replay's
// budget, checked before its tables are measured, is in tokens). Neither: no limit.
policy::KvSettings kv_settings(const SimulateOptions& options, const StepTable* steps = nullptr);

// A policy to simulate: its name as given, which keys its result and names it in errors, and what the name says.
struct NamedPolicy {
  std::string name;
  policy::PolicyName policy;
};

// Parses policy names, errors naming `path`[i] ("policies[2]"); a name given twice is an error.
std::vector<NamedPolicy> parse_policies(const std::vector<std::string>& names, const std::string& path = "policies");

// Replays `requests` on `steps` under each policy (names distinct, as parse_policies() gives them).
// Throws kvlab::InputError naming the option, or the policy whose check() the requests fail.
// Returns each policy's result (policy_result.h) in the order given: its metrics, its timeline of the
// first options.timeline_requests requests, a KV-memory policy's memory report, and with
// options.queue_timeline the playback of playback_log.h. `progress`, if given, hears each policy's share
// of requests served and of its report made.
SimulateResult simulate(const StepTable& steps, const std::vector<policy::Request>& requests,
                        const std::vector<NamedPolicy>& policies, const SimulateOptions& options = {},
                        const ProgressFn& progress = nullptr);

// simulate() on JSON, for the CLI and Embind. steps: the contract's section 1 object; workload: section 2.
// Throws kvlab::InputError naming the field, the inputs checked in this order: the table, the workload,
// the options, the policy names. Returns the result's JSON: one object with a key per policy name.
nlohmann::json simulate_json(const nlohmann::json& steps, const nlohmann::json& workload,
                             const std::vector<std::string>& policy_names, const SimulateOptions& options = {},
                             const ProgressFn& progress = nullptr);

}  // namespace kvlab::sim
