#pragma once
// One real run: a workload served by the engine under one policy, start to finish, and which of the
// simulator's policy classes (policy/policy_registry.h) serves it: the same names, B ranges and errors, so
// that a name means one decision loop in the real run and in the simulation.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/model.h"
#include "policy/kv_blocks.h"
#include "policy/kv_memory_report.h"
#include "policy/policy_registry.h"
#include "policy/request.h"
#include "policy/scheduler.h"
#include "serve/engine.h"
#include "serve/served_request.h"
#include "serve/step_log.h"

namespace kvlab::serve {

struct EngineRun {
  std::vector<ServedRequest> requests;           // workload order: answers, slots and times (ms since the run started)
  StepLog step_log;                              // every forward pass, in order
  std::optional<policy::KvMemoryReport> memory;  // what a KV-memory policy measured beyond the request times
};

// Throws InputError for a bad policy name, a workload that does not fit the model, a chat whose turns do
// not carry the turns before them (serve/prompts.h), or one the policy cannot serve in options.kv. A
// chat's answers are checked to be the ones its later turns were written with.
EngineRun run_engine(Model& model, const std::vector<policy::Request>& workload, const policy::PolicyName& policy,
                     const EngineOptions& options = {});
// The same on a policy name, which it parses (a bad one: InputError naming "policy").
EngineRun run_engine(Model& model, const std::vector<policy::Request>& workload, const std::string& policy,
                     const EngineOptions& options = {});

}  // namespace kvlab::serve
