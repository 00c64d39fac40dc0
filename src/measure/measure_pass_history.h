#pragma once
// Measures, on the replay's model, what ran before a forward pass does to its time (sim/pass_history.h):
// the step table's two optional parts.
//   after_prompt (sim/after_prompt.h): rounds of one decode step repeated until it runs at its rested
//     speed, then one prefill of n tokens, then the same step again, each timed alone; a cell is the mean
//     over its rounds of the k-th step's time over that round's rested time.
//   prompt_pass (sim/prompt_pass.h): rounds of a few passes of one kind (decode steps of r rows; or decode
//     steps and then one prefill of n tokens), then a prefill of m tokens, timed. After decode steps, a
//     cell is the mean over its rounds of that time over the same prefill's right after it (as the step
//     table times its cells, right after an untimed one of its own); after a prefill of n tokens, over
//     the round's time of m right after a prefill of m.
#include "measure/measure.h"  // ProgressFn
#include "measure/measure_options.h"
#include "model/model.h"
#include "sim/after_prompt.h"
#include "sim/prompt_pass.h"

namespace kvlab {

struct PassHistoryParts {
  sim::AfterPromptTable after_prompt;
  sim::PromptPassTable prompt_pass;
};

// A rested step shorter than this is too short for a browser's clock (0.1 ms ticks) to time alone.
constexpr double kMinRestedMs = 0.5;

// `rounds` rounds of each cell. The decode step is of the largest grid row count up to 8 (R) at the
// grid's middle context; after_prompt measures prefills of 8, 16, 32, 64 and 128 tokens, prompt_pass
// prompt passes of 8, 32 and 128 tokens after decode steps of 1 and R rows and after each of those prompt
// passes (the sizes under the model's max_seq). Both empty for a model of at most 8 positions, or where
// the rested step is shorter than min_rested_ms (the tiny preset's steps last microseconds).
// `progress`, if given, hears the fraction done after each round of each part (the phase "passes by what
// ran before them"): the parts take tens of seconds on the default model in a browser.
PassHistoryParts measure_pass_history(Model& model, const MeasureOptions& options, int rounds,
                                      double min_rested_ms = kMinRestedMs, const ProgressFn& progress = nullptr);

// The longest prefill either part times (fewer for a model of fewer positions): what each of its two
// prefill caches holds.
constexpr int kLongestPassPrefill = 128;

// Decode passes after the prompt pass that the after_prompt part holds.
constexpr int kAfterPromptPasses = 16;

}  // namespace kvlab
