#include "experiments/replay_result.h"

#include "common/json_or_null.h"

namespace kvlab::experiments {

using nlohmann::json;

namespace {

json entry_json(const PolicyReplay& replay) {
  json step_table = replay.step_table.to_json();
  for (const char* part : {"after_prompt", "prompt_pass"})
    if (step_table.contains(part)) step_table[part]["rounds"] = replay.history_rounds;
  json entry = {{"request_count", replay.request_count},
                {"error", replay.error.to_json()},
                {"drift", replay.drift.to_json()},
                {"step_check", replay.step_check.to_json()},
                {"step_table", std::move(step_table)},
                {"real", replay.real.to_json()},
                {"sim", replay.sim.to_json()}};
  const ErrorsWithoutHistory& without = replay.error_without;
  if (without.after_prompt) entry["error_without"]["after_prompt"] = without.after_prompt->to_json();
  if (without.prompt_pass) entry["error_without"]["prompt_pass"] = without.prompt_pass->to_json();
  if (without.grid_only) entry["error_grid_only"] = without.grid_only->to_json();
  if (replay.real.answers_equal_alone) entry["answers_equal_alone"] = *replay.real.answers_equal_alone;
  return entry;
}

}  // namespace

json RelativeDifferences::to_json() const {
  return {{"median_ttft", json_or_null(median_ttft)},
          {"p95_ttft", json_or_null(p95_ttft)},
          {"makespan", json_or_null(makespan)}};
}

RelativeDifferences relative_differences(const sim::PolicyMetrics& reference, const sim::PolicyMetrics& other) {
  auto difference = [](double base, double value) {
    return base != 0 ? std::optional<double>((value - base) / base) : std::nullopt;
  };
  return {difference(reference.median_ttft_ms, other.median_ttft_ms),
          difference(reference.p95_ttft_ms, other.p95_ttft_ms), difference(reference.makespan_ms, other.makespan_ms)};
}

json RealRun::to_json() const {
  json metrics = result.to_json();
  json& requests = metrics["requests"];
  for (size_t i = 0; i < answers.size(); ++i) requests[i]["tokens"] = answers[i];
  for (size_t i = 0; i < texts.size(); ++i) {
    requests[i]["prompt_text"] = texts[i].prompt;
    requests[i]["text"] = texts[i].answer;
  }
  return metrics;
}

json ReplayResult::to_json() const {
  json result = json::object();
  for (const NamedPolicyReplay& named : policies) result[named.name] = entry_json(named.replay);
  return result;
}

}  // namespace kvlab::experiments
