#pragma once
// Measures how much slower decode passes run soon after a prompt pass (sim/after_prompt.h) on the
// replay's model: rounds of one decode step repeated until it runs at its rested speed, then one prefill
// of n tokens, then the same step again, each timed alone; a cell's ratio is the mean over its rounds of
// the k-th step's time over that round's rested time.
#include "bench/measure_options.h"
#include "model/model.h"
#include "sim/after_prompt.h"

namespace kvlab::serve {

// A rested step shorter than this is too short for a browser's clock (0.1 ms ticks) to time alone.
constexpr double kMinRestedMs = 0.5;

// Prefills of 8, 16, 32, 64 and 128 tokens (those under the model's max_seq), `rounds` rounds of each, in
// turn; the decode step is of the largest grid row count up to 8 at the grid's middle context. No table
// (empty) for a model of at most 8 positions, or where the rested step is shorter than min_rested_ms
// (the tiny preset's steps last microseconds).
sim::AfterPromptTable measure_after_prompt(Model& model, const MeasureOptions& options, int rounds,
                                           double min_rested_ms = kMinRestedMs);

// Decode passes after the prompt pass that the table holds.
constexpr int kAfterPromptPasses = 16;

}  // namespace kvlab::serve
