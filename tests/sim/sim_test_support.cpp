#include "sim_test_support.h"

#include <gtest/gtest.h>

#include "sim/policy_registry.h"
#include "sim/server_state.h"
#include "sim/step_table.h"

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

nlohmann::json workload_json(const std::vector<Request>& requests) {
  nlohmann::json list = nlohmann::json::array();
  for (const Request& r : requests)
    list.push_back({{"arrival_ms", r.arrival_ms}, {"prompt", r.prompt_tokens}, {"answer", r.answer_tokens}});
  return {{"requests", list}};
}

Served serve(const nlohmann::json& steps, const std::vector<Request>& requests, const std::string& policy,
             const KvSettings& kv) {
  StepTable table = StepTable::from_json(steps);
  ServerState server(table, requests);
  auto scheduler = make_scheduler(parse_policy_name(policy, "policy"), kv);
  scheduler->check(requests);
  scheduler->serve(server);
  EXPECT_EQ(server.finished_count(), requests.size()) << policy;
  for (const RequestState& state : server.requests())
    EXPECT_EQ(state.answer_tokens_out, state.request.answer_tokens) << policy;
  nlohmann::json report = nlohmann::json::object();
  scheduler->report(report);
  return {server.requests(), server.steps_run(), report};
}

KvSettings kv_blocks(long long budget_blocks, int block_tokens) {
  KvSettings settings;
  settings.block_tokens = block_tokens;
  settings.budget_blocks = budget_blocks;
  settings.budget_source = "the test's budget";
  return settings;
}

void expect_times(const RequestState& state, double first_token_ms, double finish_ms, int slot) {
  EXPECT_DOUBLE_EQ(state.first_token_ms, first_token_ms);
  EXPECT_DOUBLE_EQ(state.finish_ms, finish_ms);
  EXPECT_EQ(state.slot, slot);
}

}  // namespace kvlab::sim::testing
