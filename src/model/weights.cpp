#include "model/weights.h"

#include <cmath>

#include "common/rng.h"

namespace kvlab {

namespace {

// Uniform in [-scale, scale) has variance scale^2 / 3.
FloatBuffer random_matrix(Rng& rng, int n_out, int n_in, float scale) {
  FloatBuffer m(static_cast<size_t>(n_out) * n_in);
  for (float& x : m) x = rng.symmetric_float() * scale;
  return m;
}

// With scale sqrt(3 / n_in) each output has unit variance for unit-variance inputs, so activations
// neither vanish nor blow up through the layers.
// Drawn in float32 whatever the format, then rounded to it: the draws are the same in every format.
PackedMatrix projection(Rng& rng, int n_out, int n_in, WeightFormat format) {
  FloatBuffer m = random_matrix(rng, n_out, n_in, std::sqrt(3.0f / static_cast<float>(n_in)));
  return pack(m.data(), n_out, n_in, format);
}

FloatBuffer ones(int n) { return FloatBuffer(static_cast<size_t>(n), 1.0f); }

}  // namespace

Weights make_weights(const ModelConfig& c) {
  Rng rng(c.seed);
  Weights w;
  w.config = c;
  w.token_embedding = random_matrix(rng, c.vocab, c.d_model, 1.0f);
  w.layers.resize(static_cast<size_t>(c.n_layers));
  for (LayerWeights& layer : w.layers) {
    layer.attn_norm = ones(c.d_model);
    layer.wq = projection(rng, c.d_model, c.d_model, c.weights);
    layer.wk = projection(rng, c.kv_dim(), c.d_model, c.weights);
    layer.wv = projection(rng, c.kv_dim(), c.d_model, c.weights);
    layer.wo = projection(rng, c.d_model, c.d_model, c.weights);
    layer.ffn_norm = ones(c.d_model);
    layer.w_gate = projection(rng, c.d_ff, c.d_model, c.weights);
    layer.w_up = projection(rng, c.d_ff, c.d_model, c.weights);
    layer.w_down = projection(rng, c.d_model, c.d_ff, c.weights);
  }
  w.final_norm = ones(c.d_model);
  w.w_out = projection(rng, c.vocab, c.d_model, c.weights);

  // Rotary tables in double, rounded once to float: the same values wherever the model is built.
  const int half = c.head_dim() / 2;
  w.rope_cos.resize(static_cast<size_t>(c.max_seq) * half);
  w.rope_sin.resize(w.rope_cos.size());
  for (int pos = 0; pos < c.max_seq; ++pos) {
    for (int i = 0; i < half; ++i) {
      double theta = std::pow(10000.0, -2.0 * i / c.head_dim());
      w.rope_cos[static_cast<size_t>(pos) * half + i] = static_cast<float>(std::cos(pos * theta));
      w.rope_sin[static_cast<size_t>(pos) * half + i] = static_cast<float>(std::sin(pos * theta));
    }
  }
  return w;
}

}  // namespace kvlab
