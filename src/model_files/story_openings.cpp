#include "model_files/story_openings.h"

#include "common/rng.h"

namespace kvlab {

const std::vector<std::string>& story_openings() {
  static const std::vector<std::string> openings = {
      "Once upon a time, there was a little dog named Max.",
      "One sunny morning, a small girl named Lily found a red ball in the garden.",
      "Tom had a blue kite that he loved very much.",
      "There was once a big, friendly bear who lived in the woods.",
      "Sam and his mom went to the park to play on the swings.",
      "A little bird sat on a branch and looked at the sky.",
      "One day, a cat named Kitty saw a butterfly near the pond.",
      "Mia wanted to bake a cake for her grandma.",
      "In a small town, there lived a boy who liked to draw trees.",
      "The sun was warm, and the flowers were happy.",
      "Ben found a shiny rock under his bed.",
      "Once upon a time, a little fish swam far away from home.",
      "Anna had a teddy bear that went everywhere with her.",
      "It was a rainy day, and Tim could not go outside.",
      "A tiny mouse lived in a hole in the kitchen wall.",
      "Lucy and her brother built a tall tower of blocks.",
      "One night, the moon asked the stars to come and play.",
      "There was a green frog who wanted to learn to sing.",
      "Jack saw a big truck on the road and waved to the driver.",
      "Once upon a time, an old owl told the little animals a secret.",
  };
  return openings;
}

const std::string& story_opening_for_seed(uint64_t seed) {
  const std::vector<std::string>& openings = story_openings();
  Rng rng(seed);
  return openings[static_cast<size_t>(rng.uniform_int(0, static_cast<int64_t>(openings.size()) - 1))];
}

}  // namespace kvlab
