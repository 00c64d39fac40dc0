#include "serve/policies.h"

#include "common/input_error.h"
#include "sim/policy_registry.h"

namespace kvlab::serve {

std::unique_ptr<sim::Scheduler> make_scheduler(const std::string& policy, const std::string& path) {
  const sim::PolicyName name = sim::parse_policy_name(policy, path);
  const std::string family = policy.substr(0, policy.find(':'));
  if (family != "serial-nocache" && family != "serial-cache" && family != "static" && family != "continuous")
    throw_range(path + " \"" + policy +
                "\" is simulated only: the engine runs serial-nocache, serial-cache, static:B and continuous:B");
  return sim::make_scheduler(name);
}

}  // namespace kvlab::serve
