// replay(): options are checked before anything runs, with errors that name the field; a small replay
// on the tiny model has the documented shape with finite numbers.
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/input_error.h"
#include "experiments/replay.h"
#include "experiments/replay_report.h"
#include "model/model.h"
#include "serve/run_engine.h"
#include "serve_test_support.h"

namespace kvlab::experiments {
namespace {

using nlohmann::json;
using serve::testing::tiny_measure_options;
using serve::testing::workload_json;

// Reading `options` (tiny-model measure options merged in) throws an InputError whose message contains `field`.
void expect_error_naming(json options, const std::string& field, ErrorKind kind = ErrorKind::range) {
  if (!options.contains("measure")) options["measure"] = tiny_measure_options();
  SCOPED_TRACE(options.dump());
  try {
    read_replay_options(options);
    ADD_FAILURE() << "no error";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find(field), std::string::npos) << error.what();
    EXPECT_EQ(error.kind(), kind) << error.what();
  }
}

TEST(ReplayOptions, DefaultsAreTheIssuesWorkload) {
  ReplayOptions o = read_replay_options(json::object());
  EXPECT_EQ(o.measure.preset, "small");
  EXPECT_EQ(o.measure.runs, 1);  // Part A is not used, so it is as small as it can be
  EXPECT_EQ(o.measure.prompt_tokens, 1);
  EXPECT_EQ(o.measure.answer_tokens, 1);
  EXPECT_EQ(read_replay_options({{"measure", {{"runs", 3}}}}).measure.runs, 3);
  EXPECT_EQ(o.requests.size(), 64u);
  std::vector<std::string> names;
  for (const sim::NamedPolicy& named : o.policies) names.push_back(named.name);
  EXPECT_EQ(names, (std::vector<std::string>{"serial-nocache", "serial-cache", "static:8", "continuous:8"}));
  EXPECT_EQ(o.nocache_requests, 16);
  EXPECT_EQ(requests_for(o, o.policies[0].policy).size(), 16u);
  EXPECT_EQ(requests_for(o, o.policies[3].policy).size(), 64u);
  for (const policy::Request& request : o.requests) {
    EXPECT_EQ(request.arrival_ms, 0);
    EXPECT_GE(request.prompt_tokens, 8);
    EXPECT_LE(request.prompt_tokens, 32);
    EXPECT_GE(request.answer_tokens, 16);
    EXPECT_LE(request.answer_tokens, 48);
  }
}

TEST(ReplayOptions, MeasuresEveryBatchSizeThePoliciesRunUpTo16) {
  EXPECT_EQ(read_replay_options(json::object()).measure.decode_rows, (std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(read_replay_options({{"policies", {"serial-cache"}}}).measure.decode_rows, (std::vector<int>{1, 2}));
  EXPECT_EQ(read_replay_options({{"policies", {"static:3", "continuous:16"}}}).measure.decode_rows.size(), 16u);
  // Past 16 (a grid's longest list), measure()'s own grid, which the simulator extrapolates.
  EXPECT_EQ(read_replay_options({{"policies", {"continuous:32"}}}).measure.decode_rows, MeasureOptions{}.decode_rows);
  EXPECT_EQ(read_replay_options({{"measure", {{"decode_rows", {1, 8}}}}}).measure.decode_rows,
            (std::vector<int>{1, 8}));
}

TEST(ReplayOptions, MeasuresTheMixedGridOnlyForAPolicyThatRunsMixedSteps) {
  EXPECT_FALSE(read_replay_options(json::object()).measure.mixed_grid);
  EXPECT_FALSE(read_replay_options({{"policies", {"paged:4", "reserve:4"}}}).measure.mixed_grid);
  EXPECT_TRUE(read_replay_options({{"policies", {"serial-cache", "chunked:4,16"}}}).measure.mixed_grid);
  EXPECT_TRUE(read_replay_options({{"measure", {{"mixed_rows", {1, 2}}}}}).measure.mixed_grid);
}

TEST(ReplayOptions, BadOptionsNameTheField) {
  expect_error_naming({{"speed", 1}}, "options.speed is not a known field");
  expect_error_naming({{"measure", {{"runs", 0}}}}, "options.measure.runs");
  expect_error_naming({{"measure", 5}}, "options.measure must be an object", ErrorKind::type);
  expect_error_naming({{"nocache_requests", 0}}, "options.nocache_requests");
  expect_error_naming({{"prompt_seed", -1}}, "options.prompt_seed");
  expect_error_naming({{"timeline_requests", 1001}}, "options.timeline_requests");
  expect_error_naming({{"after_prompt_rounds", -1}}, "options.after_prompt_rounds");
  expect_error_naming({{"after_prompt_rounds", 201}}, "options.after_prompt_rounds");
  expect_error_naming({{"policies", "continuous:8"}}, "options.policies", ErrorKind::type);
  expect_error_naming({{"policies", json::array()}}, "options.policies", ErrorKind::type);
  expect_error_naming({{"policies", {"static:8", 3}}}, "options.policies[1]", ErrorKind::type);
  expect_error_naming({{"policies", {"static:0"}}}, "options.policies[0] \"static:0\": B must be");
  expect_error_naming({{"policies", {"fastest"}}}, "options.policies[0] \"fastest\" is not a known policy");
  expect_error_naming({{"policies", {"static:4", "static:4"}}}, "options.policies[1] \"static:4\" is given twice");
  expect_error_naming({{"workload", {{"count", 0}, {"prompt", {8, 8}}, {"answer", {8, 8}}}}}, "options.workload.count");
  expect_error_naming({{"workload", {{"requests", {{{"arrival_ms", 0}, {"prompt", 0}, {"answer", 4}}}}}}},
                      "options.workload.requests[0].prompt");
  // The tiny model holds 160 positions: 100 + 70 - 1 do not fit.
  expect_error_naming({{"workload", {{"requests", {{{"arrival_ms", 0}, {"prompt", 100}, {"answer", 70}}}}}}},
                      "options.workload: the longest prompt + the longest answer - 1 = 169 positions");
  expect_error_naming({{"workload", {{"count", 5000}, {"prompt", {8, 8}}, {"answer", {8, 8}}}}},
                      "options.workload.count must be an integer from 1 to 4096 for a replay");
  // 4,096 slots of 199 positions on the default model: over 1 GiB of KV cache.
  expect_error_naming({{"measure", json::object()},
                       {"workload", {{"count", 4096}, {"prompt", {100, 100}}, {"answer", {100, 100}}}},
                       {"policies", {"static:4", "continuous:4096"}}},
                      "options.policies[1] \"continuous:4096\" needs");
  expect_error_naming({{"kv_tokens", 0}}, "options.kv_tokens");
  expect_error_naming({{"block_tokens", 0}}, "options.block_tokens");
  expect_error_naming({{"policies", {"paged:4"}}, {"kv_tokens", 4}, {"block_tokens", 4}},
                      "options.kv_tokens = 4 holds 1 blocks");
  // A later turn of a chat begins with the turn before it: 5 tokens cannot hold 4 + 3.
  expect_error_naming({{"policies", {"paged:4"}},
                       {"workload",
                        {{"requests",
                          {{{"arrival_ms", 0}, {"prompt", 4}, {"answer", 3}, {"conversation", 0}},
                           {{"arrival_ms", 0}, {"prompt", 5}, {"answer", 3}, {"conversation", 0}}}}}}},
                      "options.workload.requests[1].prompt must be at least 7 tokens");
  expect_error_naming({{"policies", {"paged:4"}}, {"block_tokens", 0}}, "options.block_tokens");
}

TEST(ReplayOptions, TheEngineRefusesAWorkloadThatDoesNotFit) {
  Model model(serve::testing::tiny_model());
  try {
    serve::run_engine(model, {{0, 150, 20}}, "serial-cache");
    ADD_FAILURE() << "no error";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("workload: the longest prompt"), std::string::npos) << error.what();
  }
  EXPECT_THROW(serve::run_engine(model, {{0, 4, 4}}, "continuous:0"), InputError);
}

void expect_finite(const json& value, const std::string& what) {
  ASSERT_TRUE(value.is_number()) << what;
  EXPECT_TRUE(std::isfinite(value.get<double>())) << what;
}

TEST(Replay, EveryPolicyHasRealSimAndErrorWithFiniteNumbers) {
  json options = {{"measure", tiny_measure_options()},
                  {"workload", {{"count", 12}, {"prompt", {2, 10}}, {"answer", {1, 12}}, {"seed", 3}}},
                  {"policies", {"serial-nocache", "static:3", "continuous:3"}},
                  {"nocache_requests", 5},
                  {"timeline_requests", 4},
                  {"after_prompt_rounds", 0}};
  double last_fraction = 0;
  const ReplayResult replayed = replay(read_replay_options(options), [&](double fraction, const std::string&) {
    EXPECT_GE(fraction, last_fraction);
    last_fraction = fraction;
  });
  EXPECT_EQ(last_fraction, 1.0);
  // The JSON the CLI prints and Embind returns.
  const json result = replayed.to_json();
  ASSERT_EQ(result.size(), 3u);
  for (const char* policy : {"serial-nocache", "static:3", "continuous:3"}) {
    SCOPED_TRACE(policy);
    const json& entry = result[policy];
    const size_t requests = policy == std::string("serial-nocache") ? 5 : 12;
    EXPECT_EQ(entry["request_count"], requests);
    for (const char* side : {"real", "sim"}) {
      for (const char* key : {"median_ttft_ms", "p95_ttft_ms", "makespan_ms"})
        expect_finite(entry[side][key], std::string(side) + "." + key);
      EXPECT_EQ(entry[side]["requests"].size(), requests);
      EXPECT_FALSE(entry[side]["timeline"].empty());
      EXPECT_EQ(entry[side]["steps"], entry["real"]["steps"]);  // the same forward passes, real and simulated
    }
    for (const char* key : {"median_ttft", "p95_ttft", "makespan"}) {
      expect_finite(entry["error"][key], std::string("error.") + key);
      expect_finite(entry["drift"][key], std::string("drift.") + key);
    }
    EXPECT_EQ(entry["step_table"]["decode"]["rows"], json({1, 2, 4, 8}));
    EXPECT_FALSE(entry["step_table"].contains("mixed"));  // no policy here runs a mixed step
    // after_prompt_rounds 0: no history parts, and so no pricing without them.
    EXPECT_FALSE(entry["step_table"].contains("after_prompt"));
    EXPECT_FALSE(entry["step_table"].contains("prompt_pass"));
    EXPECT_FALSE(entry.contains("error_without"));
    EXPECT_FALSE(entry.contains("error_grid_only"));
    const json& check = entry["step_check"];
    for (const char* key : {"real_steps_ms", "table_steps_ms", "outside_steps_ms"}) expect_finite(check[key], key);
    EXPECT_FALSE(check["kinds"].empty());
  }
  const std::string text = format_replay_report(replayed);
  for (const char* policy : {"serial-nocache", "static:3", "continuous:3"})
    EXPECT_NE(text.find(policy), std::string::npos);
}

TEST(Replay, MemoryPoliciesServeForRealInTheSameKvBudget) {
  // All at t = 0, so memory alone decides admissions and preemptions: the real run must make exactly the
  // simulator's decisions, in a budget (12 blocks of 4 tokens) that makes paged and chunked preempt.
  json options = {{"measure", tiny_measure_options()},
                  {"workload", {{"count", 10}, {"prompt", {2, 10}}, {"answer", {4, 12}}, {"seed", 3}}},
                  {"policies", {"reserve:4", "paged:4", "chunked:4,6"}},
                  {"kv_tokens", 48},
                  {"block_tokens", 4},
                  {"timeline_requests", 4}};
  const ReplayResult result = replay(read_replay_options(options));
  ASSERT_EQ(result.policies.size(), 3u);
  for (const NamedPolicyReplay& named : result.policies) {
    SCOPED_TRACE(named.name);
    const PolicyReplay& entry = named.replay;
    ASSERT_TRUE(entry.real.result.memory && entry.sim.memory);
    EXPECT_EQ(entry.real.result.metrics.steps, entry.sim.metrics.steps);
    EXPECT_EQ(entry.real.result.memory->preemptions, entry.sim.memory->preemptions);
    EXPECT_EQ(entry.real.result.memory->recomputed_tokens, entry.sim.memory->recomputed_tokens);
    for (const std::optional<double>& error : {entry.error.median_ttft, entry.error.makespan}) {
      ASSERT_TRUE(error);
      EXPECT_TRUE(std::isfinite(*error));
    }
  }
  EXPECT_EQ(result.policies[1].name, "paged:4");
  EXPECT_GT(result.policies[1].replay.real.result.memory->preemptions, 0);
  // The mixed steps are priced on the table's measured mixed grid, and by the derived formula beside it.
  const PolicyReplay& chunked = result.policies[2].replay;
  const StepCheck& check = chunked.step_check;
  bool mixed_steps = false;
  for (const KindTotals& kind : check.kinds) {
    if (kind.kind != serve::StepKind::mixed) continue;
    mixed_steps = true;
    ASSERT_TRUE(kind.derived_ms);
    EXPECT_TRUE(std::isfinite(*kind.derived_ms));
  }
  EXPECT_TRUE(mixed_steps);
  const json grid = chunked.step_table.to_json()["mixed"];
  ASSERT_TRUE(check.mixed_formula);
  EXPECT_EQ(check.mixed_formula->cells, grid["chunk_tokens"].size() * grid["rows"].size() * grid["contexts"].size());
  ASSERT_TRUE(check.mixed_formula->mean_abs_error && check.mixed_formula->max_abs_error);
  EXPECT_TRUE(std::isfinite(*check.mixed_formula->mean_abs_error));
  EXPECT_LE(*check.mixed_formula->mean_abs_error, *check.mixed_formula->max_abs_error);
  EXPECT_NE(format_replay_report(result).find("chunked:4,6: the derived formula against the table's"),
            std::string::npos);
}

TEST(Replay, StepCheckGroupsPassesByWhatRanBeforeThem) {
  // serial-cache serves in order: a prefill, then answer - 1 decode passes of one row. Answers 1, 3 and 20:
  // decode passes 1-2 after the second prefill and 1-19 after the third; the prefills come first, after
  // a prefill (the first answer has no decode pass) and after a decode pass.
  json options = {{"measure", tiny_measure_options()},
                  {"workload", workload_json({{0, 4, 1}, {0, 3, 3}, {0, 2, 20}})},
                  {"policies", {"serial-cache"}}};
  const ReplayResult result = replay(read_replay_options(options));
  const StepCheck& check = result.policies.at(0).replay.step_check;
  std::map<std::string, long long> decode_passes;
  double decode_real_ms = 0;
  for (const PassGroup& group : check.decode_by_passes_since_prompt) {
    decode_passes[group.when] = group.totals.steps;
    decode_real_ms += group.totals.real_ms;
    EXPECT_TRUE(std::isfinite(group.totals.table_ms));
  }
  EXPECT_EQ(decode_passes,
            (std::map<std::string, long long>{{"1", 2}, {"2", 2}, {"3", 1}, {"4-7", 4}, {"8-15", 8}, {"16+", 4}}));
  std::map<std::string, long long> prompt_passes;
  for (const PassGroup& group : check.prompt_by_pass_before) prompt_passes[group.when] = group.totals.steps;
  EXPECT_EQ(prompt_passes, (std::map<std::string, long long>{{"none", 1}, {"prefill", 1}, {"decode", 1}}));
  // The same decode passes as the check by kind.
  for (const KindTotals& kind : check.kinds) {
    if (kind.kind == serve::StepKind::decode) {
      EXPECT_DOUBLE_EQ(kind.totals.real_ms, decode_real_ms);
    }
  }
  const std::string text = format_replay_report(result);
  for (const char* when :
       {"16+ passes after a prompt pass", "1 pass after a prompt pass", "first of the run", "after decode"})
    EXPECT_NE(text.find(when), std::string::npos) << when;
}

// The first `count` policies' real runs make the simulator's steps, preemptions, recomputed tokens, prefix
// hits and peak blocks, and preempt and find prefixes cached.
void expect_memory_as_simulated(const ReplayResult& result, size_t count) {
  ASSERT_GE(result.policies.size(), count);
  for (size_t i = 0; i < count; ++i) {
    SCOPED_TRACE(result.policies[i].name);
    const PolicyReplay& entry = result.policies[i].replay;
    EXPECT_EQ(entry.real.result.metrics.steps, entry.sim.metrics.steps);
    ASSERT_TRUE(entry.real.result.memory && entry.sim.memory);
    const policy::KvMemoryReport &real = *entry.real.result.memory, &simulated = *entry.sim.memory;
    EXPECT_EQ(real.preemptions, simulated.preemptions);
    EXPECT_EQ(real.recomputed_tokens, simulated.recomputed_tokens);
    EXPECT_EQ(real.blocks.prefix_hit_rate, simulated.blocks.prefix_hit_rate);
    EXPECT_EQ(real.blocks.peak_blocks, simulated.blocks.peak_blocks);
    EXPECT_GT(real.preemptions, 0);
    EXPECT_GT(real.blocks.prefix_hit_rate.value_or(0), 0);
  }
}

TEST(Replay, PrefixReuseServesForRealAsSimulated) {
  // A 12-token system prompt (three blocks of 4) before every prompt, in 10 blocks: the real run shares the
  // cached blocks of the system prompt and makes the simulator's steps, preemptions and prefix hits.
  json options = {
      {"measure", tiny_measure_options()},
      {"workload", {{"count", 10}, {"prompt", {2, 10}}, {"answer", {4, 12}}, {"seed", 3}, {"system_prompt", 12}}},
      {"policies", {"paged:4", "chunked:4,8"}},
      {"kv_tokens", 40},
      {"block_tokens", 4},
      {"timeline_requests", 4}};
  expect_memory_as_simulated(replay(read_replay_options(options)), 2);  // paged:4, chunked:4,8
}

TEST(Replay, AChatServesForRealAsSimulated) {
  // 12 turns of 4 conversations after a 4-token system prompt, in 12 blocks of 4: each turn finds the blocks
  // of its conversation's earlier turns (their prompts and answers) cached, as the simulator prices it.
  json options = {{"measure", tiny_measure_options()},
                  {"workload",
                   {{"count", 12},
                    {"prompt", {2, 6}},
                    {"answer", {2, 8}},
                    {"seed", 4},
                    {"system_prompt", 4},
                    {"chat", {{"conversations", 4}}}}},
                  {"policies", {"paged:4", "chunked:4,8", "continuous:4"}},
                  {"kv_tokens", 48},
                  {"block_tokens", 4},
                  {"timeline_requests", 4}};
  const ReplayResult result = replay(read_replay_options(options));
  expect_memory_as_simulated(result, 2);  // paged:4, chunked:4,8
  const PolicyReplay& continuous = result.policies.at(2).replay;
  EXPECT_EQ(continuous.real.result.metrics.steps, continuous.sim.metrics.steps);
}

}  // namespace
}  // namespace kvlab::experiments

namespace kvlab::experiments {
namespace {

TEST(ReplayOptions, RealWaitsForArrivalsAreBoundedInAll) {
  // Four policies: the last arrival may be at most 60,000 / 4 = 15,000 ms.
  auto explicit_at = [](double last_ms) {
    return json{{"policies", {"serial-cache", "static:2", "continuous:2", "paged:2"}},
                {"workload",
                 {{"requests",
                   {{{"arrival_ms", 0}, {"prompt", 4}, {"answer", 3}},
                    {{"arrival_ms", last_ms}, {"prompt", 4}, {"answer", 3}}}}}}};
  };
  expect_error_naming(explicit_at(15'001),
                      "options.workload.requests[1].arrival_ms: the last request arrives at 15001 ms");
  expect_error_naming({{"workload",
                        {{"count", 64},
                         {"prompt", {8, 8}},
                         {"answer", {8, 8}},
                         {"arrival", {{"kind", "poisson"}, {"rate_per_s", 0.001}}}}}},
                      "options.workload.arrival.rate_per_s");
  json fits = explicit_at(15'000);
  fits["measure"] = tiny_measure_options();
  EXPECT_NO_THROW(read_replay_options(fits));
}

// The InputError message of check_serving_time().
std::string serving_error(const ReplayOptions& o, const std::vector<double>& simulated_ms, double limit_ms) {
  try {
    check_serving_time(o, simulated_ms, limit_ms);
  } catch (const InputError& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(ReplayOptions, ServingPastTheBoundIsRefusedNamingTheFieldBehindTheLongestRun) {
  // The defaults: serial-nocache on the first 16 of 64 requests, serial-cache, static:8, continuous:8.
  const ReplayOptions o = read_replay_options({{"measure", tiny_measure_options()}});
  EXPECT_EQ(serving_error(o, {36'000, 12'000, 6'000, 6'000}, 60'000), "(no error)");  // 1 min: exactly the bound
  // Twice the bound, mostly without a cache: the uncached requests; the other runs leave 12 s of the
  // bound, a sixth of the uncached run's 72 s, so about 16 / 6 fit.
  EXPECT_EQ(serving_error(o, {72'000, 24'000, 12'000, 12'000}, 60'000),
            "options.nocache_requests = 16 requests for serial-nocache: serving every run would take 2.0 min on "
            "this machine (serial-nocache 1.2 min, serial-cache 0.4 min, static:8 0.2 min, continuous:8 0.2 min, "
            "priced on the step table just measured), and a replay serves at most 1 min in all (about 2 would fit)");
  // A cached run the longest: the generated queue's count.
  EXPECT_EQ(serving_error(o, {1'000, 1'000, 1'000, 117'000}, 60'000).substr(0, 68),
            "options.workload.count = 64 requests for continuous:8: serving every");
  EXPECT_NE(serving_error(o, {1'000, 1'000, 1'000, 117'000}, 60'000).find("(about 31 would fit)"), std::string::npos);
  // An explicit list: the workload itself; far past the bound, not one request fits.
  const ReplayOptions listed =
      read_replay_options({{"measure", tiny_measure_options()},
                           {"policies", {"serial-cache"}},
                           {"workload", {{"requests", {{{"arrival_ms", 0}, {"prompt", 4}, {"answer", 3}}}}}}});
  EXPECT_EQ(serving_error(listed, {600'000}, 60'000),
            "options.workload = 1 request for serial-cache: serving every run would take 10.0 min on this machine "
            "(serial-cache 10.0 min, priced on the step table just measured), and a replay serves at most 1 min in "
            "all (not even one fits: use a smaller model or fewer, shorter requests)");
}

}  // namespace
}  // namespace kvlab::experiments
