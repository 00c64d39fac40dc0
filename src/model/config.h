#pragma once
// Model sizes. A plain struct, as in llama2.c: every buffer's shape is derived from these numbers.
#include <cstdint>
#include <string>
#include <vector>

#include "model/kv_format.h"
#include "model/weight_format.h"

namespace kvlab {

struct ModelConfig {
  // The defaults are the "small" preset (see config.cpp for why).
  int vocab = 1024;      // token ids are 0 .. vocab-1
  int d_model = 384;     // width of the residual stream
  int n_layers = 6;      // transformer blocks
  int n_heads = 6;       // query heads
  int n_kv_heads = 2;    // key/value heads (grouped-query attention: n_heads % n_kv_heads == 0)
  int d_ff = 1152;       // hidden width of the SwiGLU feed-forward
  int max_seq = 256;     // longest sequence a KV cache holds
  uint64_t seed = 1;     // weights are drawn from Rng(seed)
  WeightFormat weights = WeightFormat::f32;  // how the weight matrices are stored (weight_format.h)
  KvFormat kv = KvFormat::f32;               // how the KV cache stores keys and values (kv_format.h)

  int head_dim() const { return d_model / n_heads; }
  int kv_dim() const { return n_kv_heads * head_dim(); }
};

struct ModelPreset {
  std::string name;
  std::string label;        // a few words for a menu: "the published toy size"
  std::string description;
  ModelConfig config;
};

// The named presets; the first is the default.
const std::vector<ModelPreset>& model_presets();
// Throws InputError naming `field` and the known names when `name` is not a preset.
const ModelPreset& find_preset(const std::string& name, const std::string& field);

// Sizes derived from a configuration.
struct ModelSize {
  int64_t parameters;           // every weight, embeddings included
  int64_t weight_bytes;         // matrix weights x 4 (f32) or x 2 (bf16), embeddings and norms x 4
  int64_t kv_bytes_per_token;   // 2 x n_layers x n_kv_heads x head_dim x 4 (f32) or x 2 (bf16, f16)
};
ModelSize model_size(const ModelConfig& config);

// Throws InputError (naming `path`.field and the allowed range) unless the configuration is usable.
void validate(const ModelConfig& config, const std::string& path);

}  // namespace kvlab
