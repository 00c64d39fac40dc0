#pragma once
// What replay() gives for each policy, typed: the real run and the simulation of it, how far apart they
// are, and where the real time went; and its JSON, which the CLI prints and Embind returns.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiments/step_check.h"
#include "sim/metrics.h"
#include "sim/policy_result.h"
#include "sim/step_table.h"

namespace kvlab::experiments {

// (other - reference) / reference of median TTFT, p95 TTFT and makespan, as fractions; none where the
// reference is 0.
struct RelativeDifferences {
  std::optional<double> median_ttft;
  std::optional<double> p95_ttft;
  std::optional<double> makespan;

  nlohmann::json to_json() const;  // {median_ttft, p95_ttft, makespan}, null for none
};

RelativeDifferences relative_differences(const sim::PolicyMetrics& reference, const sim::PolicyMetrics& other);

// On a model with a tokenizer: a request's prompt and answer as text.
struct RequestText {
  std::string prompt;
  std::string answer;  // generate_text's: up to the first BOS or EOS
};

// The engine's run, reported as the simulator reports a policy, with what it answered.
struct RealRun {
  sim::PolicyResult result;
  std::vector<std::vector<int>> answers;  // each request's answer tokens, workload order
  // On a model with a tokenizer (else empty and none): each request's texts, and how many requests
  // answered as they do generated alone.
  std::vector<RequestText> texts;
  std::optional<int> answers_equal_alone;

  // The result's JSON, each request with its "tokens" and, with texts, "prompt_text" and "text".
  nlohmann::json to_json() const;
};

// The simulation's errors on the table without each part that prices a pass by what ran before it
// (measure/measure_pass_history.h), and without both: each only where the table has a part.
struct ErrorsWithoutHistory {
  std::optional<RelativeDifferences> after_prompt;
  std::optional<RelativeDifferences> prompt_pass;
  std::optional<RelativeDifferences> grid_only;
};

struct PolicyReplay {
  size_t request_count = 0;
  RealRun real;
  sim::PolicyResult sim;      // the same requests simulated on step_table
  RelativeDifferences error;  // sim against real
  // The simulation on the table measured right after the run against the one right before it: how far
  // the machine's own speed moved while the policy ran, the finest an error can be read.
  RelativeDifferences drift;
  ErrorsWithoutHistory error_without;
  StepCheck step_check;
  sim::StepTable step_table;  // the mean of the tables before and after the run, which sim is priced on
  int history_rounds = 0;     // rounds each cell of the table's history parts was measured over
};

struct NamedPolicyReplay {
  std::string name;  // the policy's name as given
  PolicyReplay replay;
};

// The policies' replays, in the order the policies were given.
struct ReplayResult {
  std::vector<NamedPolicyReplay> policies;

  // One object with a key per policy name, each
  //   { "request_count": N,
  //     "real":  { median_ttft_ms, p95_ttft_ms, makespan_ms, ..., requests: [... each with its answer's
  //                "tokens"], timeline: [...] },
  //     "sim":   { the same keys, from the simulator },
  //     "error": { median_ttft, p95_ttft, makespan }   (sim - real) / real, as fractions,
  //     "drift": { median_ttft, p95_ttft, makespan }   (sim on the table after the run - sim on the one
  //                                                      before) / the latter,
  //     "step_check": StepCheck::to_json(),
  //     "error_without": { "after_prompt": {...}, "prompt_pass": {...} } where the table has those parts,
  //                   and "error_grid_only" without any,
  //     "step_table": the table "sim" was computed on (the contract's steps.json), its "after_prompt" and
  //                   "prompt_pass" parts with their "rounds",
  //     "answers_equal_alone": on a model with a tokenizer, whose "real" requests carry "prompt_text" and
  //                   "text" }
  // "real" and "sim" hold every key of the simulator's per-policy result (sim/policy_result.h).
  nlohmann::json to_json() const;
};

}  // namespace kvlab::experiments
