#include "sim_test_support.h"

#include <gtest/gtest.h>

#include "common/input_error.h"
#include "policy/policy_registry.h"
#include "sim/priced_server.h"
#include "sim/step_table.h"
#include "sim/workload.h"

namespace kvlab::sim::testing {

nlohmann::json constant_steps(double prefill_ms, double decode_ms) {
  return {{"model", {{"name", "constant"}}},
          {"decode", {{"rows", {1}}, {"contexts", {8}}, {"ms", {{decode_ms}}}}},
          {"prefill", {{"tokens", {8}}, {"ms", {prefill_ms}}}}};
}

nlohmann::json linear_steps() {
  return {{"decode", {{"rows", {1, 2}}, {"contexts", {1, 2}}, {"ms", {{2, 3}, {3, 4}}}}},
          {"prefill", {{"tokens", {1, 2}}, {"ms", {1, 2}}}}};
}

nlohmann::json affine_steps() {
  return {{"decode", {{"rows", {1, 2}}, {"contexts", {1, 2}}, {"ms", {{2, 3}, {3, 4}}}}},
          {"prefill", {{"tokens", {1, 2}}, {"ms", {3, 4}}}}};
}

nlohmann::json measured_like_steps() {
  nlohmann::json decode_ms = nlohmann::json::array();
  std::vector<int> rows = {1, 2, 4, 8, 16}, contexts = {8, 16, 32, 64, 128};
  for (int r : rows) {
    nlohmann::json row = nlohmann::json::array();
    for (int c : contexts) row.push_back(0.8 + 0.05 * r + 0.002 * r * c + 0.3 * (r == 16));
    decode_ms.push_back(row);
  }
  return {{"decode", {{"rows", rows}, {"contexts", contexts}, {"ms", decode_ms}}},
          {"prefill", {{"tokens", {1, 2, 4, 8, 16, 32, 64, 128}}, {"ms", {1.0, 1.1, 1.3, 1.7, 2.6, 4.4, 8.5, 17.9}}}}};
}

std::vector<policy::Request> random_requests(uint64_t seed, int count, double rate_per_s) {
  GeneratedWorkload workload;
  workload.count = count;
  workload.prompt_tokens_lo = 1;
  workload.prompt_tokens_hi = 200;  // past the grid's end: extrapolation too
  workload.answer_tokens_lo = 1;
  workload.answer_tokens_hi = 40;
  workload.arrival = ArrivalKind::poisson;
  workload.rate_per_s = rate_per_s;
  workload.seed = seed;
  return generate_requests(workload);
}

nlohmann::json workload_json(const std::vector<policy::Request>& requests) {
  nlohmann::json list = nlohmann::json::array();
  for (const policy::Request& r : requests)
    list.push_back({{"arrival_ms", r.arrival_ms}, {"prompt", r.prompt_tokens}, {"answer", r.answer_tokens}});
  return {{"requests", list}};
}

Served serve(const nlohmann::json& steps, const std::vector<policy::Request>& requests, const std::string& policy,
             const policy::KvSettings& kv) {
  return serve(steps, requests, policy::parse_policy_name(policy, "policy"), kv);
}

Served serve(const nlohmann::json& steps, const std::vector<policy::Request>& requests,
             const policy::PolicyName& policy, const policy::KvSettings& kv) {
  StepTable table = StepTable::from_json(steps);
  PricedServer server(table, requests);
  auto scheduler = policy::make_scheduler(policy, kv);
  scheduler->check(requests);
  scheduler->serve(server);
  const std::string& family = policy.traits().family;
  EXPECT_EQ(server.finished_count(), requests.size()) << family;
  for (const policy::RequestState& state : server.requests())
    EXPECT_EQ(state.answer_tokens_out, state.request.answer_tokens) << family;
  return {server.requests(), server.steps_run(), scheduler->memory_report()};
}

policy::KvSettings kv_blocks(long long budget_blocks, int block_tokens) {
  policy::KvSettings settings;
  settings.block_tokens = block_tokens;
  settings.budget_blocks = budget_blocks;
  settings.budget_path = "options.kv_tokens";
  settings.budget_given = std::to_string(budget_blocks * block_tokens);
  return settings;
}

void expect_part_error(const char* name, const nlohmann::json& part, const std::string& field) {
  nlohmann::json steps = linear_steps();
  steps[name] = part;
  try {
    StepTable::from_json(steps);
    ADD_FAILURE() << "no error for " << name << " " << part.dump();
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find(field), std::string::npos) << error.what();
  }
}

void expect_same_times(const Served& a, const Served& b, const std::string& what) {
  ASSERT_EQ(a.requests.size(), b.requests.size());
  EXPECT_EQ(a.steps_run, b.steps_run) << what;
  for (size_t i = 0; i < a.requests.size(); ++i) {
    EXPECT_EQ(a.requests[i].first_token_ms, b.requests[i].first_token_ms) << what << " request " << i;
    EXPECT_EQ(a.requests[i].finish_ms, b.requests[i].finish_ms) << what << " request " << i;
    EXPECT_EQ(a.requests[i].slot, b.requests[i].slot) << what << " request " << i;
  }
}

void expect_times(const policy::RequestState& state, double first_token_ms, double finish_ms, int slot) {
  EXPECT_DOUBLE_EQ(state.first_token_ms, first_token_ms);
  EXPECT_DOUBLE_EQ(state.finish_ms, finish_ms);
  EXPECT_EQ(state.slot, slot);
}

}  // namespace kvlab::sim::testing
