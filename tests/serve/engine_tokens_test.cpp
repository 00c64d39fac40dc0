// Under every policy, each request's answer from the engine equals generating that request alone: batch
// rows, padding rows, slot reuse, cache reuse, paged blocks, preemption and shared prefix blocks change
// nothing about a request's tokens.
#include <algorithm>

#include <gtest/gtest.h>

#include "common/input_error.h"

#include "model/generate.h"
#include "model/model.h"
#include "policy/kv_blocks.h"
#include "serve/run_engine.h"
#include "serve_test_support.h"
#include "sim/workload.h"

namespace kvlab::serve {
namespace {

using testing::mixed_workload;
using testing::test_policies;
using testing::tiny_model;

constexpr uint64_t kPromptSeed = 11;

// What each request generates alone, with a fresh cache (or none), from its own prompt.
std::vector<std::vector<int>> answers_alone(Model& model, const std::vector<policy::Request>& workload,
                                            bool with_cache) {
  const std::vector<std::vector<int>> prompts = served_prompts(model, workload, kPromptSeed);
  std::vector<std::vector<int>> answers;
  for (size_t i = 0; i < workload.size(); ++i) {
    const policy::Request& request = workload[i];
    KvCache cache(model.config(), request.prompt_tokens + request.answer_tokens);
    answers.push_back(with_cache ? generate_with_cache(model, cache, prompts[i], request.answer_tokens)
                                 : generate_without_cache(model, cache, prompts[i], request.answer_tokens));
  }
  return answers;
}

// The engine's options of the tests: the prompt seed, and every block table checked before every pass.
EngineOptions checked_options(const policy::KvSettings& kv = {}) {
  EngineOptions options;
  options.prompt_seed = kPromptSeed;
  options.kv = kv;
  options.check_block_tables = true;
  return options;
}

// Blocks of 4 tokens, `blocks` of them.
policy::KvSettings small_blocks(long long blocks) {
  policy::KvSettings kv;
  kv.block_tokens = 4;
  kv.budget_blocks = blocks;
  kv.budget_path = "test";
  kv.budget_given = std::to_string(4 * blocks);
  return kv;
}

// Each request's answer in `run` equals `expected`, and its times are in order.
void expect_answers(const EngineRun& run, const std::vector<policy::Request>& workload,
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
  std::vector<policy::Request> workload = mixed_workload();
  // Two late arrivals: the engine waits for them, and they join a running batch or an idle server.
  workload.push_back({3, 6, 5});
  workload.push_back({40, 2, 8});
  const auto with_cache = answers_alone(model, workload, true);
  const auto without_cache = answers_alone(model, workload, false);
  ASSERT_EQ(with_cache, without_cache);  // the two paths agree, so either is the reference

  std::vector<std::string> policies = test_policies();
  for (const char* memory_policy : {"reserve:4", "paged:4", "chunked:4,4", "chunked:4,16"})
    policies.push_back(memory_policy);
  for (const std::string& policy : policies) {
    SCOPED_TRACE(policy);
    expect_answers(run_engine(model, workload, policy, checked_options()), workload, with_cache);
  }
}

TEST(EngineTokens, MemoryPoliciesInATightBudgetAnswerAsEachRequestAlone) {
  // A KV memory of 3 blocks of 4 tokens: paged and chunked preempt by recompute (a re-admitted request
  // prefills its prompt and the tokens it already gave), chunked cuts prompts into chunks of at most 4
  // tokens that run in one pass with the decode rows, and reserve admits one request at a time.
  Model model(tiny_model());
  std::vector<policy::Request> workload = mixed_workload();
  for (policy::Request& request : workload) {
    request.prompt_tokens = std::min(request.prompt_tokens, 6);
    request.answer_tokens = std::min(request.answer_tokens, 6);
  }
  const auto expected = answers_alone(model, workload, true);
  for (const std::string policy : {"reserve:4", "paged:4", "paged:2", "chunked:4,4", "chunked:2,5"}) {
    SCOPED_TRACE(policy);
    const EngineRun run = run_engine(model, workload, policy, checked_options(small_blocks(3)));
    expect_answers(run, workload, expected);
    if (policy != "reserve:4") {
      EXPECT_GT(run.memory->preemptions, 0);
    }
    if (policy.rfind("chunked", 0) == 0) {
      EXPECT_GT(run.memory->split_prefills.value(), 0);
    }
  }
}

// With 16-bit keys and values (the engine's pool and each request's own cache in the model's format),
// every batching and memory policy still answers as each request alone in the same format.
TEST(EngineTokens, SixteenBitKvAnswersAsEachRequestAloneInItsFormat) {
  for (NumberFormat format : {NumberFormat::bf16, NumberFormat::f16}) {
    SCOPED_TRACE(number_format_name(format));
    ModelConfig config = tiny_model();
    config.kv = format;
    Model model(config);
    const std::vector<policy::Request> workload = mixed_workload();
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
std::vector<policy::Request> system_prompt_workload() {
  std::vector<policy::Request> workload = mixed_workload();
  for (policy::Request& request : workload) {
    request.prompt_tokens = 8 + std::min(request.prompt_tokens, 6);
    request.answer_tokens = std::min(request.answer_tokens, 6);
    request.system_prompt_tokens = 8;
  }
  return workload;
}

// `policy` served by the engine as run_engine() serves it, the engine kept for its block manager.
struct KeptRun {
  EngineRun run;
  std::unique_ptr<policy::Scheduler> scheduler;  // owns the block manager the engine points to
  std::unique_ptr<Engine> engine;
};
KeptRun serve_kept(Model& model, const std::vector<policy::Request>& workload, const std::string& policy,
                   const policy::KvSettings& kv) {
  KeptRun kept;
  const policy::PolicyName name = policy::parse_policy_name(policy, "policy");
  kept.scheduler = policy::make_scheduler(name, kv);
  kept.scheduler->check(workload);
  EngineOptions options = checked_options(kv);
  options.paged_kv = name.traits().keeps_kv_in_blocks;
  kept.engine = std::make_unique<Engine>(model, workload, kept.scheduler->slots(), options);
  kept.scheduler->serve(*kept.engine);
  kept.run = {kept.engine->served_requests(), kept.engine->step_log(), kept.scheduler->memory_report()};
  return kept;
}

// Whether some prefill of `run` starts at a cached prefix of at least `tokens` tokens.
bool prefills_after_prefix(const EngineRun& run, int tokens) {
  for (const StepRecord& record : run.step_log.records())
    if (record.chunks > 0 && run.step_log.contexts(record)[record.sequences] >= tokens) return true;
  return false;
}

// Preemptions and prefix hits happened, every block is back (none held), and no more block ids were
// handed out than the budget.
void expect_blocks_shared_and_back(const KeptRun& kept, long long budget_blocks) {
  EXPECT_GT(kept.run.memory->preemptions, 0);
  EXPECT_GT(kept.run.memory->blocks.prefix_hit_rate.value(), 0);
  ASSERT_NE(kept.engine->kv_blocks(), nullptr);
  EXPECT_EQ(kept.engine->kv_blocks()->held_blocks(), 0);
  EXPECT_LE(kept.engine->kv_blocks()->block_ids(), budget_blocks);
}

TEST(EngineTokens, SharedPrefixBlocksAreComputedOnceAndAnswerAsEachRequestAlone) {
  // 6 blocks of 4 tokens: requests find the system prompt's two blocks cached (a prefill computes only
  // the rest), and memory runs out, so paged and chunked preempt and recompute into fresh blocks.
  Model model(tiny_model());
  const std::vector<policy::Request> workload = system_prompt_workload();
  const auto expected = answers_alone(model, workload, true);
  for (const std::string policy : {"paged:4", "paged:2", "chunked:4,4", "chunked:4,6", "reserve:4"}) {
    SCOPED_TRACE(policy);
    const KeptRun kept = serve_kept(model, workload, policy, small_blocks(6));
    expect_answers(kept.run, workload, expected);
    if (policy == "reserve:4") continue;  // per-slot reservations: no blocks shared
    EXPECT_TRUE(prefills_after_prefix(kept.run, 8));
    expect_blocks_shared_and_back(kept, 6);
  }
}

// 9 turns of 3 conversations after a 4-token system prompt, all at t = 0: turn k + 1 of a conversation
// (request i + 3) begins with turn k's prompt and answer.
std::vector<policy::Request> chat_workload() {
  sim::GeneratedWorkload chat;
  chat.count = 9;
  chat.prompt_tokens_lo = 2;
  chat.prompt_tokens_hi = 5;
  chat.answer_tokens_lo = 2;
  chat.answer_tokens_hi = 6;
  chat.system_prompt_tokens = 4;
  chat.chat_conversations = 3;
  chat.seed = 5;
  return sim::generate_requests(chat);
}

TEST(EngineTokens, AChatsPromptsCarryEachEarlierTurnAsGeneratedAlone) {
  Model model(tiny_model());
  const std::vector<policy::Request> workload = chat_workload();
  const std::vector<std::vector<int>> prompts = served_prompts(model, workload, kPromptSeed);
  const auto alone = answers_alone(model, workload, true);
  for (size_t i = 0; i < workload.size(); ++i) {
    SCOPED_TRACE(i);
    ASSERT_EQ(static_cast<int>(prompts[i].size()), workload[i].prompt_tokens);
    EXPECT_EQ(std::vector<int>(prompts[i].begin(), prompts[i].begin() + 4),
              make_prompt(4, model.config().vocab, kPromptSeed - 1));
    if (i < 3) continue;
    const std::vector<int>& before = prompts[i - 3];
    std::vector<int> history = before;
    history.insert(history.end(), alone[i - 3].begin(), alone[i - 3].end());
    EXPECT_EQ(std::vector<int>(prompts[i].begin(), prompts[i].begin() + static_cast<std::ptrdiff_t>(history.size())),
              history);
    EXPECT_GT(prompts[i].size(), history.size());  // and new tokens of its own
  }
}

TEST(EngineTokens, AChatSharesEachTurnsBlocksWithTheNextAndAnswersAsEachTurnAlone) {
  // 10 blocks of 4 tokens: a later turn finds its conversation's earlier turn (prompt and answer) cached
  // and prefills only what is new, and memory runs out, so paged and chunked preempt and recompute.
  // Every other policy serves the same prompts, with the same answers.
  Model model(tiny_model());
  const std::vector<policy::Request> workload = chat_workload();
  const auto expected = answers_alone(model, workload, true);
  // A prefix longer than every first turn's prompt holds an earlier turn's answer.
  int first_prompts = 0;
  for (size_t i = 0; i < 3; ++i) first_prompts = std::max(first_prompts, workload[i].prompt_tokens);
  for (const std::string policy : {"paged:4", "paged:2", "chunked:4,4", "chunked:4,8"}) {
    SCOPED_TRACE(policy);
    const KeptRun kept = serve_kept(model, workload, policy, small_blocks(10));
    expect_answers(kept.run, workload, expected);
    EXPECT_TRUE(prefills_after_prefix(kept.run, first_prompts + 1));
    expect_blocks_shared_and_back(kept, 10);
  }
  std::vector<std::string> policies = test_policies();
  policies.push_back("reserve:4");
  for (const std::string& policy : policies) {
    SCOPED_TRACE(policy);
    expect_answers(run_engine(model, workload, policy, checked_options()), workload, expected);
  }
}

TEST(EngineTokens, AChatTurnShorterThanTheTurnBeforeItIsRefused) {
  Model model(tiny_model());
  std::vector<policy::Request> workload = {{0, 4, 3, 0, 7}, {0, 6, 2, 0, 7}};  // 6 < 4 + 3
  try {
    run_engine(model, workload, "paged:4", checked_options());
    FAIL() << "no error";
  } catch (const InputError& error) {
    EXPECT_EQ(error.field().path, "workload.requests[1].prompt");
    EXPECT_EQ(error.field().allowed.min, 7);
  }
  workload[1].prompt_tokens = 7;  // the earlier turn and no token of its own
  EXPECT_EQ(run_engine(model, workload, "paged:4", checked_options()).requests.size(), 2u);
}

TEST(EngineTokens, ProgressCountsFinishedRequestsUpToAll) {
  Model model(tiny_model());
  const std::vector<policy::Request> workload = mixed_workload();
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
