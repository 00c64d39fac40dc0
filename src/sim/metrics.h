#pragma once
// Per-policy metrics (contract section 4) from the requests' times once a policy has served them all.
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/request.h"

namespace kvlab::sim {

// The q-quantile (0 <= q <= 1) of non-empty `values`, linear between order statistics at rank (N - 1) q.
double percentile(std::vector<double> values, double q);

// median/p95/p99 TTFT, median/p95 end-to-end latency, makespan ("all done"), tokens/s, TPOT, the step
// count and the per-request times in workload order. tokens_per_s is null when the makespan is 0 and
// tpot_ms when no answer has more than one token.
nlohmann::json policy_metrics(const std::vector<RequestState>& requests, long long steps_run);

}  // namespace kvlab::sim
