#pragma once
// Per-policy metrics (contract section 4, and the latency targets of docs/memory.md) from the requests'
// times once a policy has served them all.
#include <optional>
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

// One request's times, on the served queue's clock.
struct RequestTimes {
  double arrival_ms = 0;
  double first_token_ms = 0;
  double finish_ms = 0;
  double latency_ms = 0;  // finish - arrival
};

// median/p95/p99 TTFT, median/p95 end-to-end latency, makespan ("all done"), tokens/s, TPOT (the mean,
// and median/p95/p99 of the requests' own TPOTs), goodput, the step count and the per-request times in
// workload order. tokens_per_s and goodput_per_s are none when the makespan is 0, and the TPOTs when no
// answer has more than one token.
struct PolicyMetrics {
  double median_ttft_ms = 0;
  double p95_ttft_ms = 0;
  double p99_ttft_ms = 0;
  double median_latency_ms = 0;
  double p95_latency_ms = 0;
  double makespan_ms = 0;
  std::optional<double> tokens_per_s;
  std::optional<double> tpot_ms;
  std::optional<double> median_tpot_ms;
  std::optional<double> p95_tpot_ms;
  std::optional<double> p99_tpot_ms;
  double goodput_pct = 0;
  std::optional<double> goodput_per_s;
  long long steps = 0;
  std::vector<RequestTimes> requests;

  // The contract's keys, null for a figure that is none; "requests" holds {arrival_ms, first_token_ms,
  // finish_ms, latency_ms} each.
  nlohmann::json to_json() const;
};

PolicyMetrics policy_metrics(const std::vector<policy::RequestState>& requests, long long steps_run,
                             const GoodputTargets& targets = {});

}  // namespace kvlab::sim
