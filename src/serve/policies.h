#pragma once
// Policy names for the engine. They are the simulator's names, parsed by sim::parse_policy_name (same
// spelling, same B range, same errors), so a name means one thing in the real run and in the simulation.
#include <memory>
#include <string>

#include "serve/scheduler.h"

namespace kvlab::serve {

// The engine's scheduler for `policy`; `path` names where the name came from ("options.policies[2]").
// Throws InputError for a bad name, or for a policy the simulator knows but the engine cannot run.
std::unique_ptr<Scheduler> make_scheduler(const std::string& policy, const std::string& path);

}  // namespace kvlab::serve
