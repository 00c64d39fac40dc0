#include "serve/run_engine.h"

#include <stdexcept>

#include "serve/policies.h"

namespace kvlab::serve {

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
