#include "serve/run_engine.h"

#include <algorithm>
#include <stdexcept>

#include "common/input_error.h"
#include "sim/policy_registry.h"

namespace kvlab::serve {

std::unique_ptr<sim::Scheduler> make_scheduler(const std::string& policy, const std::string& path,
                                               const std::vector<sim::Request>& workload, const sim::KvSettings& kv) {
  const sim::PolicyName name = sim::parse_policy_name(policy, path);
  const bool chat =
      std::any_of(workload.begin(), workload.end(), [](const sim::Request& request) { return request.conversation >= 0; });
  if (keeps_kv_in_blocks(policy) && chat)
    throw_range({path, "\"" + policy + "\"", {}},
                "\"" + policy + "\": this workload is a chat, and a turn reuses the previous turn's answer, which the engine "
                "does not know before it is served: chat prefix reuse is simulated only (a system prompt is served for real)");
  return sim::make_scheduler(name, kv);
}

bool keeps_kv_in_blocks(const std::string& policy) {
  const std::string family = policy.substr(0, policy.find(':'));
  return family == "paged" || family == "chunked";
}

EngineRun run_engine(Model& model, const std::vector<sim::Request>& workload, const std::string& policy,
                     const EngineOptions& options) {
  std::unique_ptr<sim::Scheduler> scheduler = make_scheduler(policy, "policy", workload, options.kv);
  scheduler->check(workload);
  EngineOptions engine_options = options;
  engine_options.paged_kv = keeps_kv_in_blocks(policy);
  Engine engine(model, workload, scheduler->slots(), engine_options);
  scheduler->serve(engine);
  // A policy that leaves a request unserved is a bug in it, not bad input.
  if (engine.finished_count() != workload.size())
    throw std::logic_error("engine policy " + policy + " finished " + std::to_string(engine.finished_count()) + " of " +
                           std::to_string(workload.size()) + " requests");
  nlohmann::json policy_report = nlohmann::json::object();
  scheduler->report(policy_report);
  return {engine.served_requests(), engine.step_log(), std::move(policy_report)};
}

}  // namespace kvlab::serve
