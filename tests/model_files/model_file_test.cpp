// Model files: a llama2.c checkpoint and GGUF files written by the tests from the same tiny random
// weights load into the same model, which generates what a plain llama2.c-style forward pass
// (reference_forward.h) generates; quantized GGUF files generate what the scalar reference generates on
// their blocks; hostile files are refused naming the field.
#include <gtest/gtest.h>

#include "common/input_error.h"
#include "expect_refused.h"
#include "gguf_dequantized.h"
#include "model/block_format.h"
#include "model/generate.h"
#include "model_file_writers.h"
#include "model_files/gguf_file.h"
#include "model_files/gguf_llama.h"
#include "model_files/model_file.h"
#include "model_files/text_generation.h"
#include "reference_forward.h"
#include "scalar_reference.h"

namespace kvlab {
namespace {

using test::expect_refused;

const uint8_t* bytes_of(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

ModelFile read_checkpoint(const test::FileWeights& w, const Vocabulary& v) {
  const std::string checkpoint = test::llama2c_checkpoint_bytes(w), tokenizer = test::llama2c_tokenizer_bytes(v);
  return read_llama2c_files(bytes_of(checkpoint), checkpoint.size(), bytes_of(tokenizer), tokenizer.size());
}

ModelFile read_gguf(const test::FileWeights& w, const Vocabulary& v, const test::GgufOptions& options = {}) {
  const std::string bytes = test::gguf_bytes(w, v, options);
  return test::read_gguf_copy(bytes);
}

TextGeneration generate(ModelFile file, const std::string& prompt, int n_tokens,
                        NumberFormat weights = NumberFormat::f32) {
  file.tensors.config.weights = weights;
  Tokenizer tokenizer(std::move(file.vocabulary));
  Model model(pack_weights(std::move(file.tensors)));
  return generate_text(model, tokenizer, prompt, n_tokens);
}

const char* const kPrompt = "once a cab";

TEST(ModelFile, CheckpointGeneratesWhatLlama2cForwardPassGenerates) {
  const Vocabulary v = test::tiny_vocabulary();
  for (bool shared : {true, false}) {
    const test::FileWeights w = test::tiny_weights(test::tiny_config(), 5, shared);
    const TextGeneration ours = generate(read_checkpoint(w, v), kPrompt, 24);
    ASSERT_EQ(ours.tokens.size(), 24u) << "stopped early at BOS or EOS: pick another seed";
    EXPECT_EQ(ours.tokens, test::llama2c_greedy(w, ours.prompt_tokens, 24)) << "shared classifier " << shared;
  }
}

TEST(ModelFile, GgufOfEveryFloatTypeGeneratesTheCheckpointsTokens) {
  const Vocabulary v = test::tiny_vocabulary();
  for (bool shared : {true, false}) {
    const test::FileWeights w = test::tiny_weights(test::tiny_config(), 5, shared);
    const TextGeneration expected = generate(read_checkpoint(w, v), kPrompt, 24);
    for (uint32_t type : {0u, 1u, 30u}) {
      const ModelFile gguf = read_gguf(w, v, {type});
      EXPECT_EQ(gguf.vocabulary.pieces, v.pieces);
      const TextGeneration got = generate(gguf, kPrompt, 24);
      EXPECT_EQ(got.prompt_tokens, expected.prompt_tokens) << "type " << type;
      EXPECT_EQ(got.tokens, expected.tokens) << "type " << type << ", shared classifier " << shared;
      EXPECT_EQ(got.text, expected.text);
    }
  }
}

// A file of a block format keeps its blocks, and generates what the scalar reference (the forward pass
// on the scalar twins, which round the inputs to int8 blocks as the matmul does) generates on them.
// With d_ff 256, ffn_down's rows are whole K-quant blocks; the other matrices' rows of 32 fall back as
// llama.cpp's quantizer has them: Q4_K to Q5_0, Q5_K to Q5_1, Q6_K to Q8_0.
TEST(ModelFile, GgufOfEveryBlockFormatKeepsItsBlocksAndGeneratesTheScalarReferencesTokens) {
  const Vocabulary v = test::tiny_vocabulary();
  ModelConfig config = test::tiny_config();
  config.d_ff = 256;
  for (bool shared : {true, false}) {
    const test::FileWeights w = test::tiny_weights(config, 5, shared);
    for (const BlockFormatTraits& t : block_formats()) {
      const std::string quantized = test::gguf_bytes(w, v, {t.ggml_type});
      const bool k_quant = t.elements == 256;
      const uint32_t fallback = t.format == BlockFormat::q4_k   ? traits(BlockFormat::q5_0).ggml_type
                                : t.format == BlockFormat::q5_k ? traits(BlockFormat::q5_1).ggml_type
                                : t.format == BlockFormat::q6_k ? traits(BlockFormat::q8_0).ggml_type
                                                                : t.ggml_type;
      const GgufFile file(bytes_of(quantized), quantized.size());
      for (const GgufTensorInfo& info : file.tensors()) {
        const bool norm = info.dims.size() == 1, down = info.name.find("ffn_down") != std::string::npos;
        EXPECT_EQ(info.type, norm ? 0u : down || !k_quant ? t.ggml_type : fallback) << t.name << " " << info.name;
      }
      ModelFile read = test::read_gguf_copy(quantized);
      EXPECT_EQ(read.tensors.layers[0].w_down.format, t.format) << t.name;
      EXPECT_TRUE(read.tensors.layers[0].w_down.values.empty()) << t.name;
      Tokenizer tokenizer(std::move(read.vocabulary));
      Model model(pack_weights(std::move(read.tensors)));
      const TextGeneration got = generate_text(model, tokenizer, kPrompt, 24);
      ASSERT_EQ(got.tokens.size(), 24u) << "stopped early at BOS or EOS: pick another seed";
      EXPECT_EQ(got.tokens, test::scalar_greedy(model.weights(), got.prompt_tokens, 24))
          << t.name << ", shared classifier " << shared;
      const test::FileWeights reference = test::dequantized_weights(quantized, config);
      // Quantized, the weights are not the checkpoint's, but near (within a fifth of the largest, 1/4):
      // the file still holds this model.
      const std::vector<float>& down = reference.w2[0];
      for (size_t i = 0; i < down.size(); ++i) ASSERT_NEAR(down[i], w.w2[0][i], 0.05f) << t.name << " " << i;
    }
  }
}

// A quantized file's matrices are multiplied where the file's bytes were read, not copied out of them:
// the model holds its file once (a 0.5B Q4_K_M file's 0.4 GB, not twice that), llama's wq and wk
// reordered in place.
TEST(ModelFile, QuantizedMatricesStayInTheFilesBytes) {
  const test::FileWeights w = test::tiny_weights(test::tiny_config(), 5, false);
  const std::string bytes = test::gguf_bytes(w, test::tiny_vocabulary(), {traits(BlockFormat::q8_0).ggml_type});
  ByteBuffer file(bytes.begin(), bytes.end());
  const auto first = reinterpret_cast<uintptr_t>(file.data()), end = first + file.size();
  ModelFile read = read_gguf_llama(std::move(file));
  const Weights weights = pack_weights(std::move(read.tensors));
  std::vector<const PackedMatrix*> matrices = weight_matrices(weights);
  matrices.push_back(&weights.quantized_embedding);
  for (const PackedMatrix* m : matrices) {
    ASSERT_TRUE(m->blocks);
    const auto row = [&](int o) { return reinterpret_cast<uintptr_t>(m->block_row(o)); };
    EXPECT_GE(row(0), first);
    EXPECT_LE(row(m->n_out - 1) + m->row_bytes(), end);
  }
}

// What a model holds, as modelInfo and the page say it: a classifier shared with the embedding counted
// once, in parameters (a model card's count) and in bytes as held.
TEST(ModelFile, WeightStorageCountsASharedClassifierOnce) {
  const Vocabulary v = test::tiny_vocabulary();  // 278 tokens; d_model 32, kv_dim 16, d_ff 64, 2 layers
  for (bool shared : {true, false}) {
    const test::FileWeights w = test::tiny_weights(test::tiny_config(), 5, shared);
    const WeightStorage f32 = weight_storage(pack_weights(read_checkpoint(w, v).tensors));
    const WeightStorage q8 =
        weight_storage(pack_weights(read_gguf(w, v, {traits(BlockFormat::q8_0).ggml_type}).tensors));
    // 2 layers x (32x32 x 2 + 16x32 x 2 + 64x32 x 3) + 278x32 (twice when separate) + 5 norms of 32
    const int64_t parameters = shared ? 27488 : 36384;
    EXPECT_EQ(f32.parameters, parameters);
    EXPECT_EQ(q8.parameters, parameters);
    EXPECT_EQ(q8.bytes, (parameters - 160) / 32 * 34 + 160 * 4);  // 34 bytes a block of 32; norms float32
    EXPECT_EQ(q8.matrices, (std::map<std::string, int>{{"Q8_0", shared ? 15 : 16}}));
  }
}

// The reader's tensors put back in the file's order (wq and wk for adjacent pairs) are the file's.
TEST(ModelFile, FileWeightsOfAReadModelAreTheFilesWeights) {
  const test::FileWeights w = test::tiny_weights(test::tiny_config(), 5, false);
  const test::FileWeights back = test::file_weights(read_checkpoint(w, test::tiny_vocabulary()).tensors);
  EXPECT_EQ(back.token_embedding, w.token_embedding);
  EXPECT_EQ(back.wq, w.wq);
  EXPECT_EQ(back.wk, w.wk);
  EXPECT_EQ(back.wv, w.wv);
  EXPECT_EQ(back.wo, w.wo);
  EXPECT_EQ(back.w1, w.w1);
  EXPECT_EQ(back.w2, w.w2);
  EXPECT_EQ(back.w3, w.w3);
  EXPECT_EQ(back.attn_norm, w.attn_norm);
  EXPECT_EQ(back.ffn_norm, w.ffn_norm);
  EXPECT_EQ(back.final_norm, w.final_norm);
  EXPECT_EQ(back.w_out, w.w_out);
}

// A GGUF file with a byte-level BPE vocabulary ("gpt2") reads its merges, token types, pre-tokenizer
// and add_bos_token, and the model it holds generates from a prompt those make.
TEST(ModelFile, GgufBpeVocabularyIsReadAndGeneratesFromItsPrompt) {
  const Vocabulary v = test::tiny_bpe_vocabulary();
  test::FileWeights w = test::tiny_weights(
      [&] {
        ModelConfig c = test::tiny_config();
        c.vocab = static_cast<int>(v.pieces.size());
        return c;
      }(),
      5);
  test::GgufOptions options;
  options.tokenizer_model = "gpt2";
  options.pre = "qwen2";
  ModelFile file = read_gguf(w, v, options);
  const Vocabulary& read = file.vocabulary;
  EXPECT_EQ(read.model, TokenizerModel::bpe);
  EXPECT_EQ(read.pieces, v.pieces);
  EXPECT_EQ(read.merges, v.merges);
  EXPECT_EQ(read.token_types, v.token_types);
  EXPECT_EQ(read.pre, PreTokenizer::qwen2);
  EXPECT_FALSE(read.add_bos);
  EXPECT_EQ(read.bos, 263);
  const TextGeneration got = generate(std::move(file), "the cat", 8);
  EXPECT_EQ(got.prompt_tokens, (std::vector<int>{258, 260}));  // "the", " cat"; no BOS
  EXPECT_FALSE(got.tokens.empty());
}

TEST(ModelFile, GgufBpeBosDefaultsToTheFamilysAndFollowsAddBosToken) {
  Vocabulary v = test::tiny_bpe_vocabulary();
  ModelConfig c = test::tiny_config();
  c.vocab = static_cast<int>(v.pieces.size());
  const test::FileWeights w = test::tiny_weights(c, 5);
  test::GgufOptions options;
  options.tokenizer_model = "gpt2";
  options.pre = "llama-bpe";
  v.add_bos = true;
  EXPECT_TRUE(read_gguf(w, v, options).vocabulary.add_bos);
  v.add_bos = false;
  EXPECT_FALSE(read_gguf(w, v, options).vocabulary.add_bos);
  EXPECT_EQ(read_gguf(w, v, options).vocabulary.pre, PreTokenizer::llama3);
}

TEST(ModelFile, GgufRopeFreqBaseIsTheRotaryBase) {
  const Vocabulary v = test::tiny_vocabulary();
  const test::FileWeights w = test::tiny_weights(test::tiny_config(), 5);
  test::GgufOptions options;
  options.rope_freq_base = 100.0f;  // far from 10000, so that positions turn visibly differently
  const ModelFile file = read_gguf(w, v, options);
  EXPECT_EQ(file.tensors.config.rope_theta, 100.0);
  const TextGeneration ours = generate(file, kPrompt, 24);
  EXPECT_EQ(ours.tokens, test::llama2c_greedy(w, ours.prompt_tokens, 24, 100.0f));
  EXPECT_NE(ours.tokens, test::llama2c_greedy(w, ours.prompt_tokens, 24, 10000.0f));
}

TEST(ModelFile, Bf16WeightsRunTheSameFile) {
  const Vocabulary v = test::tiny_vocabulary();
  const test::FileWeights w = test::tiny_weights(test::tiny_config(), 5);
  const TextGeneration bf16 = generate(read_checkpoint(w, v), kPrompt, 8, NumberFormat::bf16);
  EXPECT_EQ(bf16.tokens.size(), 8u);
}

// Unpacked and packed again (as the bench stores a loaded model in another weight format), a model
// computes what it did: the same logits in f32, and in bf16 what reading the file in bf16 gives.
TEST(ModelFile, UnpackedWeightsPackIntoTheSameModel) {
  const Vocabulary v = test::tiny_vocabulary();
  const test::FileWeights w = test::tiny_weights(test::tiny_config(), 5);
  const Model loaded(pack_weights(read_checkpoint(w, v).tensors));
  for (NumberFormat format : {NumberFormat::f32, NumberFormat::bf16}) {
    WeightTensors tensors = unpack_weights(loaded.weights());
    tensors.config.weights = format;
    Model repacked(pack_weights(std::move(tensors)));
    ModelFile file = read_checkpoint(w, v);
    file.tensors.config.weights = format;
    Model from_file(pack_weights(std::move(file.tensors)));
    const std::vector<int> prompt = Tokenizer(v).encode(kPrompt);
    for (Model* model : {&repacked, &from_file}) model->reserve_rows(static_cast<int>(prompt.size()));
    std::vector<float> repacked_logits, file_logits;
    KvCache repacked_cache(repacked.config(), 64), file_cache(from_file.config(), 64);
    prefill(repacked, repacked_cache, prompt.data(), static_cast<int>(prompt.size()), 0, &repacked_logits);
    prefill(from_file, file_cache, prompt.data(), static_cast<int>(prompt.size()), 0, &file_logits);
    EXPECT_EQ(repacked_logits, file_logits) << number_format_name(format);
  }
}

struct HostileFiles : ::testing::Test {
  Vocabulary v = test::tiny_vocabulary();
  test::FileWeights w = test::tiny_weights(test::tiny_config(), 5);
  std::string checkpoint = test::llama2c_checkpoint_bytes(w);
  std::string tokenizer = test::llama2c_tokenizer_bytes(v);
  std::string gguf = test::gguf_bytes(w, v);

  void read_llama2c() const {
    read_llama2c_files(bytes_of(checkpoint), checkpoint.size(), bytes_of(tokenizer), tokenizer.size());
  }
  void read_gguf_file() const { test::read_gguf_copy(gguf); }
  void put_u32(std::string& bytes, size_t at, uint32_t value) {
    for (int i = 0; i < 4; ++i) bytes[at + i] = static_cast<char>(value >> (8 * i));
  }
  void put_u64(std::string& bytes, size_t at, uint64_t value) {
    for (int i = 0; i < 8; ++i) bytes[at + i] = static_cast<char>(value >> (8 * i));
  }
  // Where a 2-d tensor's info continues after its name: n_dims, dims, type, offset.
  size_t after_name(const std::string& name) const { return gguf.find(name) + name.size(); }
};

TEST_F(HostileFiles, EveryTruncationIsRefused) {
  const std::string whole_checkpoint = checkpoint, whole_tokenizer = tokenizer, whole_gguf = gguf;
  for (size_t length = 0; length < whole_checkpoint.size(); length += 97) {
    checkpoint = whole_checkpoint.substr(0, length);
    EXPECT_THROW(read_llama2c(), InputError) << length;
  }
  checkpoint = whole_checkpoint;
  for (size_t length = 0; length < whole_tokenizer.size(); length += 13) {
    tokenizer = whole_tokenizer.substr(0, length);
    EXPECT_THROW(read_llama2c(), InputError) << length;
  }
  for (size_t length = 0; length < whole_gguf.size(); length += 97) {
    gguf = whole_gguf.substr(0, length);
    EXPECT_THROW(read_gguf_file(), InputError) << length;
  }
}

TEST_F(HostileFiles, CheckpointHeaderThatLiesAboutTheSizeIsRefused) {
  put_u32(checkpoint, 4, 128);  // hidden_dim
  expect_refused([&] { read_llama2c(); }, "checkpoint.size", "as the header's dimensions make it");
  checkpoint += "extra";
  put_u32(checkpoint, 4, 64);
  expect_refused([&] { read_llama2c(); }, "checkpoint.size");
}

TEST_F(HostileFiles, CheckpointHeaderOutOfRangeIsRefusedNamingTheField) {
  put_u32(checkpoint, 8, static_cast<uint32_t>(-3));  // n_layers
  expect_refused([&] { read_llama2c(); }, "checkpoint.n_layers", "from 1 to 64");
  checkpoint = test::llama2c_checkpoint_bytes(w);
  put_u32(checkpoint, 20, 1u << 30);  // vocab_size
  expect_refused([&] { read_llama2c(); }, "checkpoint.vocab_size", "from -65536 to 65536");
}

TEST_F(HostileFiles, TokenizerPieceLongerThanTheFileIsRefused) {
  put_u32(tokenizer, 8, 1u << 30);  // token 0's length
  expect_refused([&] { read_llama2c(); }, "tokenizer.tokens[0].length", "from 0 to max_token_length");
  tokenizer = test::llama2c_tokenizer_bytes(v) + "x";
  expect_refused([&] { read_llama2c(); }, "tokenizer.size");
}

TEST_F(HostileFiles, GgufAbsurdCountsAreRefusedBeforeAllocating) {
  put_u64(gguf, 8, uint64_t{1} << 60);  // tensor_count
  expect_refused([&] { read_gguf_file(); }, "gguf.tensor_count", "must be an integer from 0 to 4096");
  gguf = test::gguf_bytes(w, v);
  put_u64(gguf, 16, uint64_t{1} << 60);  // metadata_kv_count
  expect_refused([&] { read_gguf_file(); }, "gguf.metadata_kv_count", "must be an integer from 0 to 4096");
  gguf = test::gguf_bytes(w, v);
  put_u64(gguf, 24, uint64_t{1} << 62);  // the first key's length
  expect_refused([&] { read_gguf_file(); }, "gguf.metadata[0].key.length", "must be at most 256 bytes");
}

TEST_F(HostileFiles, GgufTensorOffsetPastTheEndIsRefused) {
  put_u64(gguf, after_name("blk.1.ffn_up.weight") + 4 + 16 + 4, uint64_t{1} << 40);
  expect_refused([&] { read_gguf_file(); }, "gguf.tensors[blk.1.ffn_up.weight].offset", "as llama.cpp requires");
}

TEST_F(HostileFiles, GgufUnknownTensorTypeIsRefusedNamingIt) {
  put_u32(gguf, after_name("blk.0.attn_q.weight") + 4 + 16, 3);  // Q4_1
  expect_refused([&] { read_gguf_file(); }, "gguf.tensors[blk.0.attn_q.weight].type", "Q4_1");
  expect_refused([&] { read_gguf_file(); }, "gguf.tensors[blk.0.attn_q.weight].type",
                 "kvlab reads F32, F16, BF16, Q8_0, Q4_0, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K");
}

TEST_F(HostileFiles, GgufTensorDimsThatDisagreeWithTheMetadataAreRefused) {
  put_u64(gguf, after_name("blk.0.attn_k.weight") + 4, 16);  // transposed: the same bytes, so where they lie holds
  put_u64(gguf, after_name("blk.0.attn_k.weight") + 4 + 8, 32);
  expect_refused([&] { read_gguf_file(); }, "gguf.tensors[blk.0.attn_k.weight].dims", "must be [32, 16]");
}

TEST_F(HostileFiles, GgufOtherArchitecturesAndTokenizersAreRefusedNamingThem) {
  gguf = test::gguf_bytes(w, v, {0, "gemma", "llama"});
  expect_refused([&] { read_gguf_file(); }, "gguf.general.architecture", "must be one of llama, qwen2 (got \"gemma\")");
  gguf = test::gguf_bytes(w, v, {0, "llama", "bert"});
  expect_refused([&] { read_gguf_file(); }, "gguf.tokenizer.ggml.model", "\"llama\" (SentencePiece");
  expect_refused([&] { read_gguf_file(); }, "gguf.tokenizer.ggml.model", "\"gpt2\" (byte-level BPE) (got \"bert\")");
}

TEST_F(HostileFiles, GgufBpeUnknownOrMissingPreTokenizerIsRefusedNamingTheKnownOnes) {
  const Vocabulary bpe = test::tiny_bpe_vocabulary();
  ModelConfig c = test::tiny_config();
  c.vocab = static_cast<int>(bpe.pieces.size());
  const test::FileWeights bpe_weights = test::tiny_weights(c, 5);
  test::GgufOptions options;
  options.tokenizer_model = "gpt2";
  options.pre = "falcon";
  gguf = test::gguf_bytes(bpe_weights, bpe, options);
  expect_refused([&] { read_gguf_file(); }, "gguf.tokenizer.ggml.pre",
                 "\"gpt-2\", \"smollm\", \"qwen2\", \"llama-bpe\"");
  expect_refused([&] { read_gguf_file(); }, "gguf.tokenizer.ggml.pre", "(got \"falcon\")");
  try {
    read_gguf_file();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field().allowed.choices.size(), pre_tokenizer_names().size());
  }
  options.pre = "";  // llama.cpp falls back on its "default" regex, which kvlab does not have
  gguf = test::gguf_bytes(bpe_weights, bpe, options);
  expect_refused([&] { read_gguf_file(); }, "gguf.tokenizer.ggml.pre", "must name a pre-tokenizer");
}

TEST_F(HostileFiles, GgufRmsEpsilonOutOfRangeIsRefusedNamingTheKey) {
  for (float epsilon : {0.0f, 0.1f}) {
    test::GgufOptions options;
    options.rms_epsilon = epsilon;
    gguf = test::gguf_bytes(w, v, options);
    expect_refused([&] { read_gguf_file(); }, "gguf.llama.attention.layer_norm_rms_epsilon",
                   "must be a number from 1e-10 to 0.01");
    options = test::qwen2_options();
    options.rms_epsilon = epsilon;
    gguf = test::gguf_bytes(test::with_qkv_biases(w, 6), v, options);
    expect_refused([&] { read_gguf_file(); }, "gguf.qwen2.attention.layer_norm_rms_epsilon",
                   "must be a number from 1e-10 to 0.01");
  }
}

TEST_F(HostileFiles, GgufVersionOneAndOtherMagicAreRefused) {
  put_u32(gguf, 4, 1);
  expect_refused([&] { read_gguf_file(); }, "gguf.version", "must be 2 or 3");
  gguf[0] = 'X';
  expect_refused([&] { read_gguf_file(); }, "gguf.magic", "not a GGUF file");
}

}  // namespace
}  // namespace kvlab
