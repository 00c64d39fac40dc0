#include "model_files/story_prompts.h"

#include "model_files/story_openings.h"

namespace kvlab {

std::vector<std::vector<int>> encode_story_openings(const Tokenizer& tokenizer) {
  std::vector<std::vector<int>> prompts;
  for (const std::string& opening : story_openings()) prompts.push_back(tokenizer.encode(opening, "story opening"));
  return prompts;
}

std::vector<int> token_counts(const std::vector<std::vector<int>>& prompts) {
  std::vector<int> counts;
  counts.reserve(prompts.size());
  for (const std::vector<int>& prompt : prompts) counts.push_back(static_cast<int>(prompt.size()));
  return counts;
}

}  // namespace kvlab
