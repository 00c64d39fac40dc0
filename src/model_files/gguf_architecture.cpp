#include "model_files/gguf_architecture.h"

#include "common/find_by_name.h"

namespace kvlab {

const std::vector<GgufArchitecture>& gguf_architectures() {
  // The rotary pairs are llama.cpp's, whose files these are: llama_rope_type() in ggerganov/llama.cpp's
  // src/llama-model.cpp (commit 0261d4f) returns LLAMA_ROPE_TYPE_NORM for LLM_ARCH_LLAMA ("a normal RoPE,
  // operating on pairs of consecutive head values") and LLAMA_ROPE_TYPE_NEOX for LLM_ARCH_QWEN2 ("the
  // pairs of head values are offset by n_rot/2", kvlab's halves). So a llama file's q and k rows are
  // reordered as they are read, and a qwen2 file's rows and biases are taken as they are.
  // The epsilons are the models' own: Llama 2's 1e-5 (llama2.c's), Qwen2's 1e-6 (rms_norm_eps in its
  // Hugging Face configurations).
  static const std::vector<GgufArchitecture> architectures = {
      {"llama", false, RotaryPairs::adjacent, 1e-5f},
      {"qwen2", true, RotaryPairs::halves, 1e-6f},
  };
  return architectures;
}

const GgufArchitecture& find_gguf_architecture(const std::string& name, const std::string& field) {
  return find_by_name(gguf_architectures(), name, field);
}

}  // namespace kvlab
