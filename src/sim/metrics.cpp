#include "sim/metrics.h"

#include <algorithm>
#include <cmath>

#include "common/json_or_null.h"

namespace kvlab::sim {

double percentile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  double rank = static_cast<double>(values.size() - 1) * q;
  size_t lo = static_cast<size_t>(std::floor(rank));
  size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (rank - static_cast<double>(lo)) * (values[hi] - values[lo]);
}

PolicyMetrics policy_metrics(const std::vector<policy::RequestState>& requests, long long steps_run,
                             const GoodputTargets& targets) {
  std::vector<double> ttft_ms, latency_ms, tpot_ms;
  ttft_ms.reserve(requests.size());
  latency_ms.reserve(requests.size());
  tpot_ms.reserve(requests.size());
  int meeting_targets = 0;
  double first_arrival_ms = requests.front().request.arrival_ms, last_finish_ms = requests.front().finish_ms;
  double answer_tokens = 0, time_per_token_sum_ms = 0;
  PolicyMetrics metrics;
  metrics.requests.reserve(requests.size());
  for (const policy::RequestState& state : requests) {
    const policy::Request& request = state.request;
    ttft_ms.push_back(state.first_token_ms - request.arrival_ms);
    latency_ms.push_back(state.finish_ms - request.arrival_ms);
    first_arrival_ms = std::min(first_arrival_ms, request.arrival_ms);
    last_finish_ms = std::max(last_finish_ms, state.finish_ms);
    answer_tokens += request.answer_tokens;
    bool meets_tpot = true;
    if (request.answer_tokens > 1) {
      tpot_ms.push_back((state.finish_ms - state.first_token_ms) / (request.answer_tokens - 1));
      time_per_token_sum_ms += tpot_ms.back();
      meets_tpot = tpot_ms.back() <= targets.tpot_ms;
    }
    meeting_targets += meets_tpot && ttft_ms.back() <= targets.ttft_ms;
    metrics.requests.push_back({request.arrival_ms, state.first_token_ms, state.finish_ms, latency_ms.back()});
  }
  metrics.median_ttft_ms = percentile(ttft_ms, 0.5);
  metrics.p95_ttft_ms = percentile(ttft_ms, 0.95);
  metrics.p99_ttft_ms = percentile(ttft_ms, 0.99);
  metrics.median_latency_ms = percentile(latency_ms, 0.5);
  metrics.p95_latency_ms = percentile(latency_ms, 0.95);
  metrics.makespan_ms = last_finish_ms - first_arrival_ms;
  if (metrics.makespan_ms > 0) {
    metrics.tokens_per_s = answer_tokens / (metrics.makespan_ms / 1000.0);
    metrics.goodput_per_s = meeting_targets / (metrics.makespan_ms / 1000.0);
  }
  if (!tpot_ms.empty()) {
    metrics.tpot_ms = time_per_token_sum_ms / static_cast<double>(tpot_ms.size());
    metrics.median_tpot_ms = percentile(tpot_ms, 0.5);
    metrics.p95_tpot_ms = percentile(tpot_ms, 0.95);
    metrics.p99_tpot_ms = percentile(tpot_ms, 0.99);
  }
  metrics.goodput_pct = 100.0 * meeting_targets / static_cast<double>(requests.size());
  metrics.steps = steps_run;
  return metrics;
}

nlohmann::json PolicyMetrics::to_json() const {
  nlohmann::json per_request = nlohmann::json::array();
  for (const RequestTimes& times : requests)
    per_request.push_back({{"arrival_ms", times.arrival_ms},
                           {"first_token_ms", times.first_token_ms},
                           {"finish_ms", times.finish_ms},
                           {"latency_ms", times.latency_ms}});
  return {
      {"median_ttft_ms", median_ttft_ms},
      {"p95_ttft_ms", p95_ttft_ms},
      {"p99_ttft_ms", p99_ttft_ms},
      {"median_latency_ms", median_latency_ms},
      {"p95_latency_ms", p95_latency_ms},
      {"makespan_ms", makespan_ms},
      {"tokens_per_s", json_or_null(tokens_per_s)},
      {"tpot_ms", json_or_null(tpot_ms)},
      {"median_tpot_ms", json_or_null(median_tpot_ms)},
      {"p95_tpot_ms", json_or_null(p95_tpot_ms)},
      {"p99_tpot_ms", json_or_null(p99_tpot_ms)},
      {"goodput_pct", goodput_pct},
      {"goodput_per_s", json_or_null(goodput_per_s)},
      {"steps", steps},
      {"requests", std::move(per_request)},
  };
}

}  // namespace kvlab::sim
