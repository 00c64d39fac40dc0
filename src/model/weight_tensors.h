#pragma once
// A model's weights as a model file holds them: plain row-major float32 arrays, one per tensor, named
// as the forward pass uses them, before they are packed for the matmul kernel (pack_weights, weights.h);
// a GGUF file's quantized matrices stay in their blocks, where the file's bytes were read. The readers of llama2.c checkpoints and GGUF
// files fill it, with wq and wk already in the rotary order the model uses (rotary_order.h), bq and bk
// too. The q/k/v biases are empty when the model has none (Llama, llama2.c).
#include <optional>
#include <vector>

#include "model/block_format.h"
#include "model/buffer.h"
#include "model/config.h"

namespace kvlab {

// A weight matrix [rows, row_length]: float32 values, or quantized blocks kept where the file has them.
struct MatrixTensor {
  FloatBuffer values;                 // [rows, row_length] row-major; empty when `blocks` holds the matrix
  std::optional<BlockFormat> format;  // set: the matrix is `blocks`, rows of row_length / elements blocks
  SharedBytes blocks;                 // [rows, row_length / elements blocks]

  bool empty() const { return values.empty() && blocks.empty(); }
};

struct LayerTensors {
  FloatBuffer attn_norm;  // [d_model]
  MatrixTensor wq;        // [d_model, d_model]
  MatrixTensor wk;        // [kv_dim, d_model]
  MatrixTensor wv;        // [kv_dim, d_model]
  FloatBuffer bq;         // [d_model]: the q/k/v biases, added after the products (Qwen2's)
  FloatBuffer bk;         // [kv_dim]
  FloatBuffer bv;         // [kv_dim]
  MatrixTensor wo;        // [d_model, d_model]
  FloatBuffer ffn_norm;   // [d_model]
  MatrixTensor w_gate;    // [d_ff, d_model]  (llama2.c's w1)
  MatrixTensor w_up;      // [d_ff, d_model]  (llama2.c's w3)
  MatrixTensor w_down;    // [d_model, d_ff]  (llama2.c's w2)
};

struct WeightTensors {
  ModelConfig config;            // passed validate()
  MatrixTensor token_embedding;  // [vocab, d_model]
  std::vector<LayerTensors> layers;
  FloatBuffer final_norm;  // [d_model]
  // [vocab, d_model]; empty when the classifier is shared with the token embedding
  MatrixTensor w_out;
};

}  // namespace kvlab
