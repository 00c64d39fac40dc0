#include "gguf_dequantized.h"

#include <cstring>
#include <map>
#include <stdexcept>

#include "model/block_format.h"
#include "model_files/gguf_file.h"

namespace kvlab::test {

FileWeights dequantized_weights(const std::string& gguf, const ModelConfig& config) {
  const GgufFile file(reinterpret_cast<const uint8_t*>(gguf.data()), gguf.size());
  FileWeights w;
  w.config = config;
  const size_t n_layers = static_cast<size_t>(config.n_layers);
  for (auto* kind : {&w.attn_norm, &w.wq, &w.wk, &w.wv, &w.wo, &w.ffn_norm, &w.w1, &w.w2, &w.w3})
    kind->resize(n_layers);
  std::map<std::string, std::vector<float>*> destination = {
      {"token_embd.weight", &w.token_embedding}, {"output_norm.weight", &w.final_norm}, {"output.weight", &w.w_out}};
  for (size_t l = 0; l < n_layers; ++l) {
    const std::string b = "blk." + std::to_string(l) + ".";
    destination[b + "attn_norm.weight"] = &w.attn_norm[l];
    destination[b + "attn_q.weight"] = &w.wq[l];
    destination[b + "attn_k.weight"] = &w.wk[l];
    destination[b + "attn_v.weight"] = &w.wv[l];
    destination[b + "attn_output.weight"] = &w.wo[l];
    destination[b + "ffn_norm.weight"] = &w.ffn_norm[l];
    destination[b + "ffn_gate.weight"] = &w.w1[l];
    destination[b + "ffn_down.weight"] = &w.w2[l];
    destination[b + "ffn_up.weight"] = &w.w3[l];
  }
  for (const GgufTensorInfo& info : file.tensors()) {
    std::vector<float>& values = *destination.at(info.name);
    values.resize(static_cast<size_t>(info.n_elements));
    if (info.type == 0) {
      std::memcpy(values.data(), file.tensor_bytes(info, info.n_elements * 4), info.n_elements * 4);
      continue;
    }
    const BlockFormatTraits* format = nullptr;
    for (const BlockFormatTraits& t : block_formats())
      if (t.ggml_type == info.type) format = &t;
    if (!format) throw std::invalid_argument(info.name + " is neither F32 nor a block format");
    const uint64_t n_blocks = info.n_elements / static_cast<uint64_t>(format->elements);
    dequantize_blocks(format->format, file.tensor_bytes(info, n_blocks * static_cast<uint64_t>(format->bytes)),
                      static_cast<int64_t>(n_blocks), values.data());
  }
  return w;
}

}  // namespace kvlab::test
