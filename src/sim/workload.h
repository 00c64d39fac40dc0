#pragma once
// Workloads (contract section 2): a generated one (count, inclusive uniform prompt and answer ranges,
// arrivals all at zero or Poisson, seed) or an explicit list of requests.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/request.h"

namespace kvlab::sim {

enum class ArrivalKind { all_at_zero, poisson };

// The defaults are the published lab's workload: 1,000 requests at t = 0, prompts 8-32, answers 16-96.
struct GeneratedWorkload {
  int count = 1000;
  int prompt_tokens_lo = 8, prompt_tokens_hi = 32;   // inclusive
  int answer_tokens_lo = 16, answer_tokens_hi = 96;  // inclusive
  ArrivalKind arrival = ArrivalKind::all_at_zero;
  double rate_per_s = 1;  // Poisson only
  uint64_t seed = 1;
};

// The requests of a generated workload, in workload order. Draws come from one kvlab::Rng seeded with
// `seed`, per request in this order: prompt (uniform_int), answer (uniform_int), then for Poisson
// arrivals the gap to the previous arrival (or to t = 0 for the first), -ln(1 - u) / rate, u = uniform(),
// with ln from portable_log() so that the gaps are the same to the bit natively and in wasm.
std::vector<Request> generate_requests(const GeneratedWorkload& workload);

// Reads a workload object of either form (checked; errors name the field under `path`) and returns its
// requests in workload order.
std::vector<Request> read_workload(const nlohmann::json& workload, const std::string& path = "workload");

// The explicit form { "requests": [ {arrival_ms, prompt, answer} ] } of any workload object, so that a
// generated workload can be shown, saved and replayed request by request.
nlohmann::json explicit_workload(const nlohmann::json& workload);

}  // namespace kvlab::sim
