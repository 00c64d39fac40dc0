#pragma once
// What `measure` measures: the model, the one-answer comparison (Part A) and the step-time grids.
// Read from a JSON object (the Embind options object, or built from CLI flags) with every field
// validated before anything is allocated.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/memory_budget.h"
#include "measure/step_timer.h"
#include "model/config.h"
#include "model/model.h"
#include "model_files/tokenizer.h"

namespace kvlab {

// A model read from files, which the caller loaded and keeps alive while it is measured: measured
// instead of a preset's random weights. `model` is null when a preset is measured.
struct FileModelRef {
  Model* model = nullptr;
  const Tokenizer* tokenizer = nullptr;  // when given, Part A's prompt is text and its answer words
  std::string name;                      // "stories15M", or the file's base name
};

struct MeasureOptions {
  std::string preset = "small";
  ModelConfig model;  // the preset, with any fields of options.model applied; a file model's own
  FileModelRef file;  // the model read from files, if one is measured (then `preset` is unused)
  // Part A's prompt on a model with a tokenizer: the text (options.prompt_text, or a story opening
  // picked by prompt_seed) and its ids, BOS first; prompt_tokens is their count. Empty otherwise: the
  // prompt is prompt_tokens ids drawn from prompt_seed.
  std::string prompt_text;
  std::vector<int> prompt;
  int prompt_tokens = 16;    // Part A prompt length
  int answer_tokens = 48;    // Part A answer length
  int runs = 5;              // Part A runs per path
  uint64_t prompt_seed = 7;  // Part A prompt draw
  std::vector<int> decode_rows = {1, 2, 4, 8, 16};
  std::vector<int> decode_contexts = {8, 16, 32, 64, 128};
  std::vector<int> prefill_tokens = {1, 2, 4, 8, 16, 32, 64, 128};
  // The mixed-step grid (chunked prefill's step): one prompt chunk of mixed_chunk_tokens tokens and
  // mixed_rows decode rows, every row at mixed_contexts, in one forward pass. Four small cells by
  // default (a cell costs about a prefill of chunk + rows tokens; 13% of a replay's grid: docs/memory.md): the
  // simulator interpolates between them, and beyond them, as it does on the decode grid. One context:
  // the rows' attention is a small part of such a step on these models.
  std::vector<int> mixed_chunk_tokens = {8, 32};
  std::vector<int> mixed_rows = {1, 8};
  std::vector<int> mixed_contexts = {64};
  // Whether the mixed-step grid is timed at all: replay leaves it out when none of its policies runs a
  // mixed step (its cells are 13% of a replay's grid work: docs/memory.md section 1).
  bool mixed_grid = true;
  TimingPolicy timing;
  // Threads the model runs on (1 .. max_threads(), model/thread_pool.h); the steps' results say it as
  // steps.model.threads when it is not 1.
  int threads = 1;
  // With threads > 1, whether measure() first checks that they are faster than one and otherwise runs on
  // one (measure/thread_check.h); false: it runs on `threads` whatever they cost.
  bool thread_check = true;
};

// The largest mixed step the grid times: its rows, their context and its chunk; all 0 when the grid is
// not timed (mixed_grid false), so that nothing is reserved for it.
struct LargestMixedStep {
  int rows = 0;
  int context = 0;
  int chunk_tokens = 0;
};
LargestMixedStep largest_mixed_step(const MeasureOptions& options);

// Upper bound on the memory one measurement may use (weights, caches, scratch), so that a request
// that cannot fit in a browser tab's wasm memory is refused up front instead of failing midway.
constexpr int64_t kMaxMeasureBytes = kMaxCallBytes;

// The largest Part A run count.
constexpr int kMaxRuns = 100;

// The cells the step grids time: decode rows x contexts, the prefill lengths, and the mixed steps when
// their grid is timed.
size_t grid_cells(const MeasureOptions& options);

// The least time the grids' timing takes: every cell is calibrated (kCalibrationSamples) and then
// sampled `samples` times, each sample lasting at least min_sample_ms. A grid that would take longer
// than kMaxGridSampleMs is refused before anything runs (the largest grid, 1,056 cells, at 101 samples
// of 1,000 ms would take 30 hours); the default grid (37 cells, 5 samples) at the page's longest samples
// (1,000 ms) takes 229 s.
double grid_sample_ms(const MeasureOptions& options);
constexpr double kMaxGridSampleMs = 600'000;

// Bytes the model's weights take as held: a file model's as loaded (blocks as in the file), a preset's as
// it would be drawn.
int64_t held_weight_bytes(const MeasureOptions& options);

// Bytes that measuring with these options allocates (weights + KV caches + activations).
int64_t measure_memory_bytes(const MeasureOptions& options);

// Reads and validates; throws InputError naming the field ("options.runs", "options.model.n_heads").
// With `file` (file.model set) the options measure that model: its config is the file's, so options.preset
// and options.model are refused, and options.weights and options.kv must be what it was loaded with.
MeasureOptions read_measure_options(const nlohmann::json& object, const std::string& path = "options",
                                    const FileModelRef& file = {});

// Fields understood by read_measure_options, for help texts.
extern const char* const kMeasureOptionFields;

}  // namespace kvlab
