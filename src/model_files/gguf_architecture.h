#pragma once
// The GGUF architectures kvlab reads (general.architecture) and the few facts in which they differ. The
// rest they share: RMSNorm, rotary embedding, grouped-query attention, SwiGLU and the tensors' names, so
// one reader (gguf_llama.h) reads every one of them from this table.
#include <string>
#include <vector>

#include "model_files/rotary_order.h"

namespace kvlab {

struct GgufArchitecture {
  // general.architecture's value, and the prefix of the model's keys ("qwen2" -> "qwen2.block_count").
  std::string name;
  // Whether every layer has q/k/v biases, blk.N.attn_q, attn_k and attn_v .bias: required where it does,
  // refused as tensors the model does not use where it does not.
  bool qkv_biases;
  // The rotary pairs the file's attn_q and attn_k rows (and their biases) are stored for.
  RotaryPairs rotary;
  // RMSNorm's epsilon where the file does not give <name>.attention.layer_norm_rms_epsilon.
  float rms_epsilon;
};

// Every architecture kvlab reads, llama first.
const std::vector<GgufArchitecture>& gguf_architectures();

// The architecture called `name`; otherwise an InputError naming `field` and the supported names.
const GgufArchitecture& find_gguf_architecture(const std::string& name, const std::string& field);

}  // namespace kvlab
