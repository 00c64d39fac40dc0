#include "sim/metrics.h"

#include <algorithm>
#include <cmath>

namespace kvlab::sim {

double percentile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  double rank = static_cast<double>(values.size() - 1) * q;
  size_t lo = static_cast<size_t>(std::floor(rank));
  size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (rank - static_cast<double>(lo)) * (values[hi] - values[lo]);
}

nlohmann::json policy_metrics(const std::vector<policy::RequestState>& requests, long long steps_run,
                              const GoodputTargets& targets) {
  std::vector<double> ttft_ms, latency_ms, tpot_ms;
  ttft_ms.reserve(requests.size());
  latency_ms.reserve(requests.size());
  tpot_ms.reserve(requests.size());
  int meeting_targets = 0;
  double first_arrival_ms = requests.front().request.arrival_ms, last_finish_ms = requests.front().finish_ms;
  double answer_tokens = 0, time_per_token_sum_ms = 0;
  nlohmann::json per_request = nlohmann::json::array();
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
    per_request.push_back({{"arrival_ms", request.arrival_ms},
                           {"first_token_ms", state.first_token_ms},
                           {"finish_ms", state.finish_ms},
                           {"latency_ms", latency_ms.back()}});
  }
  double makespan_ms = last_finish_ms - first_arrival_ms;
  auto tpot_percentile = [&](double q) {
    return tpot_ms.empty() ? nlohmann::json() : nlohmann::json(percentile(tpot_ms, q));
  };
  return {
      {"median_ttft_ms", percentile(ttft_ms, 0.5)},
      {"p95_ttft_ms", percentile(ttft_ms, 0.95)},
      {"p99_ttft_ms", percentile(ttft_ms, 0.99)},
      {"median_latency_ms", percentile(latency_ms, 0.5)},
      {"p95_latency_ms", percentile(latency_ms, 0.95)},
      {"makespan_ms", makespan_ms},
      {"tokens_per_s", makespan_ms > 0 ? nlohmann::json(answer_tokens / (makespan_ms / 1000.0)) : nlohmann::json()},
      {"tpot_ms", tpot_ms.empty() ? nlohmann::json()
                                  : nlohmann::json(time_per_token_sum_ms / static_cast<double>(tpot_ms.size()))},
      {"median_tpot_ms", tpot_percentile(0.5)},
      {"p95_tpot_ms", tpot_percentile(0.95)},
      {"p99_tpot_ms", tpot_percentile(0.99)},
      {"goodput_pct", 100.0 * meeting_targets / static_cast<double>(requests.size())},
      {"goodput_per_s", makespan_ms > 0 ? nlohmann::json(meeting_targets / (makespan_ms / 1000.0)) : nlohmann::json()},
      {"steps", steps_run},
      {"requests", std::move(per_request)},
  };
}

}  // namespace kvlab::sim
