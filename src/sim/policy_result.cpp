#include "sim/policy_result.h"

#include <stdexcept>
#include <utility>

namespace kvlab::sim {

namespace {

// `result`'s JSON with its playback given apart, copied or moved out of it.
nlohmann::json result_json(const PolicyResult& result, std::optional<nlohmann::json> queue_timeline,
                           std::optional<nlohmann::json> memory_timeline) {
  nlohmann::json object = result.metrics.to_json();
  if (result.memory) result.memory->add_to(object);
  object["timeline"] = timeline_json(result.timeline);
  if (queue_timeline) object["queue_timeline"] = std::move(*queue_timeline);
  if (memory_timeline) object["memory_timeline"] = std::move(*memory_timeline);
  return object;
}

}  // namespace

nlohmann::json PolicyResult::to_json() const& { return result_json(*this, queue_timeline, memory_timeline); }

nlohmann::json PolicyResult::to_json() && {
  return result_json(*this, std::move(queue_timeline), std::move(memory_timeline));
}

const PolicyResult& SimulateResult::at(const std::string& name) const {
  for (const NamedPolicyResult& named : policies)
    if (named.name == name) return named.result;
  throw std::out_of_range("no policy " + name + " in the simulate result");
}

nlohmann::json SimulateResult::to_json() const& {
  nlohmann::json result = nlohmann::json::object();
  for (const NamedPolicyResult& named : policies) result[named.name] = named.result.to_json();
  return result;
}

nlohmann::json SimulateResult::to_json() && {
  nlohmann::json result = nlohmann::json::object();
  for (NamedPolicyResult& named : policies) result[named.name] = std::move(named.result).to_json();
  return result;
}

}  // namespace kvlab::sim
