// Properties of the KV-memory policies on random workloads: no memory limit means continuous batching to
// the bit; a binding budget is never exceeded and every request still finishes once; ample memory never
// preempts; chunked prefill never cuts a prompt that fits, and follows closed forms on constant costs.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/input_error.h"
#include "sim/simulate.h"
#include "sim_test_support.h"

namespace kvlab::sim {
namespace {

using nlohmann::json;
using testing::expect_same_times;
using testing::kv_blocks;
using testing::measured_like_steps;
using testing::random_requests;
using testing::serve;

// Requests that share prefixes: a system prompt of 40 tokens, and conversations of every fifth request.
std::vector<policy::Request> sharing(std::vector<policy::Request> requests) {
  for (size_t i = 0; i < requests.size(); ++i) {
    requests[i].system_prompt_tokens = 40;
    requests[i].prompt_tokens += 40;
    if (i % 5 == 0) requests[i].conversation = static_cast<int>(i % 3);
  }
  return requests;
}

TEST(KvPolicies, WithoutALimitReserveAndPagedAreContinuousToTheBit) {
  for (uint64_t seed : {1, 2}) {
    for (double rate_per_s : {50.0, 5000.0}) {
      auto requests = random_requests(seed, 300, rate_per_s);
      for (int slots : {1, 4, 16}) {
        auto continuous = serve(measured_like_steps(), requests, "continuous:" + std::to_string(slots));
        for (const char* family : {"reserve:", "paged:"}) {
          std::string policy = family + std::to_string(slots);
          expect_same_times(serve(measured_like_steps(), requests, policy), continuous, policy);
        }
      }
    }
  }
  // And so every key the contract's policies report, through simulate_json().
  json workload = testing::workload_json(random_requests(3, 200, 800));
  json result = simulate_json(measured_like_steps(), workload, {"continuous:8", "reserve:8", "paged:8"});
  for (const auto& [key, value] : result["continuous:8"].items()) {
    EXPECT_EQ(result["reserve:8"][key], value) << key;
    EXPECT_EQ(result["paged:8"][key], value) << key;
  }
}

TEST(KvPolicies, BlocksNeverExceedTheBudgetAndEveryRequestFinishesOnce) {
  long long preemptions = 0;
  for (uint64_t seed : {4, 5}) {
    for (bool shared : {false, true}) {
      auto requests = random_requests(seed, 300, 2000);
      if (shared) requests = sharing(requests);
      for (long long budget_blocks : {20, 60}) {  // the longest request needs up to 18 blocks of 16
        for (const char* policy : {"reserve:8", "paged:8", "chunked:8,64", "chunked:16,512"}) {
          SCOPED_TRACE(std::string(policy) + " seed " + std::to_string(seed) + " budget " +
                       std::to_string(budget_blocks) + (shared ? " shared" : ""));
          auto served = serve(measured_like_steps(), requests, policy, kv_blocks(budget_blocks, 16));  // finished once
          EXPECT_LE(served.memory->blocks.peak_blocks, budget_blocks);
          // Held by name: a range-for over a member of a temporary would read it after its end.
          const json series = served.memory->blocks.blocks_in_use.to_json("blocks");
          for (const json& blocks : series["blocks"]) EXPECT_LE(blocks.get<double>(), budget_blocks);
          for (const policy::RequestState& state : served.requests) {
            EXPECT_GE(state.prefill_start_ms, state.request.arrival_ms);
            EXPECT_LT(state.prefill_start_ms, state.first_token_ms);
            EXPECT_LE(state.first_token_ms, state.finish_ms);
          }
          preemptions += served.memory->preemptions;
        }
      }
    }
  }
  EXPECT_GT(preemptions, 0);  // the budgets bind
}

TEST(KvPolicies, AmpleMemoryNeverPreempts) {
  // Memory for every request's whole sequence at once: the limit never binds, so the results are those
  // without a limit.
  auto requests = sharing(random_requests(6, 300, 3000));
  long long all_blocks = 0;
  for (const policy::Request& r : requests) all_blocks += (r.prompt_tokens + 40 + 15) / 16;  // reserve holds p + 40 - 1
  for (const char* policy : {"reserve:16", "paged:16", "chunked:16,256"}) {
    auto limited = serve(measured_like_steps(), requests, policy, kv_blocks(all_blocks, 16));
    auto unlimited = serve(measured_like_steps(), requests, policy, kv_blocks(1'000'000, 16));
    EXPECT_EQ(limited.memory->preemptions, 0) << policy;
    expect_same_times(limited, unlimited, policy);
  }
}

TEST(ChunkedPrefill, NeverCutsAPromptWhenTheBudgetHoldsItAndEveryRow) {
  for (uint64_t seed : {7, 8}) {
    for (double rate_per_s : {100.0, 10000.0}) {
      auto requests = random_requests(seed, 300, rate_per_s);
      int longest_prompt = 0;
      for (const policy::Request& r : requests) longest_prompt = std::max(longest_prompt, r.prompt_tokens);
      for (int slots : {1, 4, 16}) {
        std::string policy = "chunked:" + std::to_string(slots) + "," + std::to_string(longest_prompt + slots);
        auto served = serve(measured_like_steps(), requests, policy);
        EXPECT_EQ(served.memory->split_prefills.value(), 0) << policy;
        for (const policy::RequestState& state : served.requests) EXPECT_EQ(state.admissions, 1) << policy;
      }
    }
  }
}

TEST(ChunkedPrefill, OneRequestAtATimeIsSerialWithACache) {
  // Arrivals far apart, so that each request is alone: its whole prompt is a step of its own (prefill(p),
  // the chunk from 0 paying the fixed part) and each token a one-row decode step, as under serial-cache
  // and continuous:B, to the bit.
  auto requests = random_requests(9, 200, 0.001);
  auto serial = serve(measured_like_steps(), requests, "serial-cache");
  auto continuous = serve(measured_like_steps(), requests, "continuous:4");
  auto chunked = serve(measured_like_steps(), requests, "chunked:4,300");
  for (size_t i = 0; i < requests.size(); ++i) {
    EXPECT_EQ(chunked.requests[i].first_token_ms, serial.requests[i].first_token_ms) << i;
    EXPECT_EQ(chunked.requests[i].finish_ms, serial.requests[i].finish_ms) << i;
  }
  expect_same_times(chunked, continuous, "chunked vs continuous");
}

TEST(ChunkedPrefill, ConstantCostsAndEqualRequestsFollowAClosedForm) {
  // prefill P = 3 ms and decode step D = 2 ms whatever the rows and contexts, so a prompt riding in a step
  // that another chunk or a decode row already pays for costs prefill(5) - prefill(0) = 0. N = 10 requests
  // at t = 0, p = 5, n = 4, chunked:4,24: all 4 prompts of a batch fit one step (20 tokens), which costs P;
  // then 3 decode steps. Batch j: first tokens at (j + 1) P + 3 j D, finish at (j + 1) (P + 3 D). (continuous:4
  // pays each prompt alone: 10 P + 9 D in all, against 3 P + 9 D here.)
  const double P = 3, D = 2;
  std::vector<policy::Request> requests(10, policy::Request{0, 5, 4});
  auto served = serve(testing::constant_steps(P, D), requests, "chunked:4,24");
  for (int i = 0; i < 10; ++i) {
    int j = i / 4;
    testing::expect_times(served.requests[i], (j + 1) * P + 3 * j * D, (j + 1) * (P + 3 * D), i % 4);
  }
}

// The InputError message of a simulate_json() call with `options`.
std::string error_of(const json& workload, const std::vector<std::string>& policies, const SimulateOptions& options) {
  try {
    simulate_json(testing::linear_steps(), workload, policies, options);
  } catch (const InputError& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(KvPolicies, ABudgetTooSmallForOneRequestIsAnError) {
  // p = 30, n = 20 needs 49 positions (4 blocks of 16) alone; reserve needs p + the longest answer (40) - 1.
  json workload = testing::workload_json({{0, 30, 20}, {0, 10, 40}});
  SimulateOptions options;
  options.kv_tokens = 48;  // 3 blocks
  EXPECT_EQ(error_of(workload, {"paged:4"}, options),
            "policy paged:4: options.kv_tokens = 48 holds 3 blocks of 16 tokens, but request 0 alone needs 4 (prompt "
            "+ answer - 1 = 49 positions)");
  EXPECT_EQ(error_of(workload, {"continuous:4", "chunked:4,8"}, options),
            "policy chunked:4,8: options.kv_tokens = 48 holds 3 blocks of 16 tokens, but request 0 alone needs 4 "
            "(prompt + answer - 1 = 49 positions)");
  options.kv_tokens = 64;  // 4 blocks: paged fits, reserve (30 + 40 - 1 = 69 positions, 5 blocks) does not
  EXPECT_EQ(error_of(workload, {"paged:4"}, options), "(no error)");
  EXPECT_EQ(error_of(workload, {"paged:4", "reserve:4"}, options),
            "policy reserve:4: options.kv_tokens = 64 holds 4 blocks of 16 tokens, but request 0 alone needs 5 (prompt "
            "+ the longest answer - 1 = 69 positions)");
  options.kv_tokens = 15;
  EXPECT_EQ(error_of(workload, {"paged:4"}, options),
            "options.kv_tokens = 15 is less than one block of options.block_tokens = 16 tokens");
  // The contract's policies model no memory: a budget leaves them as they are.
  options.kv_tokens = 64;
  json limited = simulate_json(testing::linear_steps(), workload, {"continuous:4"}, options);
  json unlimited = simulate_json(testing::linear_steps(), workload, {"continuous:4"});
  EXPECT_EQ(limited, unlimited);
}

}  // namespace
}  // namespace kvlab::sim
