#include "experiments/replay.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/input_error.h"
#include "measure/measure_pass_history.h"
#include "model/generate.h"
#include "model_files/text_generation.h"
#include "model_files/token_pieces.h"
#include "policy/policy_registry.h"
#include "serve/run_engine.h"
#include "sim/metrics.h"
#include "sim/mixed_step.h"
#include "sim/policy_result.h"
#include "sim/simulate.h"
#include "sim/step_table.h"
#include "sim/timeline.h"

namespace kvlab::experiments {

using nlohmann::json;

namespace {

// Share of the progress bar given to all the measurements together; the real runs share the rest in
// proportion to their simulated makespans. On the default options measuring takes about a third.
constexpr double kMeasuringShare = 0.35;

// A progress callback for the part of the bar from `start` to `start + share`.
ProgressFn part_of(const ProgressFn& progress, double start, double share, const std::string& phase_prefix) {
  if (!progress) return nullptr;
  return [&progress, start, share, phase_prefix](double fraction, const std::string& phase) {
    progress(start + share * fraction, phase_prefix + phase);
  };
}

// The step table of the moment on the replay's model: the grid, with the history parts.
sim::StepTable measure_table(Model& model, const ReplayOptions& o, const PassHistoryParts& history,
                             const ProgressFn& progress) {
  return measure_steps(model, o.measure, progress).with_history(history.after_prompt, history.prompt_pass);
}

// The history parts, measured once: ratios, which the machine's drift moves far less than it moves a
// step's time. None where the step is too short to time alone, or with after_prompt_rounds 0.
PassHistoryParts measure_history_parts(Model& model, const ReplayOptions& o, const ProgressFn& progress) {
  if (o.after_prompt_rounds == 0) return {};
  return measure_pass_history(model, o.measure, o.after_prompt_rounds, kMinRestedMs, progress);
}

// The table as the report gives it: with each history part's rounds (how it was measured).
json table_report(const sim::StepTable& table, const ReplayOptions& o) {
  json report = table.to_json();
  for (const char* part : {"after_prompt", "prompt_pass"})
    if (report.contains(part)) report[part]["rounds"] = o.after_prompt_rounds;
  return report;
}

// The greedy answer of each request generated alone (one sequence, its own KV cache): what the engine
// must answer under every policy. A prompt served more than once (a story opening) is generated once,
// for its longest answer, of which each shorter answer is the beginning.
std::vector<std::vector<int>> answers_alone(Model& model, const std::vector<policy::Request>& requests,
                                            const std::vector<std::vector<int>>& prompts) {
  std::map<std::vector<int>, int> longest;
  for (size_t i = 0; i < requests.size(); ++i) {
    int& n = longest[prompts[i]];
    n = std::max(n, requests[i].answer_tokens);
  }
  std::map<std::vector<int>, std::vector<int>> generated;
  for (const auto& [prompt, n] : longest) {
    KvCache cache(model.config(), static_cast<int>(prompt.size()) + n - 1);
    generated[prompt] = generate_with_cache(model, cache, prompt, n);
  }
  std::vector<std::vector<int>> answers;
  for (size_t i = 0; i < requests.size(); ++i) {
    const std::vector<int>& answer = generated[prompts[i]];
    answers.emplace_back(answer.begin(), answer.begin() + requests[i].answer_tokens);
  }
  return answers;
}

// On a model with a tokenizer: each request of the run (the "requests" of its metrics) with its prompt's
// text and its answer's text (generate_text's: up to the first BOS or EOS), and the count of requests
// whose answer is the one generated alone.
void add_texts(json& metrics, json& entry, const serve::EngineRun& run, const Tokenizer& tokenizer,
               const std::vector<std::vector<int>>& alone) {
  int equal_alone = 0;
  for (size_t i = 0; i < run.requests.size(); ++i) {
    const serve::ServedRequest& served = run.requests[i];
    json& request = metrics["requests"][i];
    const std::vector<int> prompt_after_bos(served.prompt.begin() + 1, served.prompt.end());
    request["prompt_text"] = token_text(tokenizer, served.prompt.front(), prompt_after_bos);
    request["text"] = token_text(tokenizer, served.prompt.back(), text_tokens(served.answer, tokenizer.vocabulary()));
    equal_alone += served.answer == alone[i];
  }
  entry["answers_equal_alone"] = equal_alone;
}

// The real run's result, as the simulator gives one.
sim::PolicyResult real_result(const serve::EngineRun& run, int timeline_requests) {
  std::vector<policy::RequestState> states;
  states.reserve(run.requests.size());
  for (const serve::ServedRequest& request : run.requests) states.push_back(request.state);
  sim::PolicyResult real;
  real.metrics = sim::policy_metrics(states, static_cast<long long>(run.step_log.records().size()));
  real.timeline = sim::timeline(states, timeline_requests);
  real.memory = run.memory;
  return real;
}

// The real run's result as JSON, each request with its answer's tokens, to compare runs (each policy's,
// the CPU's and a device's) token for token.
json real_json(const sim::PolicyResult& real, const serve::EngineRun& run) {
  json metrics = real.to_json();
  for (size_t i = 0; i < run.requests.size(); ++i) metrics["requests"][i]["tokens"] = run.requests[i].answer;
  return metrics;
}

sim::PolicyResult simulate_policy(const sim::StepTable& steps, const ReplayOptions& o, const sim::NamedPolicy& policy) {
  return std::move(
      sim::simulate(steps, requests_for(o, policy.policy), {policy}, simulate_options(o)).policies[0].result);
}

// (other - reference) / reference for median TTFT, p95 TTFT and makespan; null where the reference is 0.
json relative_differences(const sim::PolicyMetrics& reference, const sim::PolicyMetrics& other) {
  auto difference = [](double base, double value) { return base != 0 ? json((value - base) / base) : json(); };
  return {{"median_ttft", difference(reference.median_ttft_ms, other.median_ttft_ms)},
          {"p95_ttft", difference(reference.p95_ttft_ms, other.p95_ttft_ms)},
          {"makespan", difference(reference.makespan_ms, other.makespan_ms)}};
}

// How far the derived mixed-step formula is from the table's measured mixed grid, over its cells.
json formula_check(const sim::StepTable& table) {
  const std::vector<double> errors = sim::derived_formula_errors(table);
  double sum_abs = 0, max_abs = 0;
  for (double error : errors) {
    sum_abs += std::abs(error);
    max_abs = std::max(max_abs, std::abs(error));
  }
  return {{"cells", errors.size()},
          {"mean_abs_error", errors.empty() ? json() : json(sum_abs / static_cast<double>(errors.size()))},
          {"max_abs_error", errors.empty() ? json() : json(max_abs)}};
}

struct PassTotals {
  long long steps = 0;
  double real_ms = 0, table_ms = 0, derived_ms = 0;

  void add(double pass_real_ms, double pass_table_ms) {
    ++steps;
    real_ms += pass_real_ms;
    table_ms += pass_table_ms;
  }
  json to_json(const char* key, const std::string& value) const {
    return {{key, value}, {"steps", steps}, {"real_ms", real_ms}, {"table_ms", table_ms}};
  }
};

// Decode passes grouped by how many passes ago the last prompt pass ran (a prefill, a no-cache pass or a
// mixed step with a prompt chunk), by the first count of each group.
constexpr std::pair<int, const char*> kPassesSincePrompt[] = {{1, "1"},   {2, "2"},    {3, "3"},
                                                              {4, "4-7"}, {8, "8-15"}, {16, "16+"}};

// Which of kPassesSincePrompt `passes` falls in.
size_t passes_since_prompt_group(int passes) {
  size_t group = 0;
  while (group + 1 < std::size(kPassesSincePrompt) && kPassesSincePrompt[group + 1].first <= passes) ++group;
  return group;
}

// Every forward pass of the run priced on the table, summed by kind and row count. Where the table has
// the measured mixed grid, mixed steps are also priced by the derived formula (derived_ms), and the
// formula is compared with the grid's cells (mixed_formula). Also summed by what ran before: decode
// passes by the passes since the last prompt pass, prompt passes by the pass just before. The table
// times each cell in a stretch of its own, and on some hosts a pass costs more soon after dense prompt
// work (docs/replay.md, "An Intel host"): these sums show how much.
json step_check(const serve::StepLog& log, const sim::StepTable& table, double real_makespan_ms) {
  std::map<std::pair<serve::StepKind, int>, PassTotals> by_kind;
  std::vector<PassTotals> decode_by_passes_since_prompt(std::size(kPassesSincePrompt));
  std::map<std::string, PassTotals> prompt_by_pass_before;
  int passes_since_prompt = -1;  // none yet
  std::string pass_before = "none";
  double real_steps_ms = 0, table_steps_ms = 0;
  for (const serve::StepRecord& record : log.records()) {
    const int* contexts = log.contexts(record);
    auto context_of = [&](int row) { return contexts[row]; };
    auto span_of = [&](int i) {
      return std::pair<int, int>(contexts[record.sequences + 2 * i], contexts[record.sequences + 2 * i + 1]);
    };
    PassTotals& totals = by_kind[{record.kind, record.sequences}];
    const double real_ms = record.end_ms - record.start_ms;
    double table_ms = 0;
    if (record.kind == serve::StepKind::decode) {
      table_ms = table.decode_step_ms(record.sequences, context_of);
    } else if (record.kind == serve::StepKind::mixed) {
      table_ms = sim::mixed_step_ms(table, record.sequences, context_of, record.chunks, span_of);
      totals.derived_ms += sim::derived_mixed_step_ms(table, record.sequences, context_of, record.chunks, span_of);
    } else {
      table_ms = table.prefill_ms(contexts[0]);
      prompt_by_pass_before[pass_before].add(real_ms, table_ms);
    }
    // A mixed step without a prompt chunk is a decode pass (chunked prefill runs every pass as mixed).
    const bool decode_only =
        record.kind == serve::StepKind::decode || (record.kind == serve::StepKind::mixed && record.chunks == 0);
    if (!decode_only)
      passes_since_prompt = 0;
    else if (passes_since_prompt >= 0)
      decode_by_passes_since_prompt[passes_since_prompt_group(++passes_since_prompt)].add(real_ms, table_ms);
    pass_before = decode_only ? "decode" : step_kind_name(record.kind);
    totals.add(real_ms, table_ms);
    real_steps_ms += real_ms;
    table_steps_ms += table_ms;
  }
  json kinds = json::array();
  for (const auto& [key, totals] : by_kind) {
    json kind = totals.to_json("kind", step_kind_name(key.first));
    kind["rows"] = key.second;
    if (key.first == serve::StepKind::mixed && table.has_mixed()) kind["derived_ms"] = totals.derived_ms;
    kinds.push_back(std::move(kind));
  }
  json decode_history = json::array();
  for (size_t group = 0; group < decode_by_passes_since_prompt.size(); ++group)
    if (decode_by_passes_since_prompt[group].steps > 0)
      decode_history.push_back(
          decode_by_passes_since_prompt[group].to_json("passes_since_prompt", kPassesSincePrompt[group].second));
  json prompt_history = json::array();
  for (const auto& [before, totals] : prompt_by_pass_before)
    prompt_history.push_back(totals.to_json("pass_before", before));
  json check = {{"real_steps_ms", real_steps_ms},
                {"table_steps_ms", table_steps_ms},
                {"outside_steps_ms", real_makespan_ms - real_steps_ms},
                {"kinds", std::move(kinds)},
                {"decode_by_passes_since_prompt", std::move(decode_history)},
                {"prompt_by_pass_before", std::move(prompt_history)}};
  if (table.has_mixed()) check["mixed_formula"] = formula_check(table);
  return check;
}

// The errors of a run priced without each part of the table that prices a pass by what ran before it
// (measure_pass_history.h), and without any ("grid_only").
void add_errors_without_parts(json& entry, const sim::PolicyMetrics& real, const sim::StepTable& table,
                              const ReplayOptions& o, const sim::NamedPolicy& policy) {
  if (!table.after_prompt().empty())
    entry["error_without"]["after_prompt"] =
        relative_differences(real, simulate_policy(table.without_after_prompt(), o, policy).metrics);
  if (!table.prompt_pass().empty())
    entry["error_without"]["prompt_pass"] =
        relative_differences(real, simulate_policy(table.without_prompt_pass(), o, policy).metrics);
  if (entry.contains("error_without"))
    entry["error_grid_only"] = relative_differences(
        real, simulate_policy(table.without_after_prompt().without_prompt_pass(), o, policy).metrics);
}

// Throws InputError for the first policy that keeps its KV in blocks of one pool, which a device does not.
void check_device_policies(const ReplayOptions& o) {
  for (size_t i = 0; i < o.policies.size(); ++i) {
    const std::string path = "options.policies[" + std::to_string(i) + "]";
    if (o.policies[i].policy.traits().keeps_kv_in_blocks)
      throw_range({path, o.policies[i].name, {}},
                  "keeps its KV cache in blocks that requests share, which the GPU does not replay: its KV cache "
                  "holds one whole sequence per slot (replay it on the CPU)");
  }
}

// Runs the model's greedy passes on a device for as long as it lives.
class RunOnDevice {
 public:
  RunOnDevice(Model& model, ForwardDevice* device) : model_(model) { model_.run_on(device); }
  ~RunOnDevice() { model_.run_on(nullptr); }
  RunOnDevice(const RunOnDevice&) = delete;
  RunOnDevice& operator=(const RunOnDevice&) = delete;

 private:
  Model& model_;
};

}  // namespace

json replay(const ReplayOptions& o, const ProgressFn& caller_progress, ForwardDevice* device) {
  if (device) check_device_policies(o);
  // The bar is made of shares computed from measured times, whose sums may step back by a rounding
  // error between one part and the next: the caller sees a fraction that never goes back or past 1.
  double reported = 0;
  ProgressFn progress = nullptr;
  if (caller_progress)
    progress = [&](double fraction, const std::string& phase) {
      reported = std::clamp(fraction, reported, 1.0);
      caller_progress(reported, phase);
    };
  // The measuring share is split between the history parts, the table before the runs and the table
  // after each run.
  const double measure_share = kMeasuringShare / static_cast<double>(o.policies.size() + 2);
  // One model serves every run and is timed for every table, so a run is priced on its own weights:
  // with a table timed on a model of its own, one-row decode steps in Node wasm ran 6-12% slower in
  // the engine than in the table (where the weights sit in memory matters to a memory-bound step).
  MeasuredModel measured(o.measure);
  Model& model = measured.model();
  const Tokenizer* tokenizer = o.measure.file.tokenizer;
  // Every run serves the same prompts; a chat's are written with its turns' answers, generated here once.
  if (progress) progress(0, "writing the prompts");
  const std::vector<std::vector<int>> prompts =
      serve::served_prompts(model, o.requests, o.prompt_seed, o.story_prompts);
  // On a model that writes text, what each request answers alone, to check each run's answers against.
  const std::vector<std::vector<int>> alone =
      tokenizer ? answers_alone(model, o.requests, prompts) : std::vector<std::vector<int>>();
  const RunOnDevice on_device(model, device);
  if (progress && o.after_prompt_rounds > 0) progress(0, "measuring: passes by what ran before them");
  const PassHistoryParts history = measure_history_parts(model, o, part_of(progress, 0, measure_share, "measuring: "));
  sim::StepTable before =
      measure_table(model, o, history, part_of(progress, measure_share, measure_share, "measuring: "));
  const std::vector<sim::NamedPolicy>& policies = o.policies;
  const policy::KvSettings kv = sim::kv_settings(simulate_options(o), &before);

  // Simulated makespans tell how long each real run will take: for the bound on serving, and the progress bar.
  std::vector<double> simulated_ms;
  double simulated_total_ms = 0;
  for (const sim::NamedPolicy& policy : policies) {
    simulated_ms.push_back(simulate_policy(before, o, policy).metrics.makespan_ms);
    simulated_total_ms += simulated_ms.back();
  }
  check_serving_time(o, simulated_ms);

  json result = json::object();
  double progress_done = 2 * measure_share;
  for (size_t i = 0; i < policies.size(); ++i) {
    const sim::NamedPolicy& policy = policies[i];
    const std::vector<policy::Request> requests = requests_for(o, policy.policy);
    const double share =
        (1 - kMeasuringShare) *
        (simulated_total_ms > 0 ? simulated_ms[i] / simulated_total_ms : 1.0 / static_cast<double>(o.policies.size()));
    serve::EngineOptions engine_options;
    engine_options.prompts.assign(prompts.begin(), prompts.begin() + static_cast<std::ptrdiff_t>(requests.size()));
    engine_options.kv = kv;
    const std::string phase = "serving " + policy.name;
    if (progress) {
      progress(progress_done, phase);
      engine_options.progress = [&](size_t finished) {
        progress(progress_done + share * static_cast<double>(finished) / static_cast<double>(requests.size()), phase);
      };
    }
    const serve::EngineRun run = serve::run_engine(model, requests, policy.policy, engine_options);
    progress_done += share;

    // The machine's speed moves under the measurement (other processes; on a shared host, other
    // machines' memory traffic): by 10-20% within a minute here. So the table is measured again right
    // after each run, and the run is priced on the mean of the tables just before and just after it,
    // the best estimate of the machine's speed while it ran. How far the two tables disagree is the
    // run's drift: the error cannot be read more finely than that.
    sim::StepTable after =
        measure_table(model, o, history, part_of(progress, progress_done, measure_share, "measuring again: "));
    progress_done += measure_share;
    const sim::StepTable mean = sim::StepTable::mean(before, after);
    const sim::PolicyResult real = real_result(run, o.timeline_requests);
    const sim::PolicyResult simulated = simulate_policy(mean, o, policy);
    json& entry = result[policy.name];
    json real_report = real_json(real, run);
    if (tokenizer) add_texts(real_report, entry, run, *tokenizer, alone);
    entry.update({{"request_count", requests.size()},
                  {"error", relative_differences(real.metrics, simulated.metrics)},
                  {"drift", relative_differences(simulate_policy(before, o, policy).metrics,
                                                 simulate_policy(after, o, policy).metrics)},
                  {"step_check", step_check(run.step_log, mean, real.metrics.makespan_ms)},
                  {"step_table", table_report(mean, o)},
                  {"real", std::move(real_report)},
                  {"sim", simulated.to_json()}});
    add_errors_without_parts(entry, real.metrics, mean, o, policy);
    before = std::move(after);
  }
  if (progress) progress(1.0, "done");
  return result;
}

}  // namespace kvlab::experiments
