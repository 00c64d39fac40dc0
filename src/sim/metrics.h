#pragma once
// Per-policy metrics (contract section 4, and the latency targets of docs/memory.md) from the requests'
// times once a policy has served them all.
#include <vector>

#include <nlohmann/json.hpp>

#include "policy/request.h"

namespace kvlab::sim {

// A request counts towards goodput if it meets both: its TTFT and its own TPOT (answers of one token
// have none, and meet that target).
struct GoodputTargets {
  double ttft_ms = 1000;
  double tpot_ms = 100;
};

// The q-quantile (0 <= q <= 1) of non-empty `values`, linear between order statistics at rank (N - 1) q.
double percentile(std::vector<double> values, double q);

// median/p95/p99 TTFT, median/p95 end-to-end latency, makespan ("all done"), tokens/s, TPOT (the mean,
// and median/p95/p99 of the requests' own TPOTs), goodput, the step count and the per-request times in
// workload order. tokens_per_s and goodput_per_s are null when the makespan is 0, and the TPOTs when no
// answer has more than one token.
nlohmann::json policy_metrics(const std::vector<policy::RequestState>& requests, long long steps_run,
                              const GoodputTargets& targets = {});

}  // namespace kvlab::sim
