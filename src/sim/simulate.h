#pragma once
// The simulator's entry point for the CLI and Embind: replays one workload on one step-time table under
// each named policy (contract sections 1-5).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/policy_registry.h"  // default_policies()
#include "sim/policy_table.h"     // format_policy_table()
#include "sim/workload.h"         // explicit_workload()

namespace kvlab::sim {

struct SimulateOptions {
  int timeline_requests = 60;  // the timeline covers the first this many requests (0 to 1,000,000)
};

// steps: the contract's section 1 object; workload: section 2. Throws kvlab::InputError naming the field.
// Returns one object with a key per policy name as given, each holding the metrics of policy_metrics()
// (metrics.h) and the "timeline" of timeline() (timeline.h).
nlohmann::json simulate(const nlohmann::json& steps, const nlohmann::json& workload,
                        const std::vector<std::string>& policies, const SimulateOptions& options = {});

}  // namespace kvlab::sim
