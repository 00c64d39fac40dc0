#pragma once
// Step tables, workloads and a policy runner shared by the simulator tests.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "policy/kv_blocks.h"
#include "policy/kv_memory_report.h"
#include "policy/policy_registry.h"
#include "policy/request.h"

namespace kvlab::sim::testing {

// A table with one point on every axis: every prefill costs prefill_ms, every decode step decode_ms.
nlohmann::json constant_steps(double prefill_ms, double decode_ms);

// A table whose lookups are exact linear functions: prefill(L) = L ms and decode(r, c) = r + c ms, so a
// step of r rows at contexts c_i costs sum_i (r + c_i) / r = r + mean(c_i).
nlohmann::json linear_steps();

// A measured-looking table: decode grows with rows and context and is not linear, prefill is convex.
nlohmann::json measured_like_steps();

// `count` random requests (prompts 1-200, past the table's grid, answers 1-40) arriving as Poisson at
// `rate_per_s`.
std::vector<policy::Request> random_requests(uint64_t seed, int count, double rate_per_s);

// The explicit workload object of `requests`.
nlohmann::json workload_json(const std::vector<policy::Request>& requests);

// prefill(L) = 2 + L ms, decode(r, c) = r + c ms: linear_steps() with a fixed part of 2 ms in every
// prefill, so that prefill(0) = 2 and a chunk's prefill(to) - prefill(from) differs from prefill(to).
nlohmann::json affine_steps();

struct Served {
  std::vector<policy::RequestState> requests;  // workload order
  long long steps_run = 0;
  std::optional<policy::KvMemoryReport> memory;  // a KV-memory policy's
};

// Serves `requests` under `policy` on `steps` with the KV memory `kv` (default: no limit), after the
// policy's own check; fails the test unless every request finished exactly once.
Served serve(const nlohmann::json& steps, const std::vector<policy::Request>& requests, const std::string& policy,
             const policy::KvSettings& kv = {});
// The same for a parsed name, of any registry.
Served serve(const nlohmann::json& steps, const std::vector<policy::Request>& requests,
             const policy::PolicyName& policy, const policy::KvSettings& kv = {});

// A KV memory of `budget_blocks` blocks of `block_tokens` tokens.
policy::KvSettings kv_blocks(long long budget_blocks, int block_tokens);

// Reading linear_steps() with `part` as its field `name` throws an InputError whose message contains
// `field`.
void expect_part_error(const char* name, const nlohmann::json& part, const std::string& field);

// The two runs took the same steps and gave every request the same times, to the bit, and slot.
void expect_same_times(const Served& a, const Served& b, const std::string& what);

// Checks one request's first-token and finish times (to a few ulps) and its slot.
void expect_times(const policy::RequestState& state, double first_token_ms, double finish_ms, int slot);

}  // namespace kvlab::sim::testing
