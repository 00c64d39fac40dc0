// The contract's metrics and the timeline on hand-made request times.
#include "sim/metrics.h"

#include <gtest/gtest.h>

#include <string>
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
  const PolicyMetrics metrics = policy_metrics(requests, 12);
  EXPECT_DOUBLE_EQ(metrics.median_ttft_ms, 3);
  EXPECT_DOUBLE_EQ(metrics.p95_ttft_ms, 5.7);   // rank 1.9: 3 + 0.9 * 3
  EXPECT_DOUBLE_EQ(metrics.p99_ttft_ms, 5.94);  // rank 1.98
  EXPECT_DOUBLE_EQ(metrics.median_latency_ms, 10);
  EXPECT_DOUBLE_EQ(metrics.p95_latency_ms, 14.5);  // 10 + 0.9 * 5
  EXPECT_DOUBLE_EQ(metrics.makespan_ms, 17);       // last finish 17 - first arrival 0
  ASSERT_TRUE(metrics.tokens_per_s);
  EXPECT_DOUBLE_EQ(*metrics.tokens_per_s, 10 / 0.017);
  ASSERT_TRUE(metrics.tpot_ms);
  EXPECT_DOUBLE_EQ(*metrics.tpot_ms, 2.5);
  EXPECT_EQ(metrics.steps, 12);
  ASSERT_EQ(metrics.requests.size(), 3u);
  const RequestTimes& second = metrics.requests[1];
  EXPECT_EQ(second.arrival_ms, 1);
  EXPECT_EQ(second.first_token_ms, 4);
  EXPECT_EQ(second.finish_ms, 4);
  EXPECT_EQ(second.latency_ms, 3);
}

TEST(PolicyMetrics, TpotPercentilesAndGoodput) {
  std::vector<policy::RequestState> requests = {
      finished(0, 5, 2, 10),  // TTFT 2, TPOT 2
      finished(1, 1, 4, 4),   // TTFT 3, no TPOT: meets any TPOT target
      finished(2, 4, 8, 17),  // TTFT 6, TPOT 3
  };
  const PolicyMetrics metrics = policy_metrics(requests, 12, {3, 2.5});  // TTFT <= 3 and TPOT <= 2.5: the first two
  ASSERT_TRUE(metrics.median_tpot_ms && metrics.p95_tpot_ms && metrics.p99_tpot_ms && metrics.goodput_per_s);
  EXPECT_DOUBLE_EQ(*metrics.median_tpot_ms, 2.5);  // of {2, 3}
  EXPECT_DOUBLE_EQ(*metrics.p95_tpot_ms, 2.95);
  EXPECT_DOUBLE_EQ(*metrics.p99_tpot_ms, 2.99);
  EXPECT_DOUBLE_EQ(metrics.goodput_pct, 200.0 / 3);
  EXPECT_DOUBLE_EQ(*metrics.goodput_per_s, 2 / 0.017);  // 2 requests in a makespan of 17 ms
  EXPECT_DOUBLE_EQ(policy_metrics(requests, 12, {1, 100}).goodput_pct, 0);
  // The default targets (1 s, 100 ms) are met by all three.
  EXPECT_DOUBLE_EQ(policy_metrics(requests, 12).goodput_pct, 100);
}

TEST(PolicyMetrics, MakespanStartsAtTheFirstArrival) {
  // Requests in workload order need not be in arrival order.
  const PolicyMetrics metrics = policy_metrics({finished(50, 2, 60, 70), finished(30, 2, 35, 40)}, 4);
  EXPECT_DOUBLE_EQ(metrics.makespan_ms, 40);  // 70 - 30
  ASSERT_TRUE(metrics.tokens_per_s);
  EXPECT_DOUBLE_EQ(*metrics.tokens_per_s, 100);  // 4 tokens / 0.04 s
}

TEST(PolicyMetrics, NoneWhereAMetricIsUndefined) {
  // Only one-token answers: no TPOT. Free steps: a makespan of 0, so no tokens/s.
  const PolicyMetrics metrics = policy_metrics({finished(0, 1, 0, 0), finished(0, 1, 0, 0)}, 2);
  EXPECT_FALSE(metrics.tpot_ms);
  EXPECT_FALSE(metrics.median_tpot_ms);
  EXPECT_FALSE(metrics.p99_tpot_ms);
  EXPECT_FALSE(metrics.tokens_per_s);
  EXPECT_FALSE(metrics.goodput_per_s);
  EXPECT_DOUBLE_EQ(metrics.makespan_ms, 0);
}

TEST(PolicyMetrics, JsonHasTheContractKeysWithNullForNone) {
  const nlohmann::json zero = policy_metrics({finished(0, 1, 0, 0), finished(0, 1, 0, 0)}, 2).to_json();
  std::vector<std::string> keys;
  for (const auto& item : zero.items()) keys.push_back(item.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"goodput_pct", "goodput_per_s", "makespan_ms", "median_latency_ms",
                                            "median_tpot_ms", "median_ttft_ms", "p95_latency_ms", "p95_tpot_ms",
                                            "p95_ttft_ms", "p99_tpot_ms", "p99_ttft_ms", "requests", "steps",
                                            "tokens_per_s", "tpot_ms"}));
  for (const char* key : {"tokens_per_s", "goodput_per_s", "tpot_ms", "median_tpot_ms", "p95_tpot_ms", "p99_tpot_ms"})
    EXPECT_TRUE(zero[key].is_null()) << key;
  EXPECT_EQ(zero["makespan_ms"], 0.0);
  EXPECT_EQ(zero["steps"], 2);
  EXPECT_TRUE(zero["steps"].is_number_integer());

  const nlohmann::json hand =
      policy_metrics({finished(0, 5, 2, 10), finished(1, 1, 4, 4), finished(2, 4, 8, 17)}, 12).to_json();
  EXPECT_DOUBLE_EQ(hand["tokens_per_s"].get<double>(), 10 / 0.017);
  EXPECT_DOUBLE_EQ(hand["tpot_ms"].get<double>(), 2.5);
  EXPECT_DOUBLE_EQ(hand["median_ttft_ms"].get<double>(), 3);
  EXPECT_EQ(hand["requests"][1],
            (nlohmann::json{{"arrival_ms", 1.0}, {"first_token_ms", 4.0}, {"finish_ms", 4.0}, {"latency_ms", 3.0}}));
}

TEST(Timeline, FirstRequestsPrefillAndDecodePhasesApart) {
  std::vector<policy::RequestState> requests = {finished(0, 3, 2, 9, 1), finished(0, 1, 5, 5, 0),
                                                finished(0, 2, 6, 8, 0)};
  const std::vector<TimelineSpan> spans = timeline(requests, 2);
  // Request 0: prefill 0..2 then decode 2..9 in slot 1; request 1 (n = 1): prefill only; request 2 is past K.
  ASSERT_EQ(spans.size(), 3u);
  auto expect_span = [&](size_t i, size_t request, int slot, TimelinePhase phase, double start_ms, double end_ms) {
    SCOPED_TRACE(i);
    EXPECT_EQ(spans[i].request, request);
    EXPECT_EQ(spans[i].slot, slot);
    EXPECT_EQ(spans[i].phase, phase);
    EXPECT_EQ(spans[i].start_ms, start_ms);
    EXPECT_EQ(spans[i].end_ms, end_ms);
  };
  expect_span(0, 0, 1, TimelinePhase::prefill, 0, 2);
  expect_span(1, 0, 1, TimelinePhase::decode, 2, 9);
  expect_span(2, 1, 0, TimelinePhase::prefill, 0, 5);
  EXPECT_EQ(timeline(requests, 0).size(), 0u);
  EXPECT_EQ(timeline(requests, 100).size(), 5u);
  const nlohmann::json entries = timeline_json(spans);
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[1],
            (nlohmann::json{{"request", 0}, {"slot", 1}, {"phase", "decode"}, {"start_ms", 2.0}, {"end_ms", 9.0}}));
}

}  // namespace
}  // namespace kvlab::sim
