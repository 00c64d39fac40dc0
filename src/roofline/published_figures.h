#pragma once
// Measurements others published for preset pairs, with their conditions, so that the model can be priced
// on the same conditions and its error shown (docs/gpu.md). A figure marked `fit` belongs to the subset the
// two efficiency factors are chosen on; the others only check them.
#include <vector>

#include "roofline/number_formats.h"

namespace kvlab::roofline {

enum class Metric {
  decode_tokens_per_s,        // `batch` rows decode `output_tokens` tokens each after `input_tokens`
  ttft_ms,                    // batch 1: prefill of `input_tokens` tokens
  prefill_tokens_per_s,       // batch 1: input_tokens / prefill time
  batch_tokens_per_s_per_gpu  // a static batch: prefill all `batch` prompts at once, then output_tokens - 1 steps
};

struct PublishedFigure {
  const char* id;          // short name used by the tests and docs/gpu.md
  const char* source;      // where it was published
  const char* conditions;  // how it was measured, as the source says
  const char* gpu;
  const char* model;
  WeightFormat weights;
  KvFormat kv;
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

}  // namespace kvlab::roofline
