#include "serve/policies.h"

#include "common/input_error.h"
#include "serve/continuous_batching.h"
#include "serve/serial.h"
#include "serve/static_batching.h"
#include "sim/policy_registry.h"

namespace kvlab::serve {

std::unique_ptr<Scheduler> make_scheduler(const std::string& policy, const std::string& path) {
  const int batch_rows = sim::parse_policy_name(policy, path).batch_rows;
  const std::string family = policy.substr(0, policy.find(':'));
  if (family == "serial-nocache") return std::make_unique<SerialNoCache>();
  if (family == "serial-cache") return std::make_unique<SerialCache>();
  if (family == "static") return std::make_unique<StaticBatching>(batch_rows);
  if (family == "continuous") return std::make_unique<ContinuousBatching>(batch_rows);
  throw_range({path, "\"" + policy + "\"", one_of({"serial-nocache", "serial-cache", "static:B", "continuous:B"})},
              "\"" + policy + "\" is simulated only: the engine runs serial-nocache, serial-cache, static:B and continuous:B");
}

}  // namespace kvlab::serve
