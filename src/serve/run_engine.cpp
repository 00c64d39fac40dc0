#include "serve/run_engine.h"

#include <stdexcept>

#include "policy/policy_registry.h"

namespace kvlab::serve {

EngineRun run_engine(Model& model, const std::vector<policy::Request>& workload, const std::string& policy,
                     const EngineOptions& options) {
  return run_engine(model, workload, policy::parse_policy_name(policy, "policy"), options);
}

EngineRun run_engine(Model& model, const std::vector<policy::Request>& workload, const policy::PolicyName& policy,
                     const EngineOptions& options) {
  std::unique_ptr<policy::Scheduler> scheduler = policy::make_scheduler(policy, options.kv);
  scheduler->check(workload);
  EngineOptions engine_options = options;
  engine_options.paged_kv = policy.traits().keeps_kv_in_blocks;
  Engine engine(model, workload, scheduler->slots(), engine_options);
  scheduler->serve(engine);
  // A policy that leaves a request unserved is a bug in it, not bad input.
  if (engine.finished_count() != workload.size())
    throw std::logic_error("engine policy " + policy.canonical() + " finished " +
                           std::to_string(engine.finished_count()) + " of " + std::to_string(workload.size()) +
                           " requests");
  std::vector<ServedRequest> served = engine.served_requests();
  check_chat_answers(served);
  return {std::move(served), engine.step_log(), scheduler->memory_report()};
}

}  // namespace kvlab::serve
