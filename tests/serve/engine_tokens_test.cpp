// Under every policy, each request's answer from the engine equals generating that request alone: batch
// rows, padding rows, slot reuse and cache reuse change nothing about a request's tokens.
#include <gtest/gtest.h>

#include "model/generate.h"
#include "model/model.h"
#include "serve/run_engine.h"
#include "serve_test_support.h"

namespace kvlab::serve {
namespace {

using testing::mixed_workload;
using testing::test_policies;
using testing::tiny_model;

constexpr uint64_t kPromptSeed = 11;

// What each request generates alone, with a fresh cache (or none), from its own prompt.
std::vector<std::vector<int>> answers_alone(Model& model, const std::vector<sim::Request>& workload, bool with_cache) {
  std::vector<std::vector<int>> answers;
  for (size_t i = 0; i < workload.size(); ++i) {
    const sim::Request& request = workload[i];
    std::vector<int> prompt = make_prompt(request.prompt_tokens, model.config().vocab, kPromptSeed + i);
    KvCache cache(model.config(), request.prompt_tokens + request.answer_tokens);
    answers.push_back(with_cache ? generate_with_cache(model, cache, prompt, request.answer_tokens)
                                 : generate_without_cache(model, cache, prompt, request.answer_tokens));
  }
  return answers;
}

TEST(EngineTokens, EveryPolicyAnswersAsEachRequestAlone) {
  Model model(tiny_model());
  std::vector<sim::Request> workload = mixed_workload();
  // Two late arrivals: the engine waits for them, and they join a running batch or an idle server.
  workload.push_back({3, 6, 5});
  workload.push_back({40, 2, 8});
  const auto with_cache = answers_alone(model, workload, true);
  const auto without_cache = answers_alone(model, workload, false);
  ASSERT_EQ(with_cache, without_cache);  // the two paths agree, so either is the reference

  for (const std::string& policy : test_policies()) {
    SCOPED_TRACE(policy);
    EngineOptions options;
    options.prompt_seed = kPromptSeed;
    EngineRun run = run_engine(model, workload, policy, options);
    ASSERT_EQ(run.requests.size(), workload.size());
    for (size_t i = 0; i < workload.size(); ++i) {
      SCOPED_TRACE(i);
      const ServedRequest& served = run.requests[i];
      EXPECT_EQ(served.answer, with_cache[i]);
      EXPECT_EQ(served.state.answer_tokens_out, workload[i].answer_tokens);
      EXPECT_LE(served.state.request.arrival_ms, served.state.prefill_start_ms);
      EXPECT_LE(served.state.prefill_start_ms, served.state.first_token_ms);
      EXPECT_LE(served.state.first_token_ms, served.state.finish_ms);
    }
  }
}

TEST(EngineTokens, ProgressCountsFinishedRequestsUpToAll) {
  Model model(tiny_model());
  const std::vector<sim::Request> workload = mixed_workload();
  std::vector<size_t> reports;
  EngineOptions options;
  options.progress = [&](size_t finished) { reports.push_back(finished); };
  run_engine(model, workload, "continuous:4", options);
  ASSERT_FALSE(reports.empty());
  EXPECT_EQ(reports.back(), workload.size());
  for (size_t i = 1; i < reports.size(); ++i) EXPECT_LT(reports[i - 1], reports[i]);
}

}  // namespace
}  // namespace kvlab::serve
