#pragma once
// The policies the engine runs: the simulator's own classes (sim/policy_registry.h), parsed from the same
// names with the same B range and errors, so that a name means one decision loop in the real run and in
// the simulation.
#include <memory>
#include <string>

#include "sim/scheduler.h"

namespace kvlab::serve {

// The scheduler for `policy`; `path` names where the name came from ("options.policies[2]"). Throws
// InputError for a bad name, or for a policy the engine cannot run yet (the KV-memory ones).
std::unique_ptr<sim::Scheduler> make_scheduler(const std::string& policy, const std::string& path);

}  // namespace kvlab::serve
