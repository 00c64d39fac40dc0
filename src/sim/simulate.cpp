#include "sim/simulate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>

#include "common/input_error.h"
#include "common/json_fields.h"
#include "common/memory_budget.h"
#include "policy/playback_log.h"
#include "sim/context_fit.h"
#include "sim/metrics.h"
#include "sim/priced_server.h"
#include "sim/timeline.h"

namespace kvlab::sim {

namespace {

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

// What a run takes from its options, checked: the options first, then how many per-request results
// `request_count` requests under `policy_count` policies make.
struct RunSettings {
  policy::KvSettings kv;
  GoodputTargets targets;
};

RunSettings run_settings(const StepTable& steps, size_t request_count, size_t policy_count,
                         const SimulateOptions& options) {
  fields::as_int(options.timeline_requests, "options.timeline_requests", 0, 1'000'000);
  RunSettings settings{kv_settings(options, &steps), goodput_targets(options)};
  if (policy_count == 0) throw_range({"policies", "", {}}, "must name at least one policy");
  check_request_results(request_count, policy_count, "workload");
  return settings;
}

// The block manager's memory, estimated before it runs: its block ids (reference counts, eviction links,
// content keys), the block tables and the prefix index, at most kBookkeepingBytesPerBlock for each block
// the pool may need (policy::kv_pool_blocks). Long requests in tiny blocks with many slots and no budget
// would otherwise allocate gigabytes (4,096 slots of 2,000,000 one-token blocks: 8.2 billion).
constexpr int64_t kBookkeepingBytesPerBlock = 64;

void check_kv_bookkeeping(const std::vector<policy::Request>& requests, const NamedPolicy& named, int slots,
                          const policy::KvSettings& kv) {
  const int busy_slots = static_cast<int>(std::min<size_t>(static_cast<size_t>(slots), requests.size()));
  const long long blocks = policy::kv_pool_blocks(requests, busy_slots, kv);
  if (blocks <= kMaxCallBytes / kBookkeepingBytesPerBlock) return;
  throw_range({"options.block_tokens", std::to_string(kv.block_tokens), {}},
              "= " + std::to_string(kv.block_tokens) + " makes policy " + named.name + " keep up to " +
                  std::to_string(blocks) + " blocks (" + std::to_string(busy_slots) +
                  " slots, each up to the longest prompt + the longest answer - 1 = " +
                  std::to_string(policy::cache_positions(requests)) + " positions, and the cached prefixes), " +
                  std::to_string(blocks / (int64_t{1} << 20) * kBookkeepingBytesPerBlock) +
                  " MiB of bookkeeping; at most " + std::to_string(kMaxCallBytes >> 20) +
                  " MiB: use larger blocks, a KV budget (options.kv_tokens), fewer slots or shorter requests");
}

}  // namespace

void check_request_results(size_t request_count, size_t policy_count, const std::string& path, bool count_field) {
  // The per-request results are most of the memory (about 600 bytes each natively, as JSON): bounded so
  // that a call fits a wasm heap.
  if (policy_count == 0 || request_count * policy_count <= kMaxRequestResults) return;
  const size_t most_requests = kMaxRequestResults / policy_count;
  const std::string why =
      " (" + std::to_string(kMaxRequestResults) + " per-request results, requests x policies, per call)";
  const FieldError field{path, std::to_string(request_count), integers_from(1, static_cast<long long>(most_requests))};
  if (count_field)
    throw_range(field, "must be an integer from 1 to " + std::to_string(most_requests) + " with " +
                           std::to_string(policy_count) + " policies" + why + " (got " + std::to_string(request_count) +
                           ")");
  throw_range(field, "has " + std::to_string(request_count) + " requests: with " + std::to_string(policy_count) +
                         " policies at most " + std::to_string(most_requests) + why);
}

policy::KvSettings kv_settings(const SimulateOptions& options, const StepTable* steps) {
  // The values were checked where they were read (read_simulate_options); a program that sets them out
  // of range has a bug.
  if (options.block_tokens < 1 || options.block_tokens > kMaxBlockTokens ||
      (options.kv_tokens && (*options.kv_tokens < 1 || *options.kv_tokens > kMaxKvTokens)) ||
      (options.kv_bytes && !(*options.kv_bytes >= 1 && *options.kv_bytes <= kMaxKvBytes)))
    throw std::logic_error("simulate options set out of the ranges read_simulate_options checks");
  policy::KvSettings settings;
  settings.block_tokens = options.block_tokens;
  if (options.kv_tokens && options.kv_bytes)
    throw_range({"options.kv_tokens", "", {}}, "and options.kv_bytes both give the KV budget: give one");
  long long budget_tokens = 0;
  if (options.kv_tokens) {
    budget_tokens = *options.kv_tokens;
    settings.budget_path = "options.kv_tokens";
    settings.budget_given = std::to_string(budget_tokens);
  } else if (options.kv_bytes) {
    const double bytes = *options.kv_bytes;
    const std::optional<double> table_bytes_per_token = steps ? steps->kv_bytes_per_token() : std::nullopt;
    if (!table_bytes_per_token)
      throw_range({"options.kv_bytes", number_text(bytes), {}},
                  "needs steps.model.kv_bytes_per_token (measure's table has it); or give options.kv_tokens");
    const double bytes_per_token = *table_bytes_per_token;
    budget_tokens = static_cast<long long>(std::floor(bytes / bytes_per_token));
    settings.budget_path = "options.kv_bytes";
    settings.budget_given = number_text(bytes) + " (" + std::to_string(budget_tokens) + " tokens at " +
                            number_text(bytes_per_token) + " bytes a token)";
  } else {
    return settings;
  }
  settings.budget_blocks = budget_tokens / settings.block_tokens;
  if (*settings.budget_blocks == 0)
    throw_range({settings.budget_path, settings.budget_given, {}},
                "= " + settings.budget_given + " is less than one block of options.block_tokens = " +
                    std::to_string(settings.block_tokens) + " tokens");
  return settings;
}

SimulateOptions read_simulate_options(const nlohmann::json& options, const std::string& path) {
  fields::require_object(options, path);
  fields::reject_unknown(options, path,
                         {"timeline_requests", "queue_timeline", "kv_tokens", "kv_bytes", "block_tokens",
                          "ttft_target_ms", "tpot_target_ms"});
  SimulateOptions o;
  o.timeline_requests =
      static_cast<int>(fields::read_int(options, path, "timeline_requests", o.timeline_requests, 0, 1'000'000));
  o.queue_timeline = fields::read_bool(options, path, "queue_timeline", o.queue_timeline);
  if (options.contains("kv_tokens")) o.kv_tokens = fields::read_int(options, path, "kv_tokens", 0, 1, kMaxKvTokens);
  if (options.contains("kv_bytes")) o.kv_bytes = fields::read_number(options, path, "kv_bytes", 0, 1, kMaxKvBytes);
  o.block_tokens =
      static_cast<int>(fields::read_int(options, path, "block_tokens", o.block_tokens, 1, kMaxBlockTokens));
  o.ttft_target_ms = fields::read_number(options, path, "ttft_target_ms", o.ttft_target_ms, 0, kMaxTargetMs);
  o.tpot_target_ms = fields::read_number(options, path, "tpot_target_ms", o.tpot_target_ms, 0, kMaxTargetMs);
  return o;
}

std::vector<NamedPolicy> parse_policies(const std::vector<std::string>& names, const std::string& path) {
  if (names.size() > policy::kMaxPolicies)
    throw_range({path, std::to_string(names.size()) + " names", integers_from(1, policy::kMaxPolicies)},
                "names " + std::to_string(names.size()) + " policies: at most " + std::to_string(policy::kMaxPolicies) +
                    " in one call (each replays the whole queue)");
  std::vector<NamedPolicy> policies;
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string item = path + "[" + std::to_string(i) + "]";
    const NamedPolicy named{names[i], policy::parse_policy_name(names[i], item)};
    // One policy under two spellings ("static:4", "static:04") would run twice under two names.
    const std::string form = named.policy.canonical();
    for (const NamedPolicy& earlier : policies) {
      if (earlier.policy.canonical() != form) continue;
      const std::string given = echo_value(names[i]);
      if (earlier.name == names[i]) throw_range({item, given, {}}, given + " is given twice");
      throw_range({item, given, {}}, given + " is " + echo_value(earlier.name) + " spelled otherwise: the policy " +
                                         form + " is given twice");
    }
    policies.push_back(named);
  }
  return policies;
}

SimulateResult simulate(const StepTable& steps, const std::vector<policy::Request>& requests,
                        const std::vector<NamedPolicy>& policies, const SimulateOptions& options,
                        const ProgressFn& progress) {
  // Every input is checked before any policy runs, so a bad one does not wait for the others' work.
  const RunSettings settings = run_settings(steps, requests.size(), policies.size(), options);
  std::vector<std::unique_ptr<policy::Scheduler>> schedulers;
  for (const NamedPolicy& named : policies) schedulers.push_back(policy::make_scheduler(named.policy, settings.kv));
  for (size_t i = 0; i < policies.size(); ++i)
    if (policies[i].policy.traits().keeps_kv_in_blocks)
      check_kv_bookkeeping(requests, policies[i], schedulers[i]->slots(), settings.kv);
  auto as_policy_error = [&](size_t i, const InputError& error) {
    return error.in_context("policy " + policies[i].name + ": ");
  };
  for (size_t i = 0; i < policies.size(); ++i) {
    try {
      schedulers[i]->check(requests);
    } catch (const InputError& error) {
      throw as_policy_error(i, error);
    }
  }

  // Each policy's equal share of the bar: its serving, then its report (with the whole-queue playback,
  // about two thirds of its time).
  const double policy_share = 1.0 / static_cast<double>(policies.size());
  const double serving_share = options.queue_timeline ? policy_share / 3 : policy_share;
  const size_t requests_per_report = std::max<size_t>(1, requests.size() / 100);
  SimulateResult result;
  for (size_t i = 0; i < policies.size(); ++i) {
    PricedServer server(steps, requests);
    std::optional<policy::PlaybackLog> log;
    if (options.queue_timeline) server.record_playback(&log.emplace(requests.size()));
    const double start = static_cast<double>(i) * policy_share;
    if (progress) {
      const std::string phase = "simulating " + policies[i].name;
      progress(start, phase);
      server.report_finished(
          [&progress, phase, start, serving_share, requests_per_report, count = requests.size()](size_t finished) {
            if (finished % requests_per_report == 0)
              progress(start + serving_share * static_cast<double>(finished) / static_cast<double>(count), phase);
          });
    }
    try {
      schedulers[i]->serve(server);
    } catch (const InputError& error) {
      throw as_policy_error(i, error);
    }
    // A policy that leaves a request unserved is a bug in it, not bad input.
    if (server.finished_count() != requests.size())
      throw std::logic_error("policy " + policies[i].name + " finished " + std::to_string(server.finished_count()) +
                             " of " + std::to_string(requests.size()) + " requests");
    if (progress) progress(start + serving_share, "reporting " + policies[i].name);
    PolicyResult served;
    served.metrics = policy_metrics(server.requests(), server.steps_run(), settings.targets);
    served.memory = schedulers[i]->memory_report();
    // Its KV bookkeeping was checked against the one-call bound alone: let it go before the next runs.
    schedulers[i].reset();
    served.timeline = timeline(server.requests(), options.timeline_requests);
    if (log) {
      served.queue_timeline = log->queue_json(server.requests());
      if (log->records_memory()) served.memory_timeline = log->memory_json();
    }
    result.policies.push_back({policies[i].name, std::move(served)});
  }
  if (progress) progress(1, "done");
  return result;
}

nlohmann::json simulate_json(const nlohmann::json& steps, const nlohmann::json& workload,
                             const std::vector<std::string>& policy_names, const SimulateOptions& options,
                             const ProgressFn& progress) {
  const StepTable table = StepTable::from_json(steps);
  const std::vector<policy::Request> requests = read_workload(workload);
  check_requests_fit(table.max_seq(), requests, workload, "workload");
  // The options are reported before the policy names (simulate() checks them again, on its own).
  run_settings(table, requests.size(), policy_names.size(), options);
  return simulate(table, requests, parse_policies(policy_names), options, progress).to_json();
}

}  // namespace kvlab::sim
