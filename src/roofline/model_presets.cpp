#include "roofline/model_presets.h"

#include "common/find_by_name.h"

namespace kvlab::roofline {

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

const ModelShape& find_model(const std::string& name, const std::string& field) {
  return find_by_name(model_presets(), name, field);
}

}  // namespace kvlab::roofline
