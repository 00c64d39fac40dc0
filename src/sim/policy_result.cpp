#include "sim/policy_result.h"

#include <stdexcept>

namespace kvlab::sim {

nlohmann::json PolicyResult::to_json() const {
  nlohmann::json result = metrics.to_json();
  if (memory) memory->add_to(result);
  result["timeline"] = timeline_json(timeline);
  if (queue_timeline) result["queue_timeline"] = *queue_timeline;
  if (memory_timeline) result["memory_timeline"] = *memory_timeline;
  return result;
}

const PolicyResult& SimulateResult::at(const std::string& name) const {
  for (const NamedPolicyResult& named : policies)
    if (named.name == name) return named.result;
  throw std::out_of_range("no policy " + name + " in the simulate result");
}

nlohmann::json SimulateResult::to_json() const {
  nlohmann::json result = nlohmann::json::object();
  for (const NamedPolicyResult& named : policies) result[named.name] = named.result.to_json();
  return result;
}

}  // namespace kvlab::sim
