#pragma once
// The model's parameters, random but deterministic: every value is drawn from Rng(config.seed) in a
// fixed order, so native and wasm builds hold identical weights. Matrices W [out, in] (output o is
// the dot product of row o with the input) are drawn row by row, then packed for the matmul kernel,
// all of them into one arena (packed_matrix.h) in the order the forward pass reads them.
#include <map>
#include <string>
#include <vector>

#include "model/buffer.h"
#include "model/config.h"
#include "model/packed_matrix.h"
#include "model/weight_tensors.h"

namespace kvlab {

struct LayerWeights {
  FloatBuffer attn_norm;  // [d_model]
  PackedMatrix wq;        // [d_model, d_model]
  PackedMatrix wk;        // [kv_dim, d_model]
  PackedMatrix wv;        // [kv_dim, d_model]
  FloatBuffer bq;         // [d_model]; bq, bk, bv: empty when the model has no q/k/v biases (weight_tensors.h)
  FloatBuffer bk;         // [kv_dim]
  FloatBuffer bv;         // [kv_dim]
  PackedMatrix wo;        // [d_model, d_model]
  FloatBuffer ffn_norm;   // [d_model]
  PackedMatrix w_gate;    // [d_ff, d_model]
  PackedMatrix w_up;      // [d_ff, d_model]
  PackedMatrix w_down;    // [d_model, d_ff]
};

struct Weights {
  ModelConfig config;
  FloatBuffer token_embedding;  // [vocab, d_model]; empty when the model file's embedding is quantized:
  // then its blocks, [vocab, d_model], one row dequantized a token (embed()); when the classifier is
  // shared with it, the same matrix as w_out
  PackedMatrix quantized_embedding;
  std::vector<LayerWeights> layers;
  FloatBuffer final_norm;          // [d_model]
  PackedMatrix w_out;              // [vocab, d_model]
  bool shared_classifier = false;  // w_out is the model file's token embedding (packed from it)
  FloatBuffer rope_cos;            // [max_seq, head_dim / 2]: cos(pos * theta_i)
  FloatBuffer rope_sin;            // [max_seq, head_dim / 2]
};

// Draws the weights of `config` (which must have passed validate()).
Weights make_weights(const ModelConfig& config);

// The weights a model file holds, packed in tensors.config.weights's format; quantized matrices keep
// their blocks. A shared classifier (empty w_out) is packed from the token embedding. The tensors' shapes
// must follow their config.
Weights pack_weights(WeightTensors tensors);

// The weights as a model file's tensors again (row-major float32, the rotary order kept), for packing
// them in another format: a bf16 model's values are its rounded ones, a quantized one's dequantized.
WeightTensors unpack_weights(const Weights& w);

// What the weights take as they are held: their bytes (every matrix as packed or in its blocks, the
// token embedding once, the norms and biases), their parameters (a classifier shared with the token
// embedding counted once, as a model's card counts it: stories15M's 15.2 M), and how many matrices each
// storage holds ("f32", "bf16", "Q4_K": a model file's type mix), the token embedding counted with them
// when it is not the classifier.
struct WeightStorage {
  int64_t bytes = 0;
  int64_t parameters = 0;
  std::map<std::string, int> matrices;
};
WeightStorage weight_storage(const Weights& w);

// Row `token` of the token embedding, in float32. out: [d_model]
void embed(const Weights& w, int token, float* out);

// Every weight matrix, in the order a forward pass reads them (Model::forward): per layer wq, wk, wv,
// wo, w_gate, w_up, w_down, then w_out. Their stripes run through the arena in this order.
std::vector<const PackedMatrix*> weight_matrices(const Weights& w);

// The widest input of any weight matrix of `config` (the largest n_in): the row width of
// kernels::matmul's interleave scratch.
int widest_matrix_input(const ModelConfig& config);

}  // namespace kvlab
