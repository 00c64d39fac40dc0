#include "serve/policies.h"

#include <algorithm>

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

}  // namespace kvlab::serve
