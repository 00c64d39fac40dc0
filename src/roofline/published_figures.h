#pragma once
// Measurements others published for preset pairs, with their conditions, so that the model can be priced
// on the same conditions and its error shown (docs/gpu.md): the figures, the model's figure and error for
// each, the choice of the two efficiency factors on the `fit` subset (so that the other figures check the
// model instead of tuning it), and the comparison as JSON (Embind, the page) and as text (kvlab roofline
// --checks).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "roofline/deployment.h"

namespace kvlab::roofline {

enum class Metric {
  decode_tokens_per_s,        // `batch` rows decode `output_tokens` tokens each after `input_tokens`
  ttft_ms,                    // batch 1: prefill of `input_tokens` tokens
  prefill_tokens_per_s,       // batch 1: input_tokens / prefill time
  batch_tokens_per_s_per_gpu  // a static batch: prefill all `batch` prompts at once, then output_tokens - 1 steps
};

// Where figures were published: a short name for a label, the full reference (the version read) and the
// address of that version.
struct FigureSource {
  const char* name;
  const char* reference;
  const char* url;
};

struct PublishedFigure {
  const char* id;          // short name used by the tests and docs/gpu.md
  FigureSource source;     // where it was published
  const char* conditions;  // how it was measured, as the source says
  const char* gpu;
  const char* model;
  NumberFormat weights;
  NumberFormat kv;
  int tp;
  Metric metric;
  int batch, input_tokens, output_tokens;
  double published;
  bool fit;
  // Why the model cannot match this figure, when a cause outside it is known or likely; nullptr otherwise.
  // Such figures are checked against a wider tolerance (docs/gpu.md).
  const char* known_gap = nullptr;
};

const std::vector<PublishedFigure>& published_figures();
const char* metric_unit(Metric metric);

struct Efficiencies {
  double bandwidth;
  double compute;
  // Whether each is the fitted one or the caller's own (a report must not call the caller's value fitted).
  bool bandwidth_fitted = true;
  bool compute_fitted = true;
};

// The deployment a figure was measured on, with these factors.
Deployment deployment_of(const PublishedFigure& figure, const Efficiencies& efficiencies);

// The model's figure under the same conditions, in the figure's unit.
double modeled_figure(const PublishedFigure& figure, const Efficiencies& efficiencies);

// modeled / published - 1.
double relative_error(const PublishedFigure& figure, const Efficiencies& efficiencies);

// The factors, on a 0.01 grid (bandwidth 0.30..1, compute 0.10..1), that minimise the sum of squared log
// errors over the `fit` figures.
Efficiencies fit_efficiencies();

// {efficiencies: {bandwidth, compute, bandwidth_fitted, compute_fitted, fitted_on: [ids]}, figures: [{id, source,
// source_name, source_url, conditions, gpu, model, weights, kv, tp, unit, published, modeled, error_pct, fit}]}
nlohmann::json published_checks_json(const Efficiencies& efficiencies);

std::string format_published_checks(const nlohmann::json& checks);

}  // namespace kvlab::roofline
