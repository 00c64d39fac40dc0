// simulate_json() as the CLI and Embind call it: output keys, bad tables and policy names, the text table.
#include "sim/simulate.h"

#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/input_error.h"
#include "sim_test_support.h"

namespace kvlab::sim {
namespace {

using nlohmann::json;
using testing::linear_steps;
using testing::workload_json;

const json kWorkload = workload_json({{0, 3, 2}, {0, 2, 1}, {20, 1, 3}});

// The InputError message of a simulate_json() call.
std::string error_of(const json& steps, const json& workload, const std::vector<std::string>& policies,
                     SimulateOptions options = {}) {
  try {
    simulate_json(steps, workload, policies, options);
  } catch (const InputError& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(Simulate, OneObjectPerPolicyWithTheContractKeys) {
  json result = simulate_json(linear_steps(), kWorkload, policy::default_policies());
  ASSERT_EQ(result.size(), 4u);
  for (const std::string& policy : policy::default_policies()) {
    SCOPED_TRACE(policy);
    const json& metrics = result.at(policy);
    for (const char* key : {"median_ttft_ms", "p95_ttft_ms", "p99_ttft_ms", "median_latency_ms", "p95_latency_ms",
                            "makespan_ms", "tokens_per_s", "tpot_ms", "steps", "requests", "timeline"})
      EXPECT_TRUE(metrics.contains(key)) << key;
    ASSERT_EQ(metrics["requests"].size(), 3u);
    EXPECT_DOUBLE_EQ(metrics["requests"][2]["arrival_ms"].get<double>(), 20);  // workload order
  }
  // serial-cache by hand: request 0: 3, then decode(1, 4) = 5 -> 8; request 1: 10; idle to 20, request 2:
  // 21, decode(1, 2) = 3 -> 24, decode(1, 3) = 4 -> 28. TTFTs 3, 10, 1; makespan 28; 6 tokens.
  const json& serial = result["serial-cache"];
  EXPECT_DOUBLE_EQ(serial["median_ttft_ms"].get<double>(), 3);
  EXPECT_DOUBLE_EQ(serial["makespan_ms"].get<double>(), 28);
  EXPECT_DOUBLE_EQ(serial["tokens_per_s"].get<double>(), 6 / 0.028);
  EXPECT_DOUBLE_EQ(serial["tpot_ms"].get<double>(), (5 + 3.5) / 2);  // (8 - 3) / 1 and (28 - 21) / 2
  EXPECT_EQ(serial["steps"].get<int>(), 6);
}

TEST(Simulate, TypedResultsInTheOrderGivenAndTheirJson) {
  const std::vector<policy::Request> requests = read_workload(kWorkload);
  SimulateOptions options;
  options.kv_tokens = 100;
  options.block_tokens = 4;
  options.queue_timeline = true;
  const std::vector<std::string> names = {"serial-cache", "paged:2", "continuous:4"};
  const SimulateResult result =
      simulate(StepTable::from_json(linear_steps()), requests, parse_policies(names), options);
  ASSERT_EQ(result.policies.size(), 3u);
  for (size_t i = 0; i < names.size(); ++i) EXPECT_EQ(result.policies[i].name, names[i]);
  // serial-cache by hand, as in OneObjectPerPolicyWithTheContractKeys: TTFTs 3, 10, 1; makespan 28; 6 tokens.
  const PolicyResult& serial = result.at("serial-cache");
  EXPECT_DOUBLE_EQ(serial.metrics.median_ttft_ms, 3);
  EXPECT_DOUBLE_EQ(serial.metrics.makespan_ms, 28);
  EXPECT_DOUBLE_EQ(serial.metrics.tokens_per_s.value(), 6 / 0.028);
  EXPECT_EQ(serial.metrics.steps, 6);
  EXPECT_EQ(serial.timeline.size(), 5u);  // requests 0 and 2 prefill and decode, request 1 (n = 1) prefills
  EXPECT_FALSE(serial.memory);
  EXPECT_TRUE(serial.queue_timeline);
  EXPECT_FALSE(serial.memory_timeline);
  const PolicyResult& paged = result.at("paged:2");
  ASSERT_TRUE(paged.memory);
  EXPECT_TRUE(paged.memory_timeline);
  EXPECT_EQ(paged.memory->blocks.budget_blocks, 25);  // 100 tokens in blocks of 4
  EXPECT_EQ(paged.memory->blocks.block_tokens, 4);
  EXPECT_THROW(result.at("static:2"), std::out_of_range);
  // The JSON is simulate_json()'s (which moves the playback out of its result; this copies it).
  EXPECT_EQ(result.to_json(), simulate_json(linear_steps(), kWorkload, names, options));
  EXPECT_TRUE(result.at("serial-cache").queue_timeline);
}

TEST(Simulate, TimelineCoversTheFirstKRequests) {
  SimulateOptions options;
  options.timeline_requests = 2;
  json result = simulate_json(linear_steps(), kWorkload, {"continuous:4"}, options);
  const json& entries = result["continuous:4"]["timeline"];
  ASSERT_EQ(entries.size(), 3u);  // request 0: prefill + decode; request 1 (n = 1): prefill
  EXPECT_EQ(entries[2]["request"].get<int>(), 1);
  EXPECT_EQ(error_of(linear_steps(), kWorkload, {"continuous:4"}, SimulateOptions{-1}),
            "options.timeline_requests must be an integer from 0 to 1000000 (got -1)");
}

TEST(Simulate, ProgressCoversEachPolicysRequestsInTurnAndEndsDone) {
  std::vector<std::pair<double, std::string>> heard;
  simulate_json(linear_steps(), kWorkload, {"serial-cache", "continuous:4"}, {},
                [&](double fraction, const std::string& phase) { heard.emplace_back(fraction, phase); });
  // Per policy: its start, each of the 3 requests finished, its report; then done.
  const std::vector<std::pair<double, std::string>> expected = {{0.0, "simulating serial-cache"},
                                                                {1.0 / 6, "simulating serial-cache"},
                                                                {2.0 / 6, "simulating serial-cache"},
                                                                {0.5, "simulating serial-cache"},
                                                                {0.5, "reporting serial-cache"},
                                                                {0.5, "simulating continuous:4"},
                                                                {4.0 / 6, "simulating continuous:4"},
                                                                {5.0 / 6, "simulating continuous:4"},
                                                                {1.0, "simulating continuous:4"},
                                                                {1.0, "reporting continuous:4"},
                                                                {1.0, "done"}};
  ASSERT_EQ(heard.size(), expected.size());
  for (size_t i = 0; i < heard.size(); ++i) {
    EXPECT_NEAR(heard[i].first, expected[i].first, 1e-12) << i;
    EXPECT_EQ(heard[i].second, expected[i].second) << i;
  }
}

TEST(Simulate, WithTheQueuePlaybackTheReportTakesTwoThirdsOfEachPolicysShare) {
  SimulateOptions options;
  options.queue_timeline = true;
  std::vector<std::pair<double, std::string>> heard;
  simulate_json(linear_steps(), kWorkload, {"serial-cache"}, options,
                [&](double fraction, const std::string& phase) { heard.emplace_back(fraction, phase); });
  ASSERT_EQ(heard.size(), 6u);
  EXPECT_NEAR(heard[3].first, 1.0 / 3, 1e-12);
  EXPECT_EQ(heard[4].second, "reporting serial-cache");
  EXPECT_NEAR(heard[4].first, 1.0 / 3, 1e-12);
  EXPECT_EQ(heard[5], (std::pair<double, std::string>{1.0, "done"}));
}

TEST(Simulate, KvMemoryPoliciesAddTheirKeys) {
  SimulateOptions options;
  options.kv_tokens = 100;
  options.block_tokens = 4;
  json result =
      simulate_json(linear_steps(), kWorkload, {"continuous:2", "reserve:2", "paged:2", "chunked:2,8"}, options);
  for (const char* policy : {"reserve:2", "paged:2", "chunked:2,8"}) {
    SCOPED_TRACE(policy);
    const json& metrics = result.at(policy);
    for (const char* key : {"peak_kv_blocks", "kv_blocks_budget", "kv_block_tokens", "peak_kv_utilisation_pct",
                            "preemptions", "recomputed_tokens", "waste_pct", "prefix_hit_rate", "kv_blocks_in_use",
                            "median_tpot_ms", "goodput_pct", "timeline"})
      EXPECT_TRUE(metrics.contains(key)) << key;
    EXPECT_EQ(metrics["kv_blocks_budget"], 25);  // 100 tokens in blocks of 4
    EXPECT_EQ(metrics["kv_blocks_in_use"]["t_ms"].size(), metrics["kv_blocks_in_use"]["blocks"].size());
  }
  EXPECT_TRUE(result["chunked:2,8"].contains("split_prefills"));
  EXPECT_FALSE(result["continuous:2"].contains("peak_kv_blocks"));
}

TEST(Simulate, KvBytesAtTheTablesBytesPerToken) {
  json steps = linear_steps();
  steps["model"] = {{"kv_bytes_per_token", 1024}};
  SimulateOptions options;
  options.kv_bytes = 10 * 1024 * 16 + 1000;  // 160 tokens and change: 10 blocks of 16
  EXPECT_EQ(simulate_json(steps, kWorkload, {"paged:2"}, options)["paged:2"]["kv_blocks_budget"], 10);
  EXPECT_EQ(
      error_of(linear_steps(), kWorkload, {"paged:2"}, options),
      "options.kv_bytes needs steps.model.kv_bytes_per_token (measure's table has it); or give options.kv_tokens");
  options.kv_tokens = 160;
  EXPECT_EQ(error_of(steps, kWorkload, {"paged:2"}, options),
            "options.kv_tokens and options.kv_bytes both give the KV budget: give one");
  options.kv_tokens.reset();
  options.kv_bytes = 2000;  // 1 token
  EXPECT_EQ(
      error_of(steps, kWorkload, {"paged:2"}, options),
      "options.kv_bytes = 2000 (1 tokens at 1024 bytes a token) is less than one block of options.block_tokens = 16 "
      "tokens");
}

TEST(Simulate, OptionsFromJson) {
  SimulateOptions options = read_simulate_options({{"kv_tokens", 4096},
                                                   {"block_tokens", 32},
                                                   {"ttft_target_ms", 250},
                                                   {"tpot_target_ms", 20},
                                                   {"timeline_requests", 5}});
  EXPECT_EQ(options.kv_tokens, 4096);
  EXPECT_FALSE(options.kv_bytes.has_value());
  EXPECT_EQ(options.block_tokens, 32);
  EXPECT_DOUBLE_EQ(options.ttft_target_ms, 250);
  EXPECT_DOUBLE_EQ(options.tpot_target_ms, 20);
  EXPECT_EQ(options.timeline_requests, 5);
  EXPECT_EQ(read_simulate_options(json::object()).block_tokens, 16);
  auto message = [](const json& options) {
    try {
      read_simulate_options(options);
    } catch (const InputError& error) {
      return std::string(error.what());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(message({{"kv_tokens", 0}}), "options.kv_tokens must be an integer from 1 to 1000000000000 (got 0)");
  EXPECT_EQ(message({{"block_tokens", 0}}), "options.block_tokens must be an integer from 1 to 65536 (got 0)");
  EXPECT_NE(message({{"kv_blocks", 3}}).find("options.kv_blocks is not a known field"), std::string::npos);
  EXPECT_NE(message({{"ttft_target_ms", -1}}).find("options.ttft_target_ms must be a number from 0"),
            std::string::npos);
  EXPECT_NE(message(json::array()).find("options must be an object"), std::string::npos);
}

TEST(SimulateErrors, PolicyNames) {
  auto message = [&](const std::vector<std::string>& policies) {
    return error_of(linear_steps(), kWorkload, policies);
  };
  EXPECT_EQ(
      message({"serial-cache", "fifo"}),
      "policies[1] \"fifo\" is not a known policy (known: serial-nocache, serial-cache, static:B, continuous:B, reserve:B, paged:B, chunked:B,T)");
  EXPECT_EQ(message({"static:0"}), "policies[0] \"static:0\": B must be an integer from 1 to 4096 (got 0)");
  EXPECT_EQ(message({"continuous:4097"}),
            "policies[0] \"continuous:4097\": B must be an integer from 1 to 4096 (got 4097)");
  EXPECT_NE(message({"static:abc"}).find("policies[0] \"static:abc\": B must be"), std::string::npos);
  EXPECT_NE(message({"static:-1"}).find("policies[0] \"static:-1\": B must be"), std::string::npos);
  EXPECT_NE(message({"static"}).find("policies[0] \"static\": needs a batch size"), std::string::npos);
  EXPECT_NE(message({"serial-cache:4"}).find("takes no batch size"), std::string::npos);
  EXPECT_NE(message({"static:16", "static:16"}).find("policies[1] \"static:16\" is given twice"), std::string::npos);
  // The same policy in two spellings is one policy given twice, not two rows under two names.
  EXPECT_NE(
      message({"static:4", "serial-cache", "static:04"})
          .find("policies[2] \"static:04\" is \"static:4\" spelled otherwise: the policy static:4 is given twice"),
      std::string::npos);
  EXPECT_NE(message({"chunked:8,064", "chunked:08,64"}).find("the policy chunked:8,64 is given twice"),
            std::string::npos);
  EXPECT_EQ(message({"chunked:8,64", "chunked:8,65"}), "(no error)");
  EXPECT_EQ(message({}), "policies must name at least one policy");
  EXPECT_EQ(message({"chunked:4"}),
            "policies[0] \"chunked:4\": needs a batch size and a step token budget, chunked:B,T with T at least B");
  EXPECT_EQ(message({"chunked:4,3"}), "policies[0] \"chunked:4,3\": T must be an integer from 4 to 1000000 (got 3)");
  EXPECT_EQ(message({"chunked:0,3"}), "policies[0] \"chunked:0,3\": B must be an integer from 1 to 4096 (got 0)");
  EXPECT_NE(message({"chunked:4,x"}).find("T must be an integer"), std::string::npos);
  EXPECT_NE(message({"paged"}).find("needs a batch size, paged:B with B from 1 to 4096"), std::string::npos);
  EXPECT_NE(message({"reserve:4,8"}).find("policies[0] \"reserve:4,8\": B must be"), std::string::npos);
}

TEST(SimulateErrors, StepTables) {
  auto message = [&](const std::function<void(json&)>& spoil) {
    json steps = {{"decode", {{"rows", {1, 2, 4}}, {"contexts", {8, 16}}, {"ms", {{1, 2}, {2, 3}, {3, 4}}}}},
                  {"prefill", {{"tokens", {1, 8}}, {"ms", {1, 2}}}}};
    spoil(steps);
    return error_of(steps, kWorkload, {"serial-cache"});
  };
  auto contains = [](const std::string& message, const std::string& part) {
    return message.find(part) != std::string::npos ? ::testing::AssertionSuccess()
                                                   : ::testing::AssertionFailure() << message;
  };
  EXPECT_TRUE(contains(message([](json& s) { s.erase("decode"); }), "steps.decode is missing"));
  EXPECT_TRUE(contains(message([](json& s) { s["prefill"].erase("ms"); }), "steps.prefill.ms is missing"));
  EXPECT_TRUE(contains(message([](json& s) { s["decode"].erase("rows"); }), "steps.decode.rows is missing"));
  EXPECT_TRUE(
      contains(message([](json& s) {
                 s["decode"]["contexts"] = {16, 16};
               }),
               "steps.decode.contexts must be strictly increasing (steps.decode.contexts[1] = 16 is not above 16)"));
  EXPECT_TRUE(contains(message([](json& s) {
                         s["prefill"]["tokens"] = {8, 1};
                       }),
                       "steps.prefill.tokens must be strictly increasing"));
  EXPECT_TRUE(contains(message([](json& s) { s["decode"]["ms"][2][1] = -1; }),
                       "steps.decode.ms[2][1] must be a number from 0 to 1e+12 (got -1)"));
  // A time shorter than any clock measures would make the queue's throughput infinite.
  const std::string denormal = message([](json& s) { s["decode"]["ms"][1][0] = 5e-324; });
  EXPECT_TRUE(contains(denormal, "steps.decode.ms[1][0] must be 0 or a number from 1e-06 to 1e+12 (got "));
  EXPECT_TRUE(contains(denormal, "e-324): a step time shorter than a nanosecond is shorter than any clock measures"));
  EXPECT_TRUE(contains(message([](json& s) { s["prefill"]["ms"][1] = 1e-7; }),
                       "steps.prefill.ms[1] must be 0 or a number from 1e-06"));
  EXPECT_TRUE(contains(message([](json& s) { s["prefill"]["ms"][0] = "NaN"; }),
                       "steps.prefill.ms[0] must be a number from 0 to 1e+12 (got NaN)"));
  EXPECT_TRUE(contains(message([](json& s) { s["prefill"]["ms"][1] = nullptr; }), "steps.prefill.ms[1]"));
  EXPECT_TRUE(contains(message([](json& s) { s["decode"]["ms"].erase(2); }),
                       "steps.decode.ms must be a list of 3 entries, one per steps.decode.rows entry (got 2 entries)"));
  EXPECT_TRUE(
      contains(message([](json& s) { s["decode"]["ms"][1] = {2}; }),
               "steps.decode.ms[1] must be a list of 2 entries, one per steps.decode.contexts entry (got 1 entries)"));
  EXPECT_TRUE(
      contains(message([](json& s) { s["prefill"]["ms"] = {1}; }), "steps.prefill.ms must be a list of 2 entries"));
  EXPECT_TRUE(contains(message([](json& s) { s["decode"]["ms"] = "fast"; }), "steps.decode.ms must be a list"));
  EXPECT_TRUE(contains(message([](json& s) { s["decode"]["rows"] = {0, 1, 2}; }), "steps.decode.rows[0]"));
  EXPECT_TRUE(contains(message([](json& s) { s["decode"]["row"] = {1}; }), "steps.decode.row is not a known field"));
  EXPECT_TRUE(contains(message([](json& s) { s["prefill"] = 3; }), "steps.prefill must be an object"));
  EXPECT_TRUE(contains(error_of("steps", kWorkload, {"serial-cache"}), "steps must be an object"));
}

TEST(SimulateErrors, WorkloadFieldsReachTheCaller) {
  json workload = workload_json({{0, 3, 2}, {0, 0, 1}});
  EXPECT_EQ(error_of(linear_steps(), workload, {"static:2"}),
            "workload.requests[1].prompt must be an integer from 1 to 1000000 (got 0)");
}

TEST(SimulateErrors, PerRequestResultsAreBoundedPerCall) {
  json workload = {{"count", 300000}, {"prompt", {1, 1}}, {"answer", {1, 1}}};
  EXPECT_EQ(error_of(linear_steps(), workload, policy::default_policies()),
            "workload has 300000 requests: with 4 policies at most 250000 (1000000 per-request results, requests "
            "x policies, per call)");
}

TEST(PolicyTable, LabOrderAndSeconds) {
  // One request, n = 1, whose prefill costs 13.8 s: every policy takes 13.8 s and has no TPOT.
  json result = simulate_json(testing::constant_steps(13800, 1), workload_json({{0, 8, 1}}),
                              {"continuous:16", "static:4", "serial-cache", "static:16", "serial-nocache"});
  EXPECT_EQ(format_policy_table(result),
            "policy          median TTFT  p95 TTFT  p99 TTFT  all done  tokens/s  TPOT\n"
            "serial-nocache       13.8 s    13.8 s    13.8 s    13.8 s         0     -\n"
            "serial-cache         13.8 s    13.8 s    13.8 s    13.8 s         0     -\n"
            "static:4             13.8 s    13.8 s    13.8 s    13.8 s         0     -\n"
            "static:16            13.8 s    13.8 s    13.8 s    13.8 s         0     -\n"
            "continuous:16        13.8 s    13.8 s    13.8 s    13.8 s         0     -\n");
}

TEST(PolicyTable, KvColumnsWhenAKvPolicyIsShown) {
  // One request, p = 8, n = 1, prefill 13.8 s: 1 block of 16 held, 8 of its 16 slots used: 50% waste.
  SimulateOptions options;
  options.kv_tokens = 64;
  json result = simulate_json(testing::constant_steps(13800, 1), workload_json({{0, 8, 1}}),
                              {"chunked:4,64", "paged:4", "continuous:4"}, options);
  EXPECT_EQ(
      format_policy_table(result),
      "policy        median TTFT  p95 TTFT  p99 TTFT  all done  tokens/s  TPOT  peak KV blocks  KV waste  preemptions\n"
      "continuous:4       13.8 s    13.8 s    13.8 s    13.8 s         0     -               -         -            -\n"
      "paged:4            13.8 s    13.8 s    13.8 s    13.8 s         0     -             1/4     50.0%            0\n"
      "chunked:4,64       13.8 s    13.8 s    13.8 s    13.8 s         0     -             1/4     50.0%            0\n");
}

TEST(PolicyTable, ThreeSignificantDigits) {
  // Two requests of p = 8, n = 3 at t = 0 under serial-cache, prefill 52.4 ms, decode 2 ms: first tokens
  // at 52.4 and 108.8 ms (TTFT median 80.6, p95 52.4 + 0.95 * 56.4 = 105.98, p99 108.236); all done at
  // 112.8 ms; 6 tokens / 0.1128 s = 53.2 tokens/s; TPOT 2 ms.
  json result =
      simulate_json(testing::constant_steps(52.4, 2), workload_json({{0, 8, 3}, {0, 8, 3}}), {"serial-cache"});
  EXPECT_EQ(format_policy_table(result),
            "policy        median TTFT  p95 TTFT  p99 TTFT  all done  tokens/s     TPOT\n"
            "serial-cache     0.0806 s   0.106 s   0.108 s   0.113 s        53  2.00 ms\n");
}

}  // namespace
}  // namespace kvlab::sim

namespace kvlab::sim {
namespace {

TEST(Simulate, AtMostKMaxPoliciesInOneCall) {
  std::vector<std::string> names;
  for (size_t b = 1; b <= policy::kMaxPolicies; ++b) names.push_back("static:" + std::to_string(b));
  EXPECT_NO_THROW(parse_policies(names));
  names.push_back("continuous:1");
  try {
    simulate_json(testing::linear_steps(), kWorkload, names);
    FAIL() << "no error";
  } catch (const InputError& error) {
    EXPECT_EQ(error.field().path, "policies");
    EXPECT_EQ(error.field().allowed.max, static_cast<double>(policy::kMaxPolicies));
    EXPECT_NE(std::string(error.what()).find("65 policies: at most 64"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace kvlab::sim

namespace kvlab::sim {
namespace {

TEST(Simulate, KvBookkeepingBeyondTheCallsMemoryIsRefusedBeforeRunning) {
  // 4,096 requests of 1,000,000-token prompts in one-token blocks under paged:4096: 4,096 slots of
  // 1,000,001 blocks each, 8 billion blocks.
  const json workload = {{"count", 4096}, {"prompt", {1000000, 1000000}}, {"answer", {2, 2}}};
  SimulateOptions options;
  options.block_tokens = 1;
  try {
    simulate_json(testing::linear_steps(), workload, {"paged:4096"}, options);
    FAIL() << "no error";
  } catch (const InputError& error) {
    EXPECT_EQ(error.field().path, "options.block_tokens");
    const std::string message = error.what();
    EXPECT_NE(message.find("4096 slots"), std::string::npos) << message;
    EXPECT_NE(message.find("at most 1024 MiB"), std::string::npos) << message;
  }
  // The same queue in a budget of 64 blocks keeps 64 at most: it runs (only the policies' check may refuse).
  options.kv_tokens = 2'000'002;
  options.block_tokens = 65536;
  EXPECT_NO_THROW(simulate_json(testing::linear_steps(),
                                {{"count", 2}, {"prompt", {1000000, 1000000}}, {"answer", {2, 2}}}, {"paged:4096"},
                                options));
}

}  // namespace
}  // namespace kvlab::sim

namespace kvlab::sim {
namespace {

TEST(Simulate, TooManyRequestsForThePoliciesSaysTheCapForThatManyPolicies) {
  try {
    simulate_json(testing::linear_steps(), {{"count", 1000000}, {"prompt", {1, 1}}, {"answer", {1, 1}}},
                  policy::default_policies());
    FAIL() << "no error";
  } catch (const InputError& error) {
    EXPECT_EQ(error.field().path, "workload");
    EXPECT_EQ(error.field().allowed.max, 250000);
    EXPECT_NE(std::string(error.what()).find("with 4 policies at most 250000"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace kvlab::sim
