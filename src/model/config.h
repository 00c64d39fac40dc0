#pragma once
// Model sizes. A plain struct, as in llama2.c: every buffer's shape is derived from these numbers.
#include <cstdint>
#include <string>
#include <vector>

#include "model/number_format.h"

namespace kvlab {

struct ModelConfig {
  // The defaults are the "small" preset (see config.cpp for why).
  int vocab = 1024;    // token ids are 0 .. vocab-1
  int d_model = 384;   // width of the residual stream
  int n_layers = 6;    // transformer blocks
  int n_heads = 6;     // query heads
  int n_kv_heads = 2;  // key/value heads (grouped-query attention: n_heads % n_kv_heads == 0)
  int d_ff = 1152;     // hidden width of the SwiGLU feed-forward
  int max_seq = 256;   // longest sequence a KV cache holds
  // Rotary base: pair i of a head turns by position * rope_theta^(-2i / head_dim). 10000 as in Llama
  // and llama2.c; a GGUF file may give its own (rope.freq_base).
  double rope_theta = 10000.0;
  // RMSNorm's epsilon: out = x * weight / sqrt(mean(x^2) + rms_epsilon). 1e-5 as in Llama and llama2.c;
  // a GGUF file may give its own (attention.layer_norm_rms_epsilon: Qwen2's is 1e-6). A float because the
  // kernels add it in float32.
  float rms_epsilon = 1e-5f;
  uint64_t seed = 1;  // weights are drawn from Rng(seed)
  // How the weight matrices are stored: f32, or bf16, which halves the bytes a decode step streams.
  // Weights are drawn in float32 and rounded to bfloat16 once, to nearest even, with integer operations
  // only, so every build holds the same bits (float16.h). The kernels widen bfloat16 back to float32 (a
  // 16-bit shift) and compute in float32. Embeddings and norms stay float32 in both formats.
  NumberFormat weights = NumberFormat::f32;
  // How the KV cache stores keys and values: f32, or bf16 or f16, which halve the bytes per token, so the
  // same memory holds twice the tokens, as real servers' caches do. A key or value is rounded once, to
  // nearest even, when its token's forward pass writes it; attention widens it back to float32 (kernels.h)
  // and computes in float32.
  NumberFormat kv = NumberFormat::f32;

  int head_dim() const { return d_model / n_heads; }
  int kv_dim() const { return n_kv_heads * head_dim(); }
};

// The formats the model can store its weights in (f32, bf16) and its KV cache in (f32, bf16, f16).
const std::vector<NumberFormat>& model_weight_formats();
const std::vector<NumberFormat>& model_kv_formats();

struct ModelPreset {
  std::string name;
  std::string label;  // a few words for a menu: "the published toy size"
  std::string description;
  ModelConfig config;
};

// The named presets; the first is the default.
const std::vector<ModelPreset>& model_presets();
// Throws InputError naming `field` and the known names when `name` is not a preset.
const ModelPreset& find_preset(const std::string& name, const std::string& field);

// Sizes derived from a configuration.
struct ModelSize {
  int64_t parameters;          // every weight, embeddings included
  int64_t weight_bytes;        // matrix weights x 4 (f32) or x 2 (bf16), embeddings and norms x 4
  int64_t kv_bytes_per_token;  // 2 x n_layers x n_kv_heads x head_dim x 4 (f32) or x 2 (bf16, f16)
};
ModelSize model_size(const ModelConfig& config);

// The most tokens a vocabulary may hold (Qwen2's is 151,936), and the most bytes the weights may take:
// half of what a wasm page can reasonably get.
constexpr int kMaxVocab = 262144;
constexpr int64_t kMaxWeightBytes = int64_t{512} << 20;

// Throws InputError (naming `path`.field and the allowed range) unless the configuration is usable:
// validate_ranges, then its weights (model_size) within kMaxWeightBytes, then validate_agreement.
void validate(const ModelConfig& config, const std::string& path);
// Each field within its range.
void validate_ranges(const ModelConfig& config, const std::string& path);
// The fields agree: n_heads divides d_model, n_kv_heads divides n_heads, the head size is even.
void validate_agreement(const ModelConfig& config, const std::string& path);

}  // namespace kvlab
