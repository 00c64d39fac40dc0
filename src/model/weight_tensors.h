#pragma once
// A model's weights as a model file holds them: plain row-major float32 arrays, one per tensor, named
// as the forward pass uses them, before they are packed for the matmul kernel (pack_weights, weights.h).
// The readers of llama2.c checkpoints and GGUF files fill it, with wq and wk already in the rotary
// order the model uses (rotary_order.h), bq and bk too. The q/k/v biases are empty when the model has
// none (Llama, llama2.c).
#include <vector>

#include "model/buffer.h"
#include "model/config.h"

namespace kvlab {

struct LayerTensors {
  FloatBuffer attn_norm;  // [d_model]
  FloatBuffer wq;         // [d_model, d_model]
  FloatBuffer wk;         // [kv_dim, d_model]
  FloatBuffer wv;         // [kv_dim, d_model]
  FloatBuffer bq;         // [d_model]: the q/k/v biases, added after the products (Qwen2's)
  FloatBuffer bk;         // [kv_dim]
  FloatBuffer bv;         // [kv_dim]
  FloatBuffer wo;         // [d_model, d_model]
  FloatBuffer ffn_norm;   // [d_model]
  FloatBuffer w_gate;     // [d_ff, d_model]  (llama2.c's w1)
  FloatBuffer w_up;       // [d_ff, d_model]  (llama2.c's w3)
  FloatBuffer w_down;     // [d_model, d_ff]  (llama2.c's w2)
};

struct WeightTensors {
  ModelConfig config;           // passed validate()
  FloatBuffer token_embedding;  // [vocab, d_model]
  std::vector<LayerTensors> layers;
  FloatBuffer final_norm;  // [d_model]
  // [vocab, d_model]; empty when the classifier is shared with the token embedding
  FloatBuffer w_out;
};

}  // namespace kvlab
