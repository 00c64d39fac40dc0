// Batch invariance: a row's logits are the same bits whatever the number of rows in its step (1, 3 or
// 16), with the KV cache or without it (every token rerunning the whole sequence), on 1 or 2 threads, for
// every weight format a file can hold and every KV cache format. The model is the tests' tiny one made
// 256 wide, so that the K-quants keep their own blocks rather than falling back to Q5_0 and Q5_1.
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "model/generate.h"
#include "model/number_format.h"
#include "model_file_writers.h"

namespace kvlab {
namespace {

constexpr int kPromptTokens = 16, kAnswerTokens = 4;

struct WeightFormat {
  const char* name;
  uint32_t ggml_type;  // GgufOptions::matrix_type
};

const WeightFormat kWeightFormats[] = {{"F32", 0},  {"BF16", 30}, {"Q8_0", 8},  {"Q4_0", 2}, {"Q5_0", 6},
                                       {"Q5_1", 7}, {"Q4_K", 12}, {"Q5_K", 13}, {"Q6_K", 14}};

Model model_in(const WeightFormat& format, NumberFormat kv) {
  ModelConfig config = test::tiny_config();
  config.d_model = 256;
  config.d_ff = 512;
  test::GgufOptions options;
  options.matrix_type = format.ggml_type;
  const std::string file = test::gguf_bytes(test::tiny_weights(config, 3), test::tiny_vocabulary(), options);
  ModelFile read = test::read_gguf_copy(file);
  read.tensors.config.kv = kv;
  if (format.ggml_type == 30) read.tensors.config.weights = NumberFormat::bf16;  // held as bf16 panels
  return Model(pack_weights(std::move(read.tensors)));
}

// The name of the format `model`'s matrices are held in: "Q4_K", or "F32" and "BF16" for panels.
std::string held_format(const Model& model) {
  const PackedMatrix& wq = model.weights().layers[0].wq;
  if (wq.blocks) return traits(*wq.blocks).name;
  return wq.format == NumberFormat::bf16 ? "BF16" : "F32";
}

// The logits after each position of the prompt, fed `rows` tokens a step: [positions, vocab] for the
// last row of every step, whose position is `last_positions`' entry.
std::vector<float> prompt_logits(Model& model, const std::vector<int>& prompt, int rows,
                                 std::vector<int>& last_positions) {
  KvCache cache(model.config(), kPromptTokens);
  std::vector<float> logits;
  last_positions.clear();
  for (int start = 0; start < kPromptTokens; start += rows) {
    const int n = std::min(rows, kPromptTokens - start);
    prefill(model, cache, prompt.data() + start, n, start, &logits);
    last_positions.push_back(start + n - 1);
  }
  return logits;
}

void expect_invariant(Model& model) {
  const int vocab = model.config().vocab;
  const std::vector<int> prompt = make_prompt(kPromptTokens, vocab, 5);
  model.set_threads(1);
  std::vector<int> positions;
  const std::vector<float> one_row = prompt_logits(model, prompt, 1, positions);  // one row a step
  for (int threads : {1, 2}) {
    model.set_threads(threads);
    for (int rows : {1, 3, 16}) {
      const std::vector<float> logits = prompt_logits(model, prompt, rows, positions);
      for (size_t k = 0; k < positions.size(); ++k) {
        const auto want = one_row.begin() + static_cast<long>(positions[k]) * vocab;
        const std::vector<float> got(logits.begin() + static_cast<long>(k) * vocab,
                                     logits.begin() + static_cast<long>(k + 1) * vocab);
        EXPECT_TRUE(std::equal(got.begin(), got.end(), want))
            << threads << " threads, " << rows << " rows a step: position " << positions[k] << "'s logits differ";
      }
    }
    KvCache cache(model.config(), kPromptTokens + kAnswerTokens);
    std::vector<float> with_cache, without_cache;
    const std::vector<int> cached = generate_with_cache(model, cache, prompt, kAnswerTokens, &with_cache);
    const std::vector<int> uncached = generate_without_cache(model, cache, prompt, kAnswerTokens, &without_cache);
    EXPECT_EQ(cached, uncached) << threads << " threads";
    EXPECT_TRUE(with_cache == without_cache) << threads << " threads: logits with and without the cache differ";
    // The cached path's first logits are the prompt's last position's, from one 16-row step.
    EXPECT_TRUE(std::equal(with_cache.begin(), with_cache.begin() + vocab,
                           one_row.begin() + static_cast<long>(kPromptTokens - 1) * vocab));
  }
}

TEST(BatchInvariance, EveryWeightAndCacheFormatGivesARowTheSameLogitsInAnyStep) {
  for (const WeightFormat& format : kWeightFormats)
    for (NumberFormat kv : model_kv_formats()) {
      SCOPED_TRACE(testing::Message() << format.name << " weights, " << number_format_name(kv) << " cache");
      Model model = model_in(format, kv);
      ASSERT_EQ(held_format(model), format.name);
      expect_invariant(model);
    }
}

}  // namespace
}  // namespace kvlab
