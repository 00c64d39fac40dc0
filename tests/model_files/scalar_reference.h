#pragma once
// The model's forward pass written again, one token at a time, on the scalar twin kernels only
// (kernels::scalar), over a model's packed weights: the reference a model's greedy tokens are checked
// against, whatever its weights' format (f32, bf16 or a GGUF file's quantized blocks, whose matmul
// quantizes its inputs the same way in both: input_blocks.h).
#include <vector>

#include "model/weights.h"

namespace kvlab::test {

// The greedy answer of `n_tokens` to `prompt` (which starts with BOS), none stopped early.
std::vector<int> scalar_greedy(const Weights& w, std::vector<int> prompt, int n_tokens);

// The reference fed `prompt` and then `answer`: for each token of the answer, how far its logit falls
// below the largest after the tokens before it (0 where it is the reference's greedy choice).
std::vector<float> scalar_shortfalls(const Weights& w, std::vector<int> prompt, const std::vector<int>& answer);

}  // namespace kvlab::test
