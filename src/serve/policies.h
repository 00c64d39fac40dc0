#pragma once
// The policies the engine runs: the simulator's own classes (sim/policy_registry.h), parsed from the same
// names with the same B range and errors, so that a name means one decision loop in the real run and in
// the simulation.
#include <memory>
#include <string>
#include <vector>

#include "sim/kv_blocks.h"
#include "sim/request.h"
#include "sim/scheduler.h"

namespace kvlab::serve {

// The scheduler for `policy` serving `workload`, with the KV memory `kv` (reserve, paged, chunked); `path`
// names where the name came from ("options.policies[2]"). Throws InputError for a bad name, or for what
// the engine cannot run: paged and chunked on a chat workload (a turn's prompt would begin with the
// previous turn's real answer, not known until it is served).
std::unique_ptr<sim::Scheduler> make_scheduler(const std::string& policy, const std::string& path,
                                               const std::vector<sim::Request>& workload, const sim::KvSettings& kv = {});

// Whether `policy` (a valid name) keeps its KV in blocks of one pool: paged and chunked.
bool keeps_kv_in_blocks(const std::string& policy);

}  // namespace kvlab::serve
