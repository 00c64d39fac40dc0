#pragma once
// The GPUs and the served models the roofline model knows, with their published figures and shapes
// (sources for every figure: docs/gpu.md).
#include <string>
#include <vector>

namespace kvlab::roofline {

// A GPU's memory size, memory bandwidth, dense tensor-core throughput per number format and GPU-to-GPU
// link bandwidth.
struct GpuSpec {
  std::string name;         // "h100-sxm": what --gpu takes
  std::string description;  // "NVIDIA H100 80GB SXM5"
  double memory_bytes;      // device memory
  double memory_bytes_per_s;
  double bf16_dense_flops_per_s;  // tensor cores, no sparsity, FP32 accumulate
  double fp8_dense_flops_per_s;   // 0 when the GPU has no FP8 tensor cores (A100)
  double link_bytes_per_s;        // one direction of one GPU's link to the others (NVLink, else PCIe)
  std::string link;               // "NVLink 4" or "PCIe 4.0 x16"
};

// A served model's shape, from its published configuration. Every one is a Llama-style decoder: RMSNorm,
// rotary attention with n_kv_heads key/value heads (grouped-query when fewer than n_heads), a gated SiLU
// MLP, untied embeddings.
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

const std::vector<GpuSpec>& gpu_presets();
const std::vector<ModelShape>& model_presets();

// The preset called `name`; an InputError naming `field` and the known names otherwise.
const GpuSpec& find_gpu(const std::string& name, const std::string& field);
const ModelShape& find_model(const std::string& name, const std::string& field);

}  // namespace kvlab::roofline
