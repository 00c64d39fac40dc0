#include "model/model.h"

#include <algorithm>
#include <cstring>

#include "model/kernels.h"

namespace kvlab {

namespace {

void resize(FloatBuffer& buffer, int rows, int width) { buffer.assign(static_cast<size_t>(rows) * width, 0.0f); }

}  // namespace

struct Model::Product {
  float* out;
  const PackedMatrix* w;
};

Model::Model(const ModelConfig& config) : Model(make_weights(config)) {}

Model::Model(Weights weights) : weights_(std::move(weights)) {
  set_threads(1);
  reserve_rows(1);
}

void Model::set_threads(int n_threads) {
  if (pool_ && pool_->size() == n_threads) return;
  pool_.reset();
  pool_ = std::make_unique<ThreadPool>(n_threads);
  resize(scratch_.scores, n_threads, weights_.config.max_seq);
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
  s.input_blocks.resize(static_cast<size_t>(n_rows) * (widest_matrix_input(c) / kInputBlockWidth));
}

void Model::matmuls(const Product* products, int n_products, const float* x, int n_rows) {
  // The products share x: once interleaved for the panel matrices among them, once in int8 blocks for
  // the quantized ones.
  const int n_in = products[0].w->n_in;
  const float* inputs = nullptr;
  const InputBlock* blocks = nullptr;
  for (int m = 0; m < n_products; ++m) {
    if (products[m].w->blocks && !blocks) {
      quantize_inputs(scratch_.input_blocks.data(), x, n_rows, n_in);
      blocks = scratch_.input_blocks.data();
    } else if (!products[m].w->blocks && !inputs) {
      inputs = kernels::matmul_inputs(x, n_in, n_rows, scratch_.interleaved.data());
    }
  }
  // Pieces start at multiples of the one-row kernel's panels, so that every piece's blocks are whole.
  const int unit = kernels::one_row_panels();
  int n_units = 0;
  for (int m = 0; m < n_products; ++m) n_units += (products[m].w->n_panels() + unit - 1) / unit;
  const int n_pieces = piece_count(n_units, pool_->size());
  pool_->run(n_pieces, [&](int piece, int) {
    const int first = share_start(n_units, n_pieces, piece) * unit;
    const int end = share_start(n_units, n_pieces, piece + 1) * unit;
    int offset = 0;  // where product m's panels start in the list, in units
    for (int m = 0; m < n_products; ++m) {
      const PackedMatrix& w = *products[m].w;
      const int span = (w.n_panels() + unit - 1) / unit * unit;
      const int from = std::max(first - offset, 0), to = std::min({end - offset, span, w.n_panels()});
      if (from < to && w.blocks) kernels::matmul_blocks(products[m].out, blocks, w, n_rows, from, to);
      if (from < to && !w.blocks) kernels::matmul_panels(products[m].out, inputs, w, n_rows, from, to);
      offset += span;
    }
  });
}

void Model::attention_block(const LayerWeights& layer, int layer_index, const std::vector<Row>& rows) {
  const ModelConfig& c = config();
  Scratch& s = scratch_;
  const int n_rows = static_cast<int>(rows.size());
  const int d = c.d_model, kv_dim = c.kv_dim(), half = c.head_dim() / 2;

  for (int r = 0; r < n_rows; ++r)
    kernels::rmsnorm(&s.xb[r * d], &s.x[r * d], layer.attn_norm.data(), d, c.rms_epsilon);
  const Product qkv[] = {{s.q.data(), &layer.wq}, {s.k.data(), &layer.wk}, {s.v.data(), &layer.wv}};
  matmuls(qkv, 3, s.xb.data(), n_rows);

  // Add the q/k/v biases where the model has them (Qwen2), before the rotation as llama.cpp's graph
  // adds them; rotate queries and keys by their positions, then store every row's key and value in its
  // cache.
  for (int r = 0; r < n_rows; ++r) {
    if (!layer.bq.empty()) {
      kernels::add(&s.q[r * d], layer.bq.data(), d);
      kernels::add(&s.k[r * kv_dim], layer.bk.data(), kv_dim);
      kernels::add(&s.v[r * kv_dim], layer.bv.data(), kv_dim);
    }
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
  // Every (row, head) pair is one item, costing the row's context length; the pieces are contiguous
  // runs of items of equal cost, and each thread has scores of its own.
  const auto context_length = [&](int r) { return rows[r].position + 1; };
  const int n_pieces = piece_count(n_rows * c.n_heads, pool_->size());
  pool_->run(n_pieces, [&](int piece, int thread) {
    float* scores = &s.scores[static_cast<size_t>(thread) * c.max_seq];
    const int end = share_start_by_cost(n_rows, c.n_heads, context_length, n_pieces, piece + 1);
    for (int item = share_start_by_cost(n_rows, c.n_heads, context_length, n_pieces, piece); item < end;) {
      const int r = item / c.n_heads, first_head = item % c.n_heads;
      const int end_head = std::min(c.n_heads, first_head + (end - item));
      kernels::attention_heads(&s.attn[r * d], &s.q[r * d], rows[r].cache->layer_view(layer_index),
                               rows[r].position + 1, c.n_heads, c.n_kv_heads, c.head_dim(), first_head, end_head,
                               scores);
      item += end_head - first_head;
    }
  });
  const Product wo[] = {{s.proj.data(), &layer.wo}};
  matmuls(wo, 1, s.attn.data(), n_rows);
  kernels::add(s.x.data(), s.proj.data(), n_rows * d);
}

void Model::feed_forward_block(const LayerWeights& layer, int n_rows) {
  const ModelConfig& c = config();
  Scratch& s = scratch_;
  const int d = c.d_model;
  for (int r = 0; r < n_rows; ++r) kernels::rmsnorm(&s.xb[r * d], &s.x[r * d], layer.ffn_norm.data(), d, c.rms_epsilon);
  const Product gate_up[] = {{s.gate.data(), &layer.w_gate}, {s.up.data(), &layer.w_up}};
  matmuls(gate_up, 2, s.xb.data(), n_rows);
  // SwiGLU row by row, each row whole on one thread: a row's SIMD body and tail are the same on any
  // thread count. On one thread in wasm it was most of the step's serial part (docs/threads.md).
  const int n_pieces = piece_count(n_rows, pool_->size());
  pool_->run(n_pieces, [&](int piece, int) {
    for (int r = share_start(n_rows, n_pieces, piece), end = share_start(n_rows, n_pieces, piece + 1); r < end; ++r)
      kernels::swiglu(&s.gate[static_cast<size_t>(r) * c.d_ff], &s.up[static_cast<size_t>(r) * c.d_ff], c.d_ff);
  });
  const Product down[] = {{s.proj.data(), &layer.w_down}};
  matmuls(down, 1, s.gate.data(), n_rows);
  kernels::add(s.x.data(), s.proj.data(), n_rows * d);
}

const float* Model::forward(const std::vector<Row>& rows) {
  const ModelConfig& c = config();
  const int n_rows = static_cast<int>(rows.size());
  const int d = c.d_model;
  reserve_rows(n_rows);
  Scratch& s = scratch_;

  for (int r = 0; r < n_rows; ++r) embed(weights_, rows[r].token, &s.x[static_cast<size_t>(r) * d]);
  for (int l = 0; l < c.n_layers; ++l) {
    attention_block(weights_.layers[l], l, rows);
    feed_forward_block(weights_.layers[l], n_rows);
  }

  int n_wanted = 0;
  for (int r = 0; r < n_rows; ++r) {
    Row const& row = rows[r];
    row.cache->length = std::max(row.cache->length, row.position + 1);
    if (row.want_logits)
      kernels::rmsnorm(&s.final_rows[n_wanted++ * d], &s.x[r * d], weights_.final_norm.data(), d, c.rms_epsilon);
  }
  const Product logits[] = {{s.logits.data(), &weights_.w_out}};
  if (n_wanted > 0) matmuls(logits, 1, s.final_rows.data(), n_wanted);
  return s.logits.data();
}

void Model::greedy_tokens(const std::vector<Row>& rows, std::vector<int>& tokens) {
  if (device_) {
    device_->greedy_tokens(rows, tokens);
    return;
  }
  const float* logits = forward(rows);
  const int vocab = config().vocab;
  tokens.clear();
  for (const Row& row : rows)
    if (row.want_logits) tokens.push_back(kernels::argmax(logits + tokens.size() * static_cast<size_t>(vocab), vocab));
}

}  // namespace kvlab
