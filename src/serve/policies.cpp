#include "serve/policies.h"

#include <algorithm>

#include "common/input_error.h"
#include "sim/policy_registry.h"

namespace kvlab::serve {

std::unique_ptr<sim::Scheduler> make_scheduler(const std::string& policy, const std::string& path,
                                               const std::vector<sim::Request>& workload, const sim::KvSettings& kv) {
  const sim::PolicyName name = sim::parse_policy_name(policy, path);
  const std::string family = policy.substr(0, policy.find(':'));
  const bool shares_prefixes =
      std::any_of(workload.begin(), workload.end(), [](const sim::Request& request) { return request.shares_prefix(); });
  if ((family == "paged" || family == "chunked") && shares_prefixes)
    throw_range({path, "\"" + policy + "\"", {}},
                "\"" + policy + "\": this workload shares prompt prefixes, and prefix reuse is simulated only: the engine "
                "gives each slot its own KV cache (serve it without a system prompt or chat)");
  return sim::make_scheduler(name, kv);
}

}  // namespace kvlab::serve
