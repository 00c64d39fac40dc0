#pragma once
// The lab's Part A and the step-time table of the simulator contract (docs/contract.md §1):
//   answer: one prompt answered `runs` times without and with a KV cache, timings and tokens;
//   steps:  decode steps over rows x contexts, prefills over token counts and mixed steps over prompt
//           chunk x decode rows x contexts, in milliseconds.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/progress.h"
#include "measure/measure_options.h"
#include "model/model.h"
#include "sim/step_table.h"

namespace kvlab {

// Called with a part of the result as soon as it is measured, so that a page can show it while the
// rest is still running: "first_answer" (Part A from the first run of each path, runs = 1), then
// "answer" and "steps", which are the values the final result holds.
using PartFn = std::function<void(const std::string& name, const nlohmann::json& value)>;

// The model `options` measure: the caller's model read from files (options.file), or the preset's
// random weights, built here; it computes on options.threads threads.
class MeasuredModel {
 public:
  explicit MeasuredModel(const MeasureOptions& options);
  Model& model() { return *model_; }

 private:
  std::unique_ptr<Model> preset_model_;
  Model* model_;
};

// What measure() measures: Part A (a report, JSON as the contract writes it) and the step table.
struct Measurement {
  nlohmann::json answer;
  sim::StepTable steps;
  // { "answer": {...}, "steps": {...} }, as `measure --json` and Embind's measure() give it.
  nlohmann::json to_json() const { return {{"answer", answer}, {"steps", steps.to_json()}}; }
};

// Part A and the step table on the model of `options` (MeasuredModel). On a model with a tokenizer the
// answer also holds "prompt_text" and "pieces" (one string per token of tokens_nocache, as the tokenizer
// writes it), and steps.model its "name" and "source": "file".
Measurement measure(const MeasureOptions& options, const ProgressFn& progress = nullptr,
                    const PartFn& on_part = nullptr);

// The step table alone, timed on the caller's model (whose config must be options.model): the replay
// prices a run on the weights that served it.
sim::StepTable measure_steps(Model& model, const MeasureOptions& options, const ProgressFn& progress = nullptr);
// The same, with `thread_check` (what measure()'s check of the threads chose: thread_check.h) as
// steps.model.thread_check.
sim::StepTable measure_steps(Model& model, const MeasureOptions& options, const ProgressFn& progress,
                             const nlohmann::json& thread_check);

// Decode rows whose step can be timed over and over: up to max_rows rows, each with its own KV cache
// holding the first max_context - 1 positions of one prompt drawn from `seed` (one real prefill, copied);
// a step over rows(r, c) rewrites position c - 1 of each row's cache only, so it leaves them as it found
// them, in any order.
class RepeatableDecodeRows {
 public:
  RepeatableDecodeRows(Model& model, const ModelConfig& config, int max_rows, int max_context, uint64_t seed);
  // n_rows rows at context c (<= max_rows, max_context); they point into this object's caches.
  std::vector<Row> rows(int n_rows, int context);

 private:
  std::vector<KvCache> caches_;  // [max_rows], max_context positions each
  std::vector<int> history_;     // [max_context] the prompt they hold
};

// Sizes of the model the options describe: parameters, bytes, KV bytes per token, instruction set.
nlohmann::json model_info(const MeasureOptions& options);

}  // namespace kvlab
