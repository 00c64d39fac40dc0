#include "model/model.h"

#include <algorithm>
#include <cstring>

#include "model/kernels.h"

namespace kvlab {

namespace {

void resize(FloatBuffer& buffer, int rows, int width) { buffer.assign(static_cast<size_t>(rows) * width, 0.0f); }

}  // namespace

Model::Model(const ModelConfig& config) : Model(make_weights(config)) {}

Model::Model(Weights weights) : weights_(std::move(weights)) {
  resize(scratch_.scores, 1, weights_.config.max_seq);
  reserve_rows(1);
}

void Model::reserve_rows(int n_rows) {
  if (n_rows <= scratch_.capacity_rows) return;
  const ModelConfig& c = config();
  Scratch& s = scratch_;
  s.capacity_rows = n_rows;
  for (FloatBuffer* b : {&s.x, &s.xb, &s.q, &s.attn, &s.proj, &s.final_rows}) resize(*b, n_rows, c.d_model);
  resize(s.k, n_rows, c.kv_dim());
  resize(s.v, n_rows, c.kv_dim());
  resize(s.gate, n_rows, c.d_ff);
  resize(s.up, n_rows, c.d_ff);
  resize(s.logits, n_rows, c.vocab);
  resize(s.interleaved, n_rows, widest_matrix_input(c));
}

void Model::attention_block(const LayerWeights& layer, int layer_index, const std::vector<Row>& rows) {
  const ModelConfig& c = config();
  Scratch& s = scratch_;
  const int n_rows = static_cast<int>(rows.size());
  const int d = c.d_model, kv_dim = c.kv_dim(), half = c.head_dim() / 2;

  for (int r = 0; r < n_rows; ++r) kernels::rmsnorm(&s.xb[r * d], &s.x[r * d], layer.attn_norm.data(), d);
  kernels::matmul(s.q.data(), s.xb.data(), layer.wq, n_rows, s.interleaved.data());
  kernels::matmul(s.k.data(), s.xb.data(), layer.wk, n_rows, s.interleaved.data());
  kernels::matmul(s.v.data(), s.xb.data(), layer.wv, n_rows, s.interleaved.data());

  // Rotate queries and keys by their positions, then store every row's key and value in its cache.
  for (int r = 0; r < n_rows; ++r) {
    const float* cos = &weights_.rope_cos[static_cast<size_t>(rows[r].position) * half];
    const float* sin = &weights_.rope_sin[static_cast<size_t>(rows[r].position) * half];
    kernels::rope(&s.q[r * d], c.n_heads, c.head_dim(), cos, sin);
    kernels::rope(&s.k[r * kv_dim], c.n_kv_heads, c.head_dim(), cos, sin);
    KvCache& cache = *rows[r].cache;
    const int position = rows[r].position;
    const NumberFormat format = cache.pool().format();
    if (format == NumberFormat::f32) {
      std::memcpy(cache.key_slot(layer_index, position), &s.k[r * kv_dim], sizeof(float) * kv_dim);
      std::memcpy(cache.value_slot(layer_index, position), &s.v[r * kv_dim], sizeof(float) * kv_dim);
    } else {
      kernels::store_pairs(cache.key_pair_slot(layer_index, position), &s.k[r * kv_dim], c.n_kv_heads, c.head_dim(),
                           format);
      kernels::store_pairs(cache.value_pair_slot(layer_index, position), &s.v[r * kv_dim], c.n_kv_heads, c.head_dim(),
                           format);
    }
  }
  for (int r = 0; r < n_rows; ++r)
    kernels::attention(&s.attn[r * d], &s.q[r * d], rows[r].cache->layer_view(layer_index), rows[r].position + 1,
                       c.n_heads, c.n_kv_heads, c.head_dim(), s.scores.data());
  kernels::matmul(s.proj.data(), s.attn.data(), layer.wo, n_rows, s.interleaved.data());
  kernels::add(s.x.data(), s.proj.data(), n_rows * d);
}

void Model::feed_forward_block(const LayerWeights& layer, int n_rows) {
  const ModelConfig& c = config();
  Scratch& s = scratch_;
  const int d = c.d_model;
  for (int r = 0; r < n_rows; ++r) kernels::rmsnorm(&s.xb[r * d], &s.x[r * d], layer.ffn_norm.data(), d);
  kernels::matmul(s.gate.data(), s.xb.data(), layer.w_gate, n_rows, s.interleaved.data());
  kernels::matmul(s.up.data(), s.xb.data(), layer.w_up, n_rows, s.interleaved.data());
  kernels::swiglu(s.gate.data(), s.up.data(), n_rows * c.d_ff);
  kernels::matmul(s.proj.data(), s.gate.data(), layer.w_down, n_rows, s.interleaved.data());
  kernels::add(s.x.data(), s.proj.data(), n_rows * d);
}

const float* Model::forward(const std::vector<Row>& rows) {
  const ModelConfig& c = config();
  const int n_rows = static_cast<int>(rows.size());
  const int d = c.d_model;
  reserve_rows(n_rows);
  Scratch& s = scratch_;

  for (int r = 0; r < n_rows; ++r)
    std::memcpy(&s.x[r * d], &weights_.token_embedding[static_cast<size_t>(rows[r].token) * d], sizeof(float) * d);
  for (int l = 0; l < c.n_layers; ++l) {
    attention_block(weights_.layers[l], l, rows);
    feed_forward_block(weights_.layers[l], n_rows);
  }

  int n_wanted = 0;
  for (int r = 0; r < n_rows; ++r) {
    Row const& row = rows[r];
    row.cache->length = std::max(row.cache->length, row.position + 1);
    if (row.want_logits) kernels::rmsnorm(&s.final_rows[n_wanted++ * d], &s.x[r * d], weights_.final_norm.data(), d);
  }
  kernels::matmul(s.logits.data(), s.final_rows.data(), weights_.w_out, n_wanted, s.interleaved.data());
  return s.logits.data();
}

}  // namespace kvlab
