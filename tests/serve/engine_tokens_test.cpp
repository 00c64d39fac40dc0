// Under every policy, each request's answer from the engine equals generating that request alone: batch
// rows, padding rows, slot reuse, cache reuse, paged blocks, preemption and shared prefix blocks change
// nothing about a request's tokens.
#include <algorithm>

#include <gtest/gtest.h>

#include "common/input_error.h"

#include "model/generate.h"
#include "model/model.h"
#include "serve/run_engine.h"
#include "serve_test_support.h"
#include "sim/kv_blocks.h"

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
    std::vector<int> prompt = request_prompt(request, i, model.config().vocab, kPromptSeed);
    KvCache cache(model.config(), request.prompt_tokens + request.answer_tokens);
    answers.push_back(with_cache ? generate_with_cache(model, cache, prompt, request.answer_tokens)
                                 : generate_without_cache(model, cache, prompt, request.answer_tokens));
  }
  return answers;
}

// Each request's answer in `run` equals `expected`, and its times are in order.
void expect_answers(const EngineRun& run, const std::vector<sim::Request>& workload,
                    const std::vector<std::vector<int>>& expected) {
  ASSERT_EQ(run.requests.size(), workload.size());
  for (size_t i = 0; i < workload.size(); ++i) {
    SCOPED_TRACE(i);
    const ServedRequest& served = run.requests[i];
    EXPECT_EQ(served.answer, expected[i]);
    EXPECT_EQ(served.state.answer_tokens_out, workload[i].answer_tokens);
    EXPECT_LE(served.state.request.arrival_ms, served.state.prefill_start_ms);
    EXPECT_LE(served.state.prefill_start_ms, served.state.first_token_ms);
    EXPECT_LE(served.state.first_token_ms, served.state.finish_ms);
  }
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

  std::vector<std::string> policies = test_policies();
  for (const char* memory_policy : {"reserve:4", "paged:4", "chunked:4,4", "chunked:4,16"}) policies.push_back(memory_policy);
  for (const std::string& policy : policies) {
    SCOPED_TRACE(policy);
    EngineOptions options;
    options.prompt_seed = kPromptSeed;
    expect_answers(run_engine(model, workload, policy, options), workload, with_cache);
  }
}

TEST(EngineTokens, MemoryPoliciesInATightBudgetAnswerAsEachRequestAlone) {
  // A KV memory of 3 blocks of 4 tokens: paged and chunked preempt by recompute (a re-admitted request
  // prefills its prompt and the tokens it already gave), chunked cuts prompts into chunks of at most 4
  // tokens that run in one pass with the decode rows, and reserve admits one request at a time.
  Model model(tiny_model());
  std::vector<sim::Request> workload = mixed_workload();
  for (sim::Request& request : workload) {
    request.prompt_tokens = std::min(request.prompt_tokens, 6);
    request.answer_tokens = std::min(request.answer_tokens, 6);
  }
  const auto expected = answers_alone(model, workload, true);
  sim::KvSettings kv;
  kv.block_tokens = 4;
  kv.budget_blocks = 3;
  kv.budget_path = "test";
  kv.budget_given = "12";
  for (const std::string policy : {"reserve:4", "paged:4", "paged:2", "chunked:4,4", "chunked:2,5"}) {
    SCOPED_TRACE(policy);
    EngineOptions options;
    options.prompt_seed = kPromptSeed;
    options.kv = kv;
    const EngineRun run = run_engine(model, workload, policy, options);
    expect_answers(run, workload, expected);
    if (policy != "reserve:4") {
      EXPECT_GT(run.policy_report["preemptions"].get<long long>(), 0);
    }
    if (policy.rfind("chunked", 0) == 0) {
      EXPECT_GT(run.policy_report["split_prefills"].get<long long>(), 0);
    }
  }
}

// With 16-bit keys and values (the engine's pool and each request's own cache in the model's format),
// every batching and memory policy still answers as each request alone in the same format.
TEST(EngineTokens, SixteenBitKvAnswersAsEachRequestAloneInItsFormat) {
  for (KvFormat format : {KvFormat::bf16, KvFormat::f16}) {
    SCOPED_TRACE(kv_format_name(format));
    ModelConfig config = tiny_model();
    config.kv = format;
    Model model(config);
    const std::vector<sim::Request> workload = mixed_workload();
    const auto expected = answers_alone(model, workload, true);
    ASSERT_EQ(expected, answers_alone(model, workload, false));
    for (const std::string policy : {"continuous:4", "paged:4", "chunked:4,4"}) {
      SCOPED_TRACE(policy);
      EngineOptions options;
      options.prompt_seed = kPromptSeed;
      expect_answers(run_engine(model, workload, policy, options), workload, expected);
    }
  }
}

// A system prompt of 8 tokens (two blocks of 4) before every prompt.
std::vector<sim::Request> system_prompt_workload() {
  std::vector<sim::Request> workload = mixed_workload();
  for (sim::Request& request : workload) {
    request.prompt_tokens = 8 + std::min(request.prompt_tokens, 6);
    request.answer_tokens = std::min(request.answer_tokens, 6);
    request.system_prompt_tokens = 8;
  }
  return workload;
}

TEST(EngineTokens, SharedPrefixBlocksAreComputedOnceAndAnswerAsEachRequestAlone) {
  // 6 blocks of 4 tokens: requests find the system prompt's two blocks cached (a prefill computes only
  // the rest), and memory runs out, so paged and chunked preempt and recompute into fresh blocks.
  Model model(tiny_model());
  const std::vector<sim::Request> workload = system_prompt_workload();
  const auto expected = answers_alone(model, workload, true);
  sim::KvSettings kv;
  kv.block_tokens = 4;
  kv.budget_blocks = 6;
  for (const std::string policy : {"paged:4", "paged:2", "chunked:4,4", "chunked:4,6", "reserve:4"}) {
    SCOPED_TRACE(policy);
    std::unique_ptr<sim::Scheduler> scheduler = make_scheduler(policy, "policy", workload, kv);
    scheduler->check(workload);
    EngineOptions options;
    options.prompt_seed = kPromptSeed;
    options.kv = kv;
    options.paged_kv = keeps_kv_in_blocks(policy);
    Engine engine(model, workload, scheduler->slots(), options);
    scheduler->serve(engine);
    EngineRun run{engine.served_requests(), engine.step_log(), nlohmann::json::object()};
    scheduler->report(run.policy_report);
    expect_answers(run, workload, expected);
    if (policy == "reserve:4") continue;  // per-slot reservations: no blocks shared
    EXPECT_GT(run.policy_report["preemptions"].get<long long>(), 0);
    EXPECT_GT(run.policy_report["prefix_hit_rate"].get<double>(), 0);
    // Prefills after a cached prefix start past it.
    bool prefill_after_prefix = false;
    for (const StepRecord& record : run.step_log.records())
      prefill_after_prefix |= record.chunks > 0 && run.step_log.contexts(record)[record.sequences] >= 8;
    EXPECT_TRUE(prefill_after_prefix);
    // Every block is back: none held, the system prompt's still cached for the next request.
    ASSERT_NE(engine.kv_blocks(), nullptr);
    EXPECT_EQ(engine.kv_blocks()->held_blocks(), 0);
    EXPECT_LE(engine.kv_blocks()->block_ids(), 6);
  }
}

TEST(EngineTokens, PagedAndChunkedRefuseAChat) {
  Model model(tiny_model());
  std::vector<sim::Request> workload = mixed_workload();
  for (size_t i = 0; i < workload.size(); ++i) workload[i].conversation = static_cast<int>(i % 2);
  EngineOptions options;
  options.prompt_seed = kPromptSeed;
  EXPECT_THROW(run_engine(model, workload, "paged:4", options), InputError);
  EXPECT_THROW(run_engine(model, workload, "chunked:4,8", options), InputError);
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
