#include "experiments/replay.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/input_error.h"
#include "experiments/step_check.h"
#include "measure/measure_pass_history.h"
#include "model/generate.h"
#include "model_files/text_generation.h"
#include "model_files/token_pieces.h"
#include "policy/policy_registry.h"
#include "serve/run_engine.h"
#include "sim/metrics.h"
#include "sim/policy_result.h"
#include "sim/simulate.h"
#include "sim/step_table.h"
#include "sim/timeline.h"

namespace kvlab::experiments {

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

// The real run reported as the simulator reports a policy, with its answers and, on a model with a
// tokenizer, each request's texts and whether it answered as generated `alone`.
RealRun real_run(const serve::EngineRun& run, int timeline_requests, const Tokenizer* tokenizer,
                 const std::vector<std::vector<int>>& alone) {
  std::vector<policy::RequestState> states;
  states.reserve(run.requests.size());
  for (const serve::ServedRequest& request : run.requests) states.push_back(request.state);
  RealRun real;
  real.result.metrics = sim::policy_metrics(states, static_cast<long long>(run.step_log.records().size()));
  real.result.timeline = sim::timeline(states, timeline_requests);
  real.result.memory = run.memory;
  // The answers, to compare runs (each policy's, the CPU's and a device's) token for token.
  for (const serve::ServedRequest& served : run.requests) real.answers.push_back(served.answer);
  if (!tokenizer) return real;
  int equal_alone = 0;
  for (size_t i = 0; i < run.requests.size(); ++i) {
    const serve::ServedRequest& served = run.requests[i];
    const size_t bos = tokenizer->adds_bos() ? 1 : 0;
    const std::vector<int> prompt_after_bos(served.prompt.begin() + bos, served.prompt.end());
    real.texts.push_back(
        {token_text(*tokenizer, bos ? served.prompt.front() : -1, prompt_after_bos),
         token_text(*tokenizer, served.prompt.back(), text_tokens(served.answer, tokenizer->vocabulary()))});
    equal_alone += served.answer == alone[i];
  }
  real.answers_equal_alone = equal_alone;
  return real;
}

sim::PolicyResult simulate_policy(const sim::StepTable& steps, const ReplayOptions& o, const sim::NamedPolicy& policy) {
  return std::move(
      sim::simulate(steps, requests_for(o, policy.policy), {policy}, simulate_options(o)).policies[0].result);
}

// The errors of a run priced without each part of the table that prices a pass by what ran before it, and
// without any.
ErrorsWithoutHistory errors_without_history(const sim::PolicyMetrics& real, const sim::StepTable& table,
                                            const ReplayOptions& o, const sim::NamedPolicy& policy) {
  auto error_on = [&](const sim::StepTable& priced) {
    return relative_differences(real, simulate_policy(priced, o, policy).metrics);
  };
  ErrorsWithoutHistory errors;
  if (!table.after_prompt().empty()) errors.after_prompt = error_on(table.without_after_prompt());
  if (!table.prompt_pass().empty()) errors.prompt_pass = error_on(table.without_prompt_pass());
  if (errors.after_prompt || errors.prompt_pass)
    errors.grid_only = error_on(table.without_after_prompt().without_prompt_pass());
  return errors;
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

ReplayResult replay(const ReplayOptions& o, const ProgressFn& caller_progress, ForwardDevice* device) {
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

  ReplayResult result;
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
    sim::StepTable mean = sim::StepTable::mean(before, after);
    RealRun real = real_run(run, o.timeline_requests, tokenizer, alone);
    const sim::PolicyMetrics& real_metrics = real.result.metrics;
    sim::PolicyResult simulated = simulate_policy(mean, o, policy);
    const RelativeDifferences error = relative_differences(real_metrics, simulated.metrics);
    const RelativeDifferences drift =
        relative_differences(simulate_policy(before, o, policy).metrics, simulate_policy(after, o, policy).metrics);
    ErrorsWithoutHistory error_without = errors_without_history(real_metrics, mean, o, policy);
    StepCheck check = step_check(run.step_log, mean, real_metrics.makespan_ms);
    result.policies.push_back({policy.name,
                               {requests.size(), std::move(real), std::move(simulated), error, drift,
                                std::move(error_without), std::move(check), std::move(mean), o.after_prompt_rounds}});
    before = std::move(after);
  }
  if (progress) progress(1.0, "done");
  return result;
}

}  // namespace kvlab::experiments
