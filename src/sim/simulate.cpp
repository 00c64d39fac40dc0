#include "sim/simulate.h"

#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>

#include "common/input_error.h"
#include "common/json_fields.h"
#include "sim/metrics.h"
#include "policy/playback_log.h"
#include "sim/priced_server.h"
#include "sim/step_table.h"
#include "sim/timeline.h"

namespace kvlab::sim {

namespace {

constexpr double kMaxKvBytes = 1e15;
constexpr double kMaxTargetMs = 1e12;

std::string number_text(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.10g", x);
  return text;
}

GoodputTargets goodput_targets(const SimulateOptions& options) {
  return {fields::as_number(options.ttft_target_ms, "options.ttft_target_ms", 0, kMaxTargetMs),
          fields::as_number(options.tpot_target_ms, "options.tpot_target_ms", 0, kMaxTargetMs)};
}

}  // namespace

policy::KvSettings kv_settings(const SimulateOptions& options, const nlohmann::json& steps) {
  policy::KvSettings settings;
  settings.block_tokens = static_cast<int>(fields::as_int(options.block_tokens, "options.block_tokens", 1, kMaxBlockTokens));
  if (options.kv_tokens && options.kv_bytes)
    throw_range({"options.kv_tokens", "", {}}, "and options.kv_bytes both give the KV budget: give one");
  long long budget_tokens = 0;
  if (options.kv_tokens) {
    budget_tokens = fields::as_int(*options.kv_tokens, "options.kv_tokens", 1, kMaxKvTokens);
    settings.budget_path = "options.kv_tokens";
    settings.budget_given = std::to_string(budget_tokens);
  } else if (options.kv_bytes) {
    double bytes = fields::as_number(*options.kv_bytes, "options.kv_bytes", 1, kMaxKvBytes);
    const auto model = steps.find("model");
    if (model == steps.end() || !model->is_object() || !model->contains("kv_bytes_per_token"))
      throw_range({"options.kv_bytes", number_text(bytes), {}},
                  "needs steps.model.kv_bytes_per_token (measure's table has it); or give options.kv_tokens");
    double bytes_per_token =
        fields::as_number((*model)["kv_bytes_per_token"], "steps.model.kv_bytes_per_token", 1, kMaxKvBytes);
    budget_tokens = static_cast<long long>(std::floor(bytes / bytes_per_token));
    settings.budget_path = "options.kv_bytes";
    settings.budget_given = number_text(bytes) + " (" + std::to_string(budget_tokens) + " tokens at " +
                            number_text(bytes_per_token) + " bytes a token)";
  } else {
    return settings;
  }
  settings.budget_blocks = budget_tokens / settings.block_tokens;
  if (*settings.budget_blocks == 0)
    throw_range({settings.budget_path, settings.budget_given, {}}, "= " + settings.budget_given +
                " is less than one block of options.block_tokens = " + std::to_string(settings.block_tokens) + " tokens");
  return settings;
}

SimulateOptions read_simulate_options(const nlohmann::json& options, const std::string& path) {
  fields::require_object(options, path);
  fields::reject_unknown(options, path,
                         {"timeline_requests", "queue_timeline", "kv_tokens", "kv_bytes", "block_tokens", "ttft_target_ms",
                          "tpot_target_ms"});
  SimulateOptions o;
  o.timeline_requests = static_cast<int>(fields::read_int(options, path, "timeline_requests", o.timeline_requests, 0, 1'000'000));
  o.queue_timeline = fields::read_bool(options, path, "queue_timeline", o.queue_timeline);
  if (options.contains("kv_tokens")) o.kv_tokens = fields::read_int(options, path, "kv_tokens", 0, 1, kMaxKvTokens);
  if (options.contains("kv_bytes")) o.kv_bytes = fields::read_number(options, path, "kv_bytes", 0, 1, kMaxKvBytes);
  o.block_tokens = static_cast<int>(fields::read_int(options, path, "block_tokens", o.block_tokens, 1, kMaxBlockTokens));
  o.ttft_target_ms = fields::read_number(options, path, "ttft_target_ms", o.ttft_target_ms, 0, kMaxTargetMs);
  o.tpot_target_ms = fields::read_number(options, path, "tpot_target_ms", o.tpot_target_ms, 0, kMaxTargetMs);
  return o;
}

nlohmann::json simulate(const nlohmann::json& steps, const nlohmann::json& workload,
                        const std::vector<std::string>& policies, const SimulateOptions& options) {
  // Every input is checked before any policy runs, so a bad name does not wait for the others' work.
  StepTable table = StepTable::from_json(steps);
  std::vector<policy::Request> requests = read_workload(workload);
  fields::as_int(options.timeline_requests, "options.timeline_requests", 0, 1'000'000);
  const policy::KvSettings kv = kv_settings(options, steps);
  const GoodputTargets targets = goodput_targets(options);
  if (policies.empty()) throw_range({"policies", "", {}}, "must name at least one policy");
  // The per-request results are most of the memory (about 600 bytes each natively, as JSON): bounded so
  // that a call fits a wasm heap.
  if (requests.size() * policies.size() > kMaxRequestResults)
    throw_range({"workload", std::to_string(requests.size()), {}}, "has " + std::to_string(requests.size()) + " requests and " + std::to_string(policies.size()) +
                " policies were asked for: at most " + std::to_string(kMaxRequestResults) +
                " per-request results (requests x policies) per call");
  std::vector<std::unique_ptr<policy::Scheduler>> schedulers;
  for (size_t i = 0; i < policies.size(); ++i) {
    std::string path = "policies[" + std::to_string(i) + "]";
    schedulers.push_back(policy::make_scheduler(policy::parse_policy_name(policies[i], path), kv));
    for (size_t earlier = 0; earlier < i; ++earlier)
      if (policies[earlier] == policies[i])
        throw_range({path, "\"" + policies[i] + "\"", {}}, "\"" + policies[i] + "\" is given twice");
  }
  auto as_policy_error = [&](size_t i, const InputError& error) {
    return error.in_context("policy " + policies[i] + ": ");
  };
  for (size_t i = 0; i < policies.size(); ++i) {
    try {
      schedulers[i]->check(requests);
    } catch (const InputError& error) {
      throw as_policy_error(i, error);
    }
  }

  nlohmann::json result = nlohmann::json::object();
  for (size_t i = 0; i < policies.size(); ++i) {
    PricedServer server(table, requests);
    std::optional<policy::PlaybackLog> log;
    if (options.queue_timeline) server.record_playback(&log.emplace(requests.size()));
    try {
      schedulers[i]->serve(server);
    } catch (const InputError& error) {
      throw as_policy_error(i, error);
    }
    // A policy that leaves a request unserved is a bug in it, not bad input.
    if (server.finished_count() != requests.size())
      throw std::logic_error("policy " + policies[i] + " finished " + std::to_string(server.finished_count()) + " of " +
                             std::to_string(requests.size()) + " requests");
    nlohmann::json metrics = policy_metrics(server.requests(), server.steps_run(), targets);
    schedulers[i]->report(metrics);
    metrics["timeline"] = timeline(server.requests(), options.timeline_requests);
    if (log) {
      metrics["queue_timeline"] = log->queue_json(server.requests());
      if (log->records_memory()) metrics["memory_timeline"] = log->memory_json();
    }
    result[policies[i]] = std::move(metrics);
  }
  return result;
}

}  // namespace kvlab::sim
