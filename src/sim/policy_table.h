#pragma once
// The lab-style text table of a simulate() result.
#include <string>

#include <nlohmann/json.hpp>

namespace kvlab::sim {

// One row per policy, in the lab's order (serial-nocache, serial-cache, static, continuous, then reserve,
// paged, chunked; by B and T within a family), columns median TTFT, p95 TTFT, p99 TTFT, all done,
// tokens/s, TPOT. Times in seconds with three significant digits as the published lab printed them
// ("13.8 s"), TPOT in ms; "-" for a null. With a KV-memory policy in the result, three more columns:
// peak KV blocks (of the budget), KV waste and preemptions.
std::string format_policy_table(const nlohmann::json& result);

}  // namespace kvlab::sim
