// stories15M (karpathy's llama2.c model trained on TinyStories), when scripts/extract-models has put
// it in build/models: greedy decoding from "Once upon a time" writes the story llama2.c writes.
#include <fstream>
#include <iterator>

#include <gtest/gtest.h>

#include "model_files/model_file.h"
#include "model_files/text_generation.h"

namespace kvlab {
namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST(Stories15M, OnceUponATimeWritesTheGreedyStory) {
  const std::string directory = std::string(KVLAB_MODELS_DIR) + "/stories15M/";
  const std::string checkpoint = read_all(directory + "model.bin"), tokenizer = read_all(directory + "tokenizer.bin");
  if (checkpoint.empty()) GTEST_SKIP() << "no " << directory << "model.bin: scripts/extract-models puts it there";
  ModelFile file = read_llama2c_files(reinterpret_cast<const uint8_t*>(checkpoint.data()), checkpoint.size(),
                                      reinterpret_cast<const uint8_t*>(tokenizer.data()), tokenizer.size());
  EXPECT_EQ(file.tensors.config.d_model, 288);
  EXPECT_EQ(file.tensors.config.vocab, 32000);
  Tokenizer words(std::move(file.vocabulary));
  Model model(pack_weights(std::move(file.tensors)));
  const TextGeneration out = generate_text(model, words, "Once upon a time", 64);
  EXPECT_EQ(out.prompt_tokens, (std::vector<int>{1, 9038, 2501, 263, 931}));  // BOS "Once" " upon" " a" " time"
  // What this build generated natively (greedy decoding is deterministic).
  const std::vector<int> expected = {
      29892, 727,   471,   263, 2217,  7826, 4257, 365,   2354,  29889, 2296, 18012, 304,   1708, 5377,  297,
      278,   6575,  845,   457, 29889, 3118, 2462, 29892, 1183,  4446,  263,  4802,  29892, 2654, 8287,  297,
      278,   14744, 29889, 739, 471,   278,  6575, 29991, 2296,  2714,  372,  471,   577,   5051, 29889, 13,
      29931, 2354,  5131,  304, 1708,  411,  278,  8287,  29892, 541,   372,  471,   2086,  1880, 701,   297};
  EXPECT_EQ(out.tokens, expected);
  const std::string story = ", there was a little girl named Lily. She loved to play outside in the sunshine.";
  EXPECT_EQ(out.text.substr(0, story.size()), story);
}

}  // namespace
}  // namespace kvlab
