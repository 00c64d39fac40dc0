#pragma once
// The lab's Part A and the step-time table of the simulator contract (docs/contract.md §1):
//   answer: one prompt answered `runs` times without and with a KV cache, timings and tokens;
//   steps:  decode steps over rows x contexts, prefills over token counts and mixed steps over prompt
//           chunk x decode rows x contexts, in milliseconds.
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "bench/measure_options.h"
#include "model/model.h"

namespace kvlab {

// Called with the fraction done (0..1) and the current phase's name.
using ProgressFn = std::function<void(double fraction, const std::string& phase)>;

// Called with a part of the result as soon as it is measured, so that a page can show it while the
// rest is still running: "first_answer" (Part A from the first run of each path, runs = 1), then
// "answer" and "steps", which are the values the final result holds.
using PartFn = std::function<void(const std::string& name, const nlohmann::json& value)>;

// Returns { "answer": {...}, "steps": {...} }.
nlohmann::json measure(const MeasureOptions& options, const ProgressFn& progress = nullptr,
                       const PartFn& on_part = nullptr);

// The "steps" part alone, timed on the caller's model (whose config must be options.model): the
// replay prices a run on the weights that served it.
nlohmann::json measure_steps(Model& model, const MeasureOptions& options, const ProgressFn& progress = nullptr);

// Sizes of the model the options describe: parameters, bytes, KV bytes per token, instruction set.
nlohmann::json model_info(const MeasureOptions& options);

}  // namespace kvlab
