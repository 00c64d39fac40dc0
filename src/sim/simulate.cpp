#include "sim/simulate.h"

#include <stdexcept>

#include "common/input_error.h"
#include "common/json_fields.h"
#include "sim/metrics.h"
#include "sim/server_state.h"
#include "sim/step_table.h"
#include "sim/timeline.h"

namespace kvlab::sim {

namespace {

constexpr size_t kMaxRequestResults = 1'000'000;

}  // namespace

nlohmann::json simulate(const nlohmann::json& steps, const nlohmann::json& workload,
                        const std::vector<std::string>& policies, const SimulateOptions& options) {
  // Every input is checked before any policy runs, so a bad name does not wait for the others' work.
  StepTable table = StepTable::from_json(steps);
  std::vector<Request> requests = read_workload(workload);
  fields::as_int(options.timeline_requests, "options.timeline_requests", 0, 1'000'000);
  if (policies.empty()) throw_range("policies must name at least one policy");
  // The per-request results are most of the memory (about 600 bytes each natively, as JSON): bounded so
  // that a call fits a wasm heap.
  if (requests.size() * policies.size() > kMaxRequestResults)
    throw_range("workload has " + std::to_string(requests.size()) + " requests and " + std::to_string(policies.size()) +
                " policies were asked for: at most " + std::to_string(kMaxRequestResults) +
                " per-request results (requests x policies) per call");
  std::vector<PolicyName> parsed;
  for (size_t i = 0; i < policies.size(); ++i) {
    std::string path = "policies[" + std::to_string(i) + "]";
    parsed.push_back(parse_policy_name(policies[i], path));
    for (size_t earlier = 0; earlier < i; ++earlier)
      if (policies[earlier] == policies[i]) throw_range(path + " \"" + policies[i] + "\" is given twice");
  }

  nlohmann::json result = nlohmann::json::object();
  for (size_t i = 0; i < policies.size(); ++i) {
    ServerState server(table, requests);
    try {
      make_scheduler(parsed[i])->serve(server);
    } catch (const InputError& error) {
      throw InputError(error.kind(), "policy " + policies[i] + ": " + error.what());
    }
    // A policy that leaves a request unserved is a bug in it, not bad input.
    if (server.finished_count() != requests.size())
      throw std::logic_error("policy " + policies[i] + " finished " + std::to_string(server.finished_count()) + " of " +
                             std::to_string(requests.size()) + " requests");
    nlohmann::json metrics = policy_metrics(server.requests(), server.steps_run());
    metrics["timeline"] = timeline(server.requests(), options.timeline_requests);
    result[policies[i]] = std::move(metrics);
  }
  return result;
}

}  // namespace kvlab::sim
