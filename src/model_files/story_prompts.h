#pragma once
// The story openings (story_openings.h) as a model reads them, the prompts of a story workload
// ("prompts": "stories", sim/workload.h): the engine serves their tokens, the simulator takes their
// lengths.
#include <vector>

#include "model_files/tokenizer.h"

namespace kvlab {

// Each opening encoded by `tokenizer`, BOS first, in story_openings() order.
std::vector<std::vector<int>> encode_story_openings(const Tokenizer& tokenizer);

// The token count of each prompt, in order: what the workload generator draws prompt lengths from.
std::vector<int> token_counts(const std::vector<std::vector<int>>& prompts);

}  // namespace kvlab
