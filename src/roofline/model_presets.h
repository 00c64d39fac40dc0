#pragma once
// The served models the roofline model knows, with their shapes from the published configurations
// (sources: docs/gpu.md). Every one is a Llama-style decoder: RMSNorm, rotary attention with n_kv_heads
// key/value heads (grouped-query when fewer than n_heads), a gated SiLU MLP, untied embeddings.
#include <string>
#include <vector>

namespace kvlab::roofline {

struct ModelShape {
  std::string name;  // "llama-3.1-8b": what --model takes
  std::string description;
  int d_model, n_layers, n_heads, n_kv_heads, d_ff, vocab;

  int head_dim() const { return d_model / n_heads; }
  int kv_dim() const { return n_kv_heads * head_dim(); }
  // Parameters of one layer's matrices: q, k, v, o, gate, up, down (norm weights left out: 2 d_model).
  double layer_matrix_params() const {
    return double(d_model) * (2.0 * d_model + 2.0 * kv_dim()) + 3.0 * double(d_model) * d_ff;
  }
  double embedding_params() const { return double(vocab) * d_model; }  // the input table; the LM head is as large
  double parameters() const { return n_layers * layer_matrix_params() + 2 * embedding_params(); }
};

const std::vector<ModelShape>& model_presets();

// The preset called `name`; an InputError naming `field` and the known names otherwise.
const ModelShape& find_model(const std::string& name, const std::string& field);

}  // namespace kvlab::roofline
