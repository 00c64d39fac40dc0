// GGUF files of every architecture kvlab reads (gguf_architecture.h), written by the tests: a Qwen2-shaped
// file (q/k/v biases, RMSNorm epsilon 1e-6, rope base 1e6, q and k stored for halves rotary, a shared
// classifier) and a SmolLM2-shaped Llama file (rope base 1e5, a shared classifier) each generate what the
// plain forward pass (reference_forward.h) generates on the same weights.
#include <algorithm>

#include <gtest/gtest.h>

#include "expect_refused.h"
#include "model/generate.h"
#include "model_file_writers.h"
#include "model_files/gguf_llama.h"
#include "model_files/text_generation.h"
#include "reference_forward.h"
#include "scalar_reference.h"

namespace kvlab {
namespace {

using test::expect_refused;

const char* const kTinyPrompt = "once a cab";
constexpr int kTinyAnswerTokens = 24;

ModelFile read_tiny_gguf(const test::FileWeights& w, const test::GgufOptions& options) {
  const std::string bytes = test::gguf_bytes(w, test::tiny_vocabulary(), options);
  return test::read_gguf_copy(bytes);
}

TextGeneration tiny_generation(ModelFile file) {
  Tokenizer tokenizer(std::move(file.vocabulary));
  Model model(pack_weights(std::move(file.tensors)));
  return generate_text(model, tokenizer, kTinyPrompt, kTinyAnswerTokens);
}

// The logits after the prompt.
std::vector<float> prompt_logits(Model& model) {
  const std::vector<int> prompt = Tokenizer(test::tiny_vocabulary()).encode(kTinyPrompt);
  model.reserve_rows(static_cast<int>(prompt.size()));
  KvCache cache(model.config(), 64);
  std::vector<float> logits;
  prefill(model, cache, prompt.data(), static_cast<int>(prompt.size()), 0, &logits);
  return logits;
}

const test::FileWeights& weights_without_biases() {
  static const test::FileWeights w = test::tiny_weights(test::tiny_config(), 5);
  return w;
}

const test::FileWeights& weights_with_biases() {
  static const test::FileWeights w = test::with_qkv_biases(weights_without_biases(), 6);
  return w;
}

TEST(GgufArchitecture, Qwen2GeneratesWhatTheForwardPassWithItsBiasesGenerates) {
  const ModelFile file = read_tiny_gguf(weights_with_biases(), test::qwen2_options());
  EXPECT_EQ(file.tensors.config.rms_epsilon, 1e-6f);
  EXPECT_EQ(file.tensors.config.rope_theta, 1e6);
  EXPECT_TRUE(file.tensors.w_out.empty());  // the classifier is the token embedding
  const TextGeneration ours = tiny_generation(file);
  ASSERT_EQ(ours.tokens.size(), static_cast<size_t>(kTinyAnswerTokens))
      << "stopped early at BOS or EOS: pick another seed";
  EXPECT_EQ(ours.tokens,
            test::llama2c_greedy(weights_with_biases(), ours.prompt_tokens, kTinyAnswerTokens, 1e6f, 1e-6f));
}

// The same weights as a llama file (q and k for adjacent pairs, reordered on reading) and as a qwen2
// file (q and k for halves, taken as they are), with the same epsilon and rope base: the same model.
TEST(GgufArchitecture, Qwen2WithZeroBiasesGeneratesTheLlamaFilesTokens) {
  test::FileWeights zero_biases = weights_with_biases();
  for (auto* biases : {&zero_biases.bq, &zero_biases.bk, &zero_biases.bv})
    for (std::vector<float>& layer : *biases) std::fill(layer.begin(), layer.end(), 0.0f);
  test::GgufOptions llama = test::qwen2_options();
  llama.architecture = "llama";
  llama.halves_rotary = false;
  const TextGeneration from_llama = tiny_generation(read_tiny_gguf(weights_without_biases(), llama));
  const TextGeneration from_qwen2 = tiny_generation(read_tiny_gguf(zero_biases, test::qwen2_options()));
  EXPECT_EQ(from_qwen2.tokens, from_llama.tokens);
  // Biases that are not zero are used: they change what the model writes.
  EXPECT_NE(tiny_generation(read_tiny_gguf(weights_with_biases(), test::qwen2_options())).tokens, from_llama.tokens);
}

TEST(GgufArchitecture, RmsEpsilonIsTheEpsilonOfEveryNorm) {
  test::GgufOptions options = test::qwen2_options();
  options.rms_epsilon = 1e-2f;  // as large as the mean square of a token's embedding here, so it shows
  const ModelFile file = read_tiny_gguf(weights_with_biases(), options);
  EXPECT_EQ(file.tensors.config.rms_epsilon, 1e-2f);
  const TextGeneration ours = tiny_generation(file);
  EXPECT_EQ(ours.tokens,
            test::llama2c_greedy(weights_with_biases(), ours.prompt_tokens, kTinyAnswerTokens, 1e6f, 1e-2f));
  EXPECT_NE(ours.tokens,
            test::llama2c_greedy(weights_with_biases(), ours.prompt_tokens, kTinyAnswerTokens, 1e6f, 1e-6f));
}

// Qwen2's 1e-6 against Llama's 1e-5 changes no token here, but every logit.
TEST(GgufArchitecture, Qwen2EpsilonReachesTheModelsLogits) {
  WeightTensors tensors = read_tiny_gguf(weights_with_biases(), test::qwen2_options()).tensors;
  WeightTensors with_llamas_epsilon = tensors;
  with_llamas_epsilon.config.rms_epsilon = 1e-5f;
  Model qwen2(pack_weights(std::move(tensors))), llama_epsilon(pack_weights(std::move(with_llamas_epsilon)));
  const std::vector<float> logits = prompt_logits(qwen2), other = prompt_logits(llama_epsilon);
  ASSERT_EQ(logits.size(), other.size());
  for (size_t i = 0; i < logits.size(); ++i) EXPECT_NE(logits[i], other[i]) << i;
}

TEST(GgufArchitecture, SmolLm2ShapedLlamaGeneratesWhatTheForwardPassGenerates) {
  const ModelFile file = read_tiny_gguf(weights_without_biases(), test::smollm2_options());
  EXPECT_EQ(file.tensors.config.rope_theta, 1e5);
  EXPECT_EQ(file.tensors.config.rms_epsilon, 1e-5f);
  EXPECT_TRUE(file.tensors.w_out.empty());
  for (const LayerTensors& layer : file.tensors.layers)
    EXPECT_TRUE(layer.bq.empty() && layer.bk.empty() && layer.bv.empty());
  const TextGeneration ours = tiny_generation(file);
  ASSERT_EQ(ours.tokens.size(), static_cast<size_t>(kTinyAnswerTokens));
  EXPECT_EQ(ours.tokens, test::llama2c_greedy(weights_without_biases(), ours.prompt_tokens, kTinyAnswerTokens, 1e5f));
}

// Unpacked and packed again (as the bench stores a loaded model in another weight format), a Qwen2 model
// keeps its biases and computes what it did.
TEST(GgufArchitecture, UnpackedQwen2WeightsKeepTheirBiases) {
  Model loaded(pack_weights(read_tiny_gguf(weights_with_biases(), test::qwen2_options()).tensors));
  WeightTensors tensors = unpack_weights(loaded.weights());
  for (size_t l = 0; l < tensors.layers.size(); ++l) {
    EXPECT_EQ(tensors.layers[l].bq, loaded.weights().layers[l].bq);
    EXPECT_EQ(tensors.layers[l].bk, loaded.weights().layers[l].bk);
    EXPECT_EQ(tensors.layers[l].bv, loaded.weights().layers[l].bv);
    EXPECT_FALSE(tensors.layers[l].bv.empty());
  }
  Model repacked(pack_weights(std::move(tensors)));
  EXPECT_EQ(prompt_logits(repacked), prompt_logits(loaded));
}

TEST(GgufArchitecture, Qwen2BiasOfTheWrongShapeIsRefusedNamingItsDims) {
  test::FileWeights w = weights_with_biases();
  w.bk[1].resize(static_cast<size_t>(w.config.d_model));  // 32 numbers where kv_dim is 16
  expect_refused([&] { read_tiny_gguf(w, test::qwen2_options()); }, "gguf.tensors[blk.1.attn_k.bias].dims",
                 "must be [16] for the model the metadata describes (got [32])");
}

TEST(GgufArchitecture, Qwen2WithoutBiasesIsRefusedAndLlamaWithBiases) {
  expect_refused([&] { read_tiny_gguf(weights_without_biases(), test::qwen2_options()); },
                 "gguf.tensors[blk.0.attn_k.bias]", "is missing");
  expect_refused([&] { read_tiny_gguf(weights_with_biases(), {}); }, "gguf.tensors[blk.0.attn_q.bias]",
                 "is not a tensor of the llama model kvlab runs");
}

// Files shaped as the families readers download, whole: a Qwen2 file (biases, halves rotary, epsilon
// 1e-6, rope base 1e6) and a SmolLM2 file (Llama, rope base 1e5), each with a byte-level BPE vocabulary
// (its family's pre-tokenizer) and its matrices kept in their blocks: all Q8_0, and llama.cpp's Q4_K_M
// mix as its files hold it. Rows of d_model (32 here; SmolLM2's 576 and 960, Qwen2.5-0.5B's 896) are not
// whole 256-weight blocks, so Q4_K falls back to Q5_0 and Q6_K to Q8_0; ffn_down's rows of d_ff (256)
// are Q4_K, or Q6_K in the layers use_more_bits picks (of 2 layers, the last; wv's there are Q8_0), and
// the shared classifier is Q8_0. Each encodes its prompt with its merges and generates, 24 tokens, what
// the scalar reference generates on its blocks.
TEST(GgufArchitecture, Qwen2AndSmolLM2FilesWithBpeAndBlocksGenerateTheScalarReferencesTokens) {
  const Vocabulary bpe = test::tiny_bpe_vocabulary();
  ModelConfig config = test::tiny_config();
  config.vocab = static_cast<int>(bpe.pieces.size());
  config.d_ff = 256;
  const test::FileWeights plain = test::tiny_weights(config, 5);
  struct Family {
    test::GgufOptions options;
    test::FileWeights weights;
    const char* pre;
  };
  for (Family family : {Family{test::qwen2_options(), test::with_qkv_biases(plain, 6), "qwen2"},
                        Family{test::smollm2_options(), plain, "smollm"}}) {
    family.options.tokenizer_model = "gpt2";
    family.options.pre = family.pre;
    for (bool q4_k_m : {false, true}) {
      family.options.matrix_type = traits(BlockFormat::q8_0).ggml_type;
      family.options.q4_k_m = q4_k_m;
      const std::string bytes = test::gguf_bytes(family.weights, bpe, family.options);
      ModelFile file = test::read_gguf_copy(bytes);
      SCOPED_TRACE(testing::Message() << family.pre << (q4_k_m ? ", Q4_K_M" : ", Q8_0"));
      const auto mix = [&](BlockFormat format) { return q4_k_m ? format : BlockFormat::q8_0; };
      const std::vector<LayerTensors>& layers = file.tensors.layers;
      EXPECT_EQ(layers[0].wq.format, mix(BlockFormat::q5_0));
      EXPECT_EQ(layers[0].wv.format, mix(BlockFormat::q5_0));
      EXPECT_EQ(layers[0].w_down.format, mix(BlockFormat::q4_k));
      EXPECT_EQ(layers[1].wv.format, BlockFormat::q8_0);
      EXPECT_EQ(layers[1].w_down.format, mix(BlockFormat::q6_k));
      EXPECT_EQ(file.tensors.token_embedding.format, BlockFormat::q8_0);
      Tokenizer tokenizer(std::move(file.vocabulary));
      Model model(pack_weights(std::move(file.tensors)));
      const TextGeneration got = generate_text(model, tokenizer, "the cat", kTinyAnswerTokens);
      EXPECT_EQ(got.prompt_tokens, (std::vector<int>{258, 260}));  // "the", " cat": merged, no BOS
      ASSERT_EQ(got.tokens.size(), static_cast<size_t>(kTinyAnswerTokens)) << "stopped at EOS";
      EXPECT_EQ(got.tokens, test::scalar_greedy(model.weights(), got.prompt_tokens, kTinyAnswerTokens));
    }
  }
}

}  // namespace
}  // namespace kvlab
