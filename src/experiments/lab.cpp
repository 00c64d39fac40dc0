#include "experiments/lab.h"

#include "common/input_error.h"
#include "common/json_fields.h"
#include "measure/measure_report.h"
#include "model_files/story_prompts.h"
#include "policy/policy_registry.h"
#include "sim/context_fit.h"
#include "sim/simulate.h"
#include "sim/workload.h"

namespace kvlab::experiments {

using nlohmann::json;

json default_workload() {
  return {
      {"count", 1000}, {"prompt", {8, 32}}, {"answer", {16, 96}}, {"arrival", {{"kind", "all-at-zero"}}}, {"seed", 1}};
}

namespace {

// A step table with the grids of `o` and unit costs: enough for the simulator to validate a workload
// and policies before the real table exists.
sim::StepTable placeholder_steps(const MeasureOptions& o) {
  sim::StepGrids grids;
  grids.decode_rows = o.decode_rows;
  grids.decode_contexts = o.decode_contexts;
  grids.decode_ms.assign(o.decode_rows.size() * o.decode_contexts.size(), 1.0);
  grids.prefill_tokens = o.prefill_tokens;
  grids.prefill_ms.assign(o.prefill_tokens.size(), 1.0);
  return sim::StepTable(std::move(grids), model_info(o));
}

}  // namespace

LabOptions read_lab_options(const json& object, const std::string& path, const FileModelRef& file) {
  fields::require_object(object, path);
  fields::reject_unknown(object, path, {"measure", "workload", "policies", "simulate", "timeline_requests"});
  LabOptions o;
  o.measure = read_measure_options(object.value("measure", json::object()), fields::join(path, "measure"), file);
  o.workload = object.value("workload", default_workload());
  const std::vector<std::string> policy_names =
      object.contains("policies") ? policy::read_policy_names(object["policies"], fields::join(path, "policies"))
                                  : policy::default_policies();
  o.simulate = sim::read_simulate_options(object.value("simulate", json::object()), fields::join(path, "simulate"));
  if (object.contains("timeline_requests")) {  // the shorthand the page uses; once only
    if (object.value("simulate", json::object()).contains("timeline_requests"))
      throw_range({fields::join(path, "timeline_requests"), "", {}},
                  "and " + fields::join(path, "simulate.timeline_requests") + " are the same setting: give it once");
    o.simulate.timeline_requests = static_cast<int>(fields::read_int(object, path, "timeline_requests", 60, 0, 1000));
  }
  // The workload and the policy names read where the caller put them, so that an error names the field
  // as options.workload... and options.policies[i]; then simulating on unit costs validates the rest
  // (memory settings, what each policy needs) at a small cost next to a measurement, so that a typo fails
  // at once rather than after it.
  const std::vector<int> story_tokens =
      file.tokenizer ? token_counts(encode_story_openings(*file.tokenizer)) : std::vector<int>();
  o.requests = sim::read_workload(o.workload, fields::join(path, "workload"), story_tokens);
  o.policies = sim::parse_policies(policy_names, fields::join(path, "policies"));
  const std::string workload_path = fields::join(path, "workload");
  const bool generated = o.workload.is_object() && o.workload.contains("count");
  sim::check_request_results(o.requests.size(), o.policies.size(), generated ? workload_path + ".count" : workload_path,
                             generated);
  sim::SimulateOptions check = o.simulate;
  check.timeline_requests = 0;
  check.queue_timeline = false;
  const sim::StepTable placeholder = placeholder_steps(o.measure);
  sim::check_requests_fit(placeholder.max_seq(), o.requests, o.workload, fields::join(path, "workload"));
  sim::simulate(placeholder, o.requests, o.policies, check);
  return o;
}

json run_lab(const LabOptions& o, const ProgressFn& progress, const PartFn& on_part) {
  // Measurement is nearly all the time; simulation gets the last 2%.
  ProgressFn measure_progress;
  if (progress) measure_progress = [&](double fraction, const std::string& phase) { progress(0.98 * fraction, phase); };
  const Measurement measured = measure(o.measure, measure_progress, on_part);
  if (progress) progress(0.98, "simulating");
  json result = measured.to_json();
  result["workload"] = o.workload;
  result["policies"] = sim::simulate(measured.steps, o.requests, o.policies, o.simulate).to_json();
  result["noisy"] = is_noisy_result(result);
  if (progress) progress(1.0, "done");
  return result;
}

bool is_noisy_result(const json& result) {
  return result["answer"].value("noisy", false) ||
         !result["steps"]["model"]["timing"].value("noisy_cells", json::array()).empty();
}

std::string format_lab_report(const json& result) {
  const std::string noisy_note =
      result.value("noisy", false)
          ? "~ priced on step times some of which stayed noisy after timing them again (Part A marks them): the "
            "device was busy, and another run may differ\n"
          : "";
  return "Part A: one answer, and one step\n\n" + format_measure_report(result) +
         "\nPart B: the queue, replayed on the step times above\n\n" + sim::format_policy_table(result["policies"]) +
         noisy_note +
         "\npublished lab (Apple M2 Pro, single-threaded JavaScript), same queue:\n"
         "policy                    median TTFT    p95 TTFT    all done    tokens/s\n"
         "one at a time, no cache       452.2 s     851.5 s     892.3 s          64\n"
         "one at a time, KV cache        23.9 s      45.1 s      47.3 s       1,203\n"
         "static batches of 16           21.2 s      40.5 s      42.8 s       1,331\n"
         "continuous, 16 slots           13.8 s      26.4 s      27.8 s       2,044\n";
}

}  // namespace kvlab::experiments
