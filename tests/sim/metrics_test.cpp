// The contract's metrics and the timeline on hand-made request times.
#include "sim/metrics.h"

#include <gtest/gtest.h>

#include <vector>

#include "sim/timeline.h"

namespace kvlab::sim {
namespace {

policy::RequestState finished(double arrival_ms, int answer_tokens, double first_token_ms, double finish_ms,
                              int slot = 0) {
  policy::RequestState state;
  state.request = {arrival_ms, 4, answer_tokens};
  state.answer_tokens_out = answer_tokens;
  state.slot = slot;
  state.prefill_start_ms = arrival_ms;
  state.first_token_ms = first_token_ms;
  state.finish_ms = finish_ms;
  return state;
}

TEST(Percentile, LinearBetweenOrderStatisticsAtRankNMinus1TimesQ) {
  std::vector<double> values = {4, 1, 3, 2};         // sorted: 1 2 3 4
  EXPECT_DOUBLE_EQ(percentile(values, 0.5), 2.5);    // rank 1.5
  EXPECT_DOUBLE_EQ(percentile(values, 0.95), 3.85);  // rank 2.85: 3 + 0.85
  EXPECT_DOUBLE_EQ(percentile(values, 0.99), 3.97);  // rank 2.97
  EXPECT_DOUBLE_EQ(percentile(values, 0.0), 1);
  EXPECT_DOUBLE_EQ(percentile(values, 1.0), 4);
  EXPECT_DOUBLE_EQ(percentile({10, 20, 30}, 0.5), 20);  // odd count: the middle one
  EXPECT_DOUBLE_EQ(percentile({7}, 0.99), 7);
}

TEST(PolicyMetrics, HandCase) {
  std::vector<policy::RequestState> requests = {
      finished(0, 5, 2, 10),  // TTFT 2, latency 10, TPOT (10 - 2) / 4 = 2
      finished(1, 1, 4, 4),   // TTFT 3, latency 3, no TPOT (n = 1)
      finished(2, 4, 8, 17),  // TTFT 6, latency 15, TPOT (17 - 8) / 3 = 3
  };
  auto metrics = policy_metrics(requests, 12);
  EXPECT_DOUBLE_EQ(metrics["median_ttft_ms"].get<double>(), 3);
  EXPECT_DOUBLE_EQ(metrics["p95_ttft_ms"].get<double>(), 5.7);   // rank 1.9: 3 + 0.9 * 3
  EXPECT_DOUBLE_EQ(metrics["p99_ttft_ms"].get<double>(), 5.94);  // rank 1.98
  EXPECT_DOUBLE_EQ(metrics["median_latency_ms"].get<double>(), 10);
  EXPECT_DOUBLE_EQ(metrics["p95_latency_ms"].get<double>(), 14.5);  // 10 + 0.9 * 5
  EXPECT_DOUBLE_EQ(metrics["makespan_ms"].get<double>(), 17);       // last finish 17 - first arrival 0
  EXPECT_DOUBLE_EQ(metrics["tokens_per_s"].get<double>(), 10 / 0.017);
  EXPECT_DOUBLE_EQ(metrics["tpot_ms"].get<double>(), 2.5);
  EXPECT_EQ(metrics["steps"].get<long long>(), 12);
  ASSERT_EQ(metrics["requests"].size(), 3u);
  EXPECT_EQ(metrics["requests"][1],
            (nlohmann::json{{"arrival_ms", 1.0}, {"first_token_ms", 4.0}, {"finish_ms", 4.0}, {"latency_ms", 3.0}}));
}

TEST(PolicyMetrics, TpotPercentilesAndGoodput) {
  std::vector<policy::RequestState> requests = {
      finished(0, 5, 2, 10),  // TTFT 2, TPOT 2
      finished(1, 1, 4, 4),   // TTFT 3, no TPOT: meets any TPOT target
      finished(2, 4, 8, 17),  // TTFT 6, TPOT 3
  };
  auto metrics = policy_metrics(requests, 12, {3, 2.5});           // TTFT <= 3 and TPOT <= 2.5: the first two
  EXPECT_DOUBLE_EQ(metrics["median_tpot_ms"].get<double>(), 2.5);  // of {2, 3}
  EXPECT_DOUBLE_EQ(metrics["p95_tpot_ms"].get<double>(), 2.95);
  EXPECT_DOUBLE_EQ(metrics["p99_tpot_ms"].get<double>(), 2.99);
  EXPECT_DOUBLE_EQ(metrics["goodput_pct"].get<double>(), 200.0 / 3);
  EXPECT_DOUBLE_EQ(metrics["goodput_per_s"].get<double>(), 2 / 0.017);  // 2 requests in a makespan of 17 ms
  EXPECT_DOUBLE_EQ(policy_metrics(requests, 12, {1, 100})["goodput_pct"].get<double>(), 0);
  // The default targets (1 s, 100 ms) are met by all three.
  EXPECT_DOUBLE_EQ(policy_metrics(requests, 12)["goodput_pct"].get<double>(), 100);
}

TEST(PolicyMetrics, MakespanStartsAtTheFirstArrival) {
  // Requests in workload order need not be in arrival order.
  auto metrics = policy_metrics({finished(50, 2, 60, 70), finished(30, 2, 35, 40)}, 4);
  EXPECT_DOUBLE_EQ(metrics["makespan_ms"].get<double>(), 40);    // 70 - 30
  EXPECT_DOUBLE_EQ(metrics["tokens_per_s"].get<double>(), 100);  // 4 tokens / 0.04 s
}

TEST(PolicyMetrics, NullsWhereAMetricIsUndefined) {
  // Only one-token answers: no TPOT. Free steps: a makespan of 0, so no tokens/s.
  auto metrics = policy_metrics({finished(0, 1, 0, 0), finished(0, 1, 0, 0)}, 2);
  EXPECT_TRUE(metrics["tpot_ms"].is_null());
  EXPECT_TRUE(metrics["median_tpot_ms"].is_null());
  EXPECT_TRUE(metrics["p99_tpot_ms"].is_null());
  EXPECT_TRUE(metrics["tokens_per_s"].is_null());
  EXPECT_TRUE(metrics["goodput_per_s"].is_null());
  EXPECT_DOUBLE_EQ(metrics["makespan_ms"].get<double>(), 0);
}

TEST(Timeline, FirstRequestsPrefillAndDecodePhasesApart) {
  std::vector<policy::RequestState> requests = {finished(0, 3, 2, 9, 1), finished(0, 1, 5, 5, 0),
                                                finished(0, 2, 6, 8, 0)};
  auto entries = timeline(requests, 2);
  // Request 0: prefill 0..2 then decode 2..9 in slot 1; request 1 (n = 1): prefill only; request 2 is past K.
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0],
            (nlohmann::json{{"request", 0}, {"slot", 1}, {"phase", "prefill"}, {"start_ms", 0.0}, {"end_ms", 2.0}}));
  EXPECT_EQ(entries[1],
            (nlohmann::json{{"request", 0}, {"slot", 1}, {"phase", "decode"}, {"start_ms", 2.0}, {"end_ms", 9.0}}));
  EXPECT_EQ(entries[2],
            (nlohmann::json{{"request", 1}, {"slot", 0}, {"phase", "prefill"}, {"start_ms", 0.0}, {"end_ms", 5.0}}));
  EXPECT_EQ(timeline(requests, 0).size(), 0u);
  EXPECT_EQ(timeline(requests, 100).size(), 5u);
}

}  // namespace
}  // namespace kvlab::sim
