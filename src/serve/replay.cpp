#include "serve/replay.h"

#include <map>
#include <utility>
#include <vector>

#include "serve/run_engine.h"
#include "sim/metrics.h"
#include "sim/simulate.h"
#include "sim/step_table.h"
#include "sim/timeline.h"

namespace kvlab::serve {

using nlohmann::json;

namespace {

// Share of the progress bar given to each of the two measurements; the real runs share the rest in
// proportion to their simulated makespans. On the default options one measurement takes about a tenth
// of the whole.
constexpr double kMeasureShare = 0.12;

// A progress callback for the part of the bar from `start` to `start + share`.
ProgressFn part_of(const ProgressFn& progress, double start, double share, const std::string& phase_prefix) {
  if (!progress) return nullptr;
  return [&progress, start, share, phase_prefix](double fraction, const std::string& phase) {
    progress(start + share * fraction, phase_prefix + phase);
  };
}

// The explicit workload of the first `count` requests, as the simulator reads it.
json explicit_requests(const json& workload, size_t count) {
  json requests = sim::explicit_workload(workload)["requests"];
  requests.erase(requests.begin() + static_cast<std::ptrdiff_t>(count), requests.end());
  return {{"requests", std::move(requests)}};
}

json real_metrics(const EngineRun& run, int timeline_requests) {
  std::vector<sim::RequestState> states;
  states.reserve(run.requests.size());
  for (const ServedRequest& request : run.requests) states.push_back(request.state);
  json metrics = sim::policy_metrics(states, static_cast<long long>(run.step_log.records().size()));
  metrics["timeline"] = sim::timeline(states, timeline_requests);
  return metrics;
}

json simulate_policy(const json& steps, const ReplayOptions& o, const std::string& policy) {
  sim::SimulateOptions options;
  options.timeline_requests = o.timeline_requests;
  return sim::simulate(steps, explicit_requests(o.workload, requests_for(o, policy).size()), {policy}, options)[policy];
}

// (other - reference) / reference for median TTFT, p95 TTFT and makespan; null where the reference is 0.
json relative_differences(const json& reference, const json& other) {
  json differences = json::object();
  for (const char* key : {"median_ttft", "p95_ttft", "makespan"}) {
    const std::string field = std::string(key) + "_ms";
    const double base = reference[field].get<double>();
    differences[key] = base != 0 ? json((other[field].get<double>() - base) / base) : json();
  }
  return differences;
}

// Every forward pass of the run priced on the table, summed by kind and row count.
json step_check(const StepLog& log, const sim::StepTable& table, double real_makespan_ms) {
  struct Totals {
    long long steps = 0;
    double real_ms = 0, table_ms = 0;
  };
  std::map<std::pair<StepKind, int>, Totals> by_kind;
  double real_steps_ms = 0, table_steps_ms = 0;
  for (const StepRecord& record : log.records()) {
    const int* contexts = log.contexts(record);
    const double table_ms = record.kind == StepKind::decode
                                ? table.decode_step_ms(record.sequences, [&](int row) { return contexts[row]; })
                                : table.prefill_ms(contexts[0]);
    Totals& totals = by_kind[{record.kind, record.sequences}];
    ++totals.steps;
    totals.real_ms += record.end_ms - record.start_ms;
    totals.table_ms += table_ms;
    real_steps_ms += record.end_ms - record.start_ms;
    table_steps_ms += table_ms;
  }
  json kinds = json::array();
  for (const auto& [key, totals] : by_kind)
    kinds.push_back({{"kind", step_kind_name(key.first)},
                     {"rows", key.second},
                     {"steps", totals.steps},
                     {"real_ms", totals.real_ms},
                     {"table_ms", totals.table_ms}});
  return {{"real_steps_ms", real_steps_ms},
          {"table_steps_ms", table_steps_ms},
          {"outside_steps_ms", real_makespan_ms - real_steps_ms},
          {"kinds", std::move(kinds)}};
}

}  // namespace

json replay(const ReplayOptions& o, const ProgressFn& progress) {
  const json steps = measure(o.measure, part_of(progress, 0, kMeasureShare, "measuring: "))["steps"];
  const sim::StepTable table = sim::StepTable::from_json(steps);

  // Simulating first costs milliseconds and tells how long each real run will take, for the progress bar.
  json result = json::object();
  double simulated_total_ms = 0;
  for (const std::string& policy : o.policies) {
    json simulated = simulate_policy(steps, o, policy);
    simulated_total_ms += simulated["makespan_ms"].get<double>();
    result[policy] = {{"request_count", requests_for(o, policy).size()}, {"sim", std::move(simulated)}};
  }

  Model model(o.measure.model);
  const double runs_share = 1 - 2 * kMeasureShare;
  double progress_done = kMeasureShare;
  for (const std::string& policy : o.policies) {
    json& entry = result[policy];
    const std::vector<sim::Request> requests = requests_for(o, policy);
    const double share = simulated_total_ms > 0 ? runs_share * entry["sim"]["makespan_ms"].get<double>() / simulated_total_ms
                                                : runs_share / static_cast<double>(o.policies.size());
    EngineOptions engine_options;
    engine_options.prompt_seed = o.prompt_seed;
    const std::string phase = "serving " + policy;
    if (progress) {
      progress(progress_done, phase);
      engine_options.progress = [&](size_t finished) {
        progress(progress_done + share * static_cast<double>(finished) / static_cast<double>(requests.size()), phase);
      };
    }
    EngineRun run = run_engine(model, requests, policy, engine_options);
    progress_done += share;

    json real = real_metrics(run, o.timeline_requests);
    entry["error"] = relative_differences(real, entry["sim"]);
    entry["step_check"] = step_check(run.step_log, table, real["makespan_ms"].get<double>());
    entry["real"] = std::move(real);
  }

  // The machine's speed is not constant (other processes, and on a shared host other machines' memory
  // traffic): the same table measured again after the runs, and the simulation on it, show how far it
  // moved, so that an error can be read against the measurement's own repeatability.
  const json steps_after = measure(o.measure, part_of(progress, 1 - kMeasureShare, kMeasureShare, "measuring again: "))["steps"];
  for (const std::string& policy : o.policies)
    result[policy]["drift"] = relative_differences(result[policy]["sim"], simulate_policy(steps_after, o, policy));
  if (progress) progress(1.0, "done");
  return result;
}

}  // namespace kvlab::serve
