#pragma once
// llama2.c's forward pass (run.c), plainly, on a test file's weights, to check what kvlab computes from
// a model file against: rotary turns adjacent pairs, and q/k/v biases are added after their products
// where the weights have them (Qwen2's).
#include <vector>

#include "model_file_writers.h"

namespace kvlab::test {

// The `n_tokens` greedy tokens after `tokens`.
std::vector<int> llama2c_greedy(const FileWeights& w, std::vector<int> tokens, int n_tokens,
                                float rope_theta = 10000.0f, float rms_epsilon = 1e-5f);

}  // namespace kvlab::test
