#pragma once
// A small set of story openings of our own, in the words of the children's stories that TinyStories
// models write: the prompts a real model is measured and served on.
#include <cstdint>
#include <string>
#include <vector>

namespace kvlab {

const std::vector<std::string>& story_openings();

// One opening, picked by `seed` with the project's generator (common/rng), so native and wasm agree.
const std::string& story_opening_for_seed(uint64_t seed);

}  // namespace kvlab
