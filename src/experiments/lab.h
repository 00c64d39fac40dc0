#pragma once
// The whole lab in one call: measure this machine (Part A and the step table), then replay a request
// queue on the measured step times under serving policies (Part B).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "measure/measure.h"
#include "policy/request.h"
#include "sim/simulate.h"

namespace kvlab::experiments {

struct LabOptions {
  MeasureOptions measure;
  nlohmann::json workload;                // a simulator workload object (generated or explicit), as given
  std::vector<policy::Request> requests;  // its requests
  std::vector<sim::NamedPolicy> policies;
  sim::SimulateOptions simulate;  // timeline length, KV memory budget, goodput targets
};

// The published lab's queue: 1,000 requests at t = 0, prompts 8-32, answers 16-96 tokens.
nlohmann::json default_workload();

// { "measure": {...}, "workload": {...}, "policies": [...], "simulate": {...}, "timeline_requests": K },
// every field optional ("timeline_requests" is short for "simulate": {"timeline_requests": K}). Throws InputError naming the field. The workload and policies are checked here, before
// anything is measured, so that a typo does not cost a whole measurement. With `file`, the lab measures
// that model (read_measure_options), and on a model with a tokenizer the workload may draw its prompts from
// the story openings ("prompts": "stories", sim/workload.h), their lengths in that model's tokens.
LabOptions read_lab_options(const nlohmann::json& object, const std::string& path = "options",
                            const FileModelRef& file = {});

// { "answer", "steps", "workload", "policies": { name: metrics }, "noisy" }. `noisy`: Part A or a step
// cell stayed wider than kNoisySpread after timing it again (is_noisy_result). `on_part` receives "first_answer",
// "answer" and "steps" as each is measured (see measure()).
nlohmann::json run_lab(const LabOptions& options, const ProgressFn& progress = nullptr,
                       const PartFn& on_part = nullptr);

// Whether a lab or measure result holds a noisy figure: Part A (answer.noisy) or a step cell
// (steps.model.timing.noisy_cells).
bool is_noisy_result(const nlohmann::json& result);

// Part A, then the policy table, then the published lab's figures for comparison.
std::string format_lab_report(const nlohmann::json& result);

}  // namespace kvlab::experiments
