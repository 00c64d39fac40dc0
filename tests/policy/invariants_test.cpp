// Properties that hold for any workload: on random ones, every request is served exactly once, in a slot
// of its own; B = 1 batching is serial with a cache; and with constant step costs and equal requests the
// batching policies follow closed forms.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "sim/workload.h"
#include "sim_test_support.h"

namespace kvlab::sim {
namespace {

using nlohmann::json;
using testing::measured_like_steps;
using testing::random_requests;
using testing::serve;

// Times are ordered for every request, and no two requests share a slot at the same time.
void expect_consistent(const std::vector<policy::RequestState>& requests, int slots, const std::string& policy) {
  std::map<int, std::vector<const policy::RequestState*>> by_slot;
  for (const policy::RequestState& state : requests) {
    EXPECT_GE(state.prefill_start_ms, state.request.arrival_ms) << policy;
    EXPECT_LT(state.prefill_start_ms, state.first_token_ms) << policy;
    EXPECT_LE(state.first_token_ms, state.finish_ms) << policy;
    EXPECT_GE(state.slot, 0) << policy;
    EXPECT_LT(state.slot, slots) << policy;
    by_slot[state.slot].push_back(&state);
  }
  for (auto& [slot, occupants] : by_slot) {
    std::sort(occupants.begin(), occupants.end(), [](const policy::RequestState* a, const policy::RequestState* b) {
      return a->prefill_start_ms < b->prefill_start_ms;
    });
    for (size_t i = 1; i < occupants.size(); ++i)
      EXPECT_LE(occupants[i - 1]->finish_ms, occupants[i]->prefill_start_ms) << policy << " slot " << slot;
  }
}

TEST(Invariants, RandomWorkloadsServeEveryRequestOnce) {
  for (uint64_t seed : {1, 2, 3}) {
    for (double rate_per_s : {20.0, 300.0, 5000.0}) {  // from mostly idle to a long queue
      auto requests = random_requests(seed, 300, rate_per_s);
      for (const auto& [policy, slots] : std::vector<std::pair<std::string, int>>{{"serial-nocache", 1},
                                                                                  {"serial-cache", 1},
                                                                                  {"static:4", 4},
                                                                                  {"continuous:4", 4},
                                                                                  {"static:16", 16},
                                                                                  {"continuous:16", 16},
                                                                                  {"continuous:1000", 1000}}) {
        SCOPED_TRACE(policy + " seed " + std::to_string(seed) + " rate " + std::to_string(rate_per_s));
        auto served = serve(measured_like_steps(), requests, policy);  // checks every request finished once
        expect_consistent(served.requests, slots, policy);
      }
    }
  }
}

TEST(Invariants, SerialPoliciesNeverIdleWhileARequestWaits) {
  auto requests = random_requests(4, 300, 300.0);
  for (const char* policy : {"serial-nocache", "serial-cache"}) {
    auto served = serve(measured_like_steps(), requests, policy);
    std::vector<const policy::RequestState*> by_start;
    for (const auto& state : served.requests) by_start.push_back(&state);
    std::sort(by_start.begin(), by_start.end(), [](const policy::RequestState* a, const policy::RequestState* b) {
      return a->prefill_start_ms < b->prefill_start_ms;
    });
    double free_at_ms = 0;
    for (const policy::RequestState* state : by_start) {
      EXPECT_EQ(state->prefill_start_ms, std::max(free_at_ms, state->request.arrival_ms)) << policy;
      free_at_ms = state->finish_ms;
    }
  }
}

TEST(Invariants, OneSlotBatchingIsSerialWithACache) {
  for (uint64_t seed : {5, 6}) {
    for (double rate_per_s : {50.0, 2000.0}) {
      auto requests = random_requests(seed, 400, rate_per_s);
      auto serial = serve(measured_like_steps(), requests, "serial-cache");
      for (const char* policy : {"static:1", "continuous:1"}) {
        auto batched = serve(measured_like_steps(), requests, policy);
        EXPECT_EQ(batched.steps_run, serial.steps_run) << policy;
        for (size_t i = 0; i < requests.size(); ++i) {
          EXPECT_EQ(batched.requests[i].first_token_ms, serial.requests[i].first_token_ms)
              << policy << " request " << i;
          EXPECT_EQ(batched.requests[i].finish_ms, serial.requests[i].finish_ms) << policy << " request " << i;
        }
      }
    }
  }
}

TEST(Invariants, ConstantCostsAndEqualRequestsFollowClosedForms) {
  // prefill P = 3 ms, decode step D = 2 ms whatever the rows and contexts; N = 10 requests at t = 0, each
  // p = 5, n = 4. Under static:B and continuous:B alike, batch j holds R_j = min(B, N - jB) requests and
  // starts at T_j = sum_{m<j} (R_m P + (n - 1) D); its member i has its first token at T_j + (i + 1) P
  // and finishes with the whole batch at T_j + R_j P + (n - 1) D. (Continuous admits B at once, and all
  // B finish on the same step, so it rebuilds exactly these batches.)
  const double P = 3, D = 2;
  const int N = 10, B = 4, n = 4;
  std::vector<policy::Request> requests(N, policy::Request{0, 5, n});
  for (const char* policy : {"static:4", "continuous:4"}) {
    auto served = serve(testing::constant_steps(P, D), requests, policy);
    double batch_start_ms = 0;
    for (int j = 0; j * B < N; ++j) {
      int rows = std::min(B, N - j * B);
      double batch_end_ms = batch_start_ms + rows * P + (n - 1) * D;
      for (int i = 0; i < rows; ++i)
        testing::expect_times(served.requests[j * B + i], batch_start_ms + (i + 1) * P, batch_end_ms, i);
      batch_start_ms = batch_end_ms;
    }
    EXPECT_DOUBLE_EQ(batch_start_ms, N * P + 3 * (n - 1) * D) << policy;  // ceil(10 / 4) = 3 batches
  }
  // serial-cache: request i runs alone from i (P + (n - 1) D).
  auto serial = serve(testing::constant_steps(P, D), requests, "serial-cache");
  for (int i = 0; i < N; ++i)
    testing::expect_times(serial.requests[i], i * (P + (n - 1) * D) + P, (i + 1) * (P + (n - 1) * D), 0);
}

TEST(Invariants, OneTokenAnswersAreBackToBackPrefills) {
  // With n = 1 every policy is N prefills in a row: request i finishes at (i + 1) P.
  std::vector<policy::Request> requests(7, policy::Request{0, 5, 1});
  for (const char* policy : {"serial-nocache", "serial-cache", "static:3", "continuous:3"}) {
    auto served = serve(testing::constant_steps(3, 2), requests, policy);
    EXPECT_EQ(served.steps_run, 7) << policy;
    for (int i = 0; i < 7; ++i) EXPECT_DOUBLE_EQ(served.requests[i].finish_ms, (i + 1) * 3.0) << policy;
  }
}

}  // namespace
}  // namespace kvlab::sim
