#include "roofline/presets.h"

#include "common/find_by_name.h"

namespace kvlab::roofline {

namespace {

constexpr double kGB = 1e9;
constexpr double kTFLOPS = 1e12;

}  // namespace

// Dense (no 2:4 sparsity) tensor throughput; vendors often print the sparse figure, twice these.
// NVLink figures are printed as both directions together; a ring all-reduce sends one way per link.
const std::vector<GpuSpec>& gpu_presets() {
  static const std::vector<GpuSpec> presets = {
      {"a100-sxm", "NVIDIA A100 80GB SXM4", 80 * kGB, 2039 * kGB, 312 * kTFLOPS, 0, 300 * kGB, "NVLink 3"},
      {"a100-40gb-sxm", "NVIDIA A100 40GB SXM4", 40 * kGB, 1555 * kGB, 312 * kTFLOPS, 0, 300 * kGB, "NVLink 3"},
      {"h100-sxm", "NVIDIA H100 80GB SXM5", 80 * kGB, 3350 * kGB, 989 * kTFLOPS, 1979 * kTFLOPS, 450 * kGB, "NVLink 4"},
      {"h200", "NVIDIA H200 141GB SXM", 141 * kGB, 4800 * kGB, 989 * kTFLOPS, 1979 * kTFLOPS, 450 * kGB, "NVLink 4"},
      {"l4", "NVIDIA L4 24GB", 24 * kGB, 300 * kGB, 121 * kTFLOPS, 242.5 * kTFLOPS, 32 * kGB, "PCIe 4.0 x16"},
      {"rtx-4090", "NVIDIA GeForce RTX 4090 24GB", 24 * kGB, 1008 * kGB, 165.2 * kTFLOPS, 330.3 * kTFLOPS, 32 * kGB,
       "PCIe 4.0 x16"},
  };
  return presets;
}

const std::vector<ModelShape>& model_presets() {
  //                     name, description, d_model, layers, heads, kv heads, d_ff, vocab
  static const std::vector<ModelShape> presets = {
      {"llama-3.1-8b", "Llama 3.1 8B (grouped-query attention, 8 KV heads)", 4096, 32, 32, 8, 14336, 128256},
      {"llama-3.1-70b", "Llama 3.1 70B (grouped-query attention, 8 KV heads)", 8192, 80, 64, 8, 28672, 128256},
      {"llama-2-7b", "Llama 2 7B (multi-head attention: 32 KV heads)", 4096, 32, 32, 32, 11008, 32000},
      {"llama-2-70b", "Llama 2 70B (grouped-query attention, 8 KV heads)", 8192, 80, 64, 8, 28672, 32000},
      {"mistral-7b", "Mistral 7B v0.1 (grouped-query attention, 8 KV heads)", 4096, 32, 32, 8, 14336, 32000},
      {"qwen-2-7b", "Qwen2 7B (grouped-query attention, 4 KV heads)", 3584, 28, 28, 4, 18944, 152064},
  };
  return presets;
}

const GpuSpec& find_gpu(const std::string& name, const std::string& field) {
  return find_by_name(gpu_presets(), name, field);
}

const ModelShape& find_model(const std::string& name, const std::string& field) {
  return find_by_name(model_presets(), name, field);
}

}  // namespace kvlab::roofline
