#pragma once
// One real run: a workload served by the engine under one policy, start to finish.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/model.h"
#include "serve/engine.h"
#include "serve/served_request.h"
#include "serve/step_log.h"
#include "sim/request.h"

namespace kvlab::serve {

struct EngineRun {
  std::vector<ServedRequest> requests;  // workload order: answers, slots and times (ms since the run started)
  StepLog step_log;                     // every forward pass, in order
  nlohmann::json policy_report;         // what the policy measured beyond the request times (KV memory use)
};

// Throws InputError for a bad policy name, a workload that does not fit the model, or one the policy cannot
// serve in options.kv.
EngineRun run_engine(Model& model, const std::vector<sim::Request>& workload, const std::string& policy,
                     const EngineOptions& options = {});

}  // namespace kvlab::serve
