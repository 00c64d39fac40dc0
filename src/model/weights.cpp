#include "model/weights.h"

#include <algorithm>
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
void draw_projection(Rng& rng, WeightArena& arena, const PackedMatrix& m) {
  FloatBuffer rows = random_matrix(rng, m.n_out, m.n_in, std::sqrt(3.0f / static_cast<float>(m.n_in)));
  pack_into(arena, m, rows.data());
}

// The matrices of `w` in forward order (weight_matrices), mutable or not.
template <class W, class M>
std::vector<M*> matrices_in_forward_order(W& w) {
  std::vector<M*> matrices;
  for (auto& l : w.layers)
    for (M* m : {&l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up, &l.w_down}) matrices.push_back(m);
  matrices.push_back(&w.w_out);
  return matrices;
}

// The matrices' shapes [n_out, n_in], in the order of matrices_in_forward_order.
std::vector<MatrixShape> shapes_in_forward_order(const ModelConfig& c) {
  const std::vector<MatrixShape> layer = {{c.d_model, c.d_model}, {c.kv_dim(), c.d_model}, {c.kv_dim(), c.d_model},
                                          {c.d_model, c.d_model}, {c.d_ff, c.d_model},     {c.d_ff, c.d_model},
                                          {c.d_model, c.d_ff}};  // wq, wk, wv, wo, w_gate, w_up, w_down
  std::vector<MatrixShape> shapes;
  for (int l = 0; l < c.n_layers; ++l) shapes.insert(shapes.end(), layer.begin(), layer.end());
  shapes.push_back({c.vocab, c.d_model});  // w_out
  return shapes;
}

// Rotary tables in double, rounded once to float: the same values wherever the model is built.
void fill_rope_tables(Weights& w) {
  const ModelConfig& c = w.config;
  const int half = c.head_dim() / 2;
  w.rope_cos.resize(static_cast<size_t>(c.max_seq) * half);
  w.rope_sin.resize(w.rope_cos.size());
  for (int pos = 0; pos < c.max_seq; ++pos) {
    for (int i = 0; i < half; ++i) {
      double theta = std::pow(c.rope_theta, -2.0 * i / c.head_dim());
      w.rope_cos[static_cast<size_t>(pos) * half + i] = static_cast<float>(std::cos(pos * theta));
      w.rope_sin[static_cast<size_t>(pos) * half + i] = static_cast<float>(std::sin(pos * theta));
    }
  }
}

FloatBuffer ones(int n) { return FloatBuffer(static_cast<size_t>(n), 1.0f); }

}  // namespace

Weights make_weights(const ModelConfig& c) {
  Rng rng(c.seed);
  Weights w;
  w.config = c;
  w.token_embedding = random_matrix(rng, c.vocab, c.d_model, 1.0f);
  w.layers.resize(static_cast<size_t>(c.n_layers));
  w.final_norm = ones(c.d_model);
  for (LayerWeights& layer : w.layers) {
    layer.attn_norm = ones(c.d_model);
    layer.ffn_norm = ones(c.d_model);
  }
  // One arena for every matrix laid out in forward order, then the draws, in that same order as before
  // the arena: the same values.
  const std::vector<PackedMatrix*> matrices = matrices_in_forward_order<Weights, PackedMatrix>(w);
  ArenaLayout layout = lay_out_in_one_arena(shapes_in_forward_order(c), c.weights);
  for (size_t k = 0; k < matrices.size(); ++k) {
    *matrices[k] = layout.matrices[k];
    draw_projection(rng, *layout.arena, *matrices[k]);
  }

  fill_rope_tables(w);
  return w;
}

Weights pack_weights(WeightTensors t) {
  const ModelConfig& c = t.config;
  Weights w;
  w.config = c;
  w.layers.resize(static_cast<size_t>(c.n_layers));
  std::vector<MatrixTensor*> sources;  // each matrix's values or blocks, in forward order
  for (size_t l = 0; l < w.layers.size(); ++l) {
    LayerTensors& from = t.layers[l];
    w.layers[l].attn_norm = std::move(from.attn_norm);
    w.layers[l].ffn_norm = std::move(from.ffn_norm);
    w.layers[l].bq = std::move(from.bq);
    w.layers[l].bk = std::move(from.bk);
    w.layers[l].bv = std::move(from.bv);
    for (MatrixTensor* m : {&from.wq, &from.wk, &from.wv, &from.wo, &from.w_gate, &from.w_up, &from.w_down})
      sources.push_back(m);
  }
  const bool shared = t.w_out.empty();
  sources.push_back(shared ? &t.token_embedding : &t.w_out);
  std::vector<MatrixShape> shapes = shapes_in_forward_order(c);
  // A quantized embedding not shared with the classifier keeps its blocks after the matrices.
  const bool separate_embedding_blocks = !shared && t.token_embedding.format;
  if (separate_embedding_blocks) {
    sources.push_back(&t.token_embedding);
    shapes.push_back({c.vocab, c.d_model});
  }
  // Blocks that all lie in one buffer (a model file's bytes) are used where they are; others are copied.
  std::shared_ptr<ByteBuffer> blocks_in_place;
  bool one_buffer = true;
  for (size_t k = 0; k < shapes.size(); ++k) {
    shapes[k].blocks = sources[k]->format;
    shapes[k].block_start = sources[k]->blocks.start;
    if (!sources[k]->format) continue;
    if (!blocks_in_place) blocks_in_place = sources[k]->blocks.buffer;
    one_buffer = one_buffer && sources[k]->blocks.buffer == blocks_in_place;
  }
  if (!one_buffer) blocks_in_place = nullptr;
  std::vector<PackedMatrix*> matrices = matrices_in_forward_order<Weights, PackedMatrix>(w);
  if (separate_embedding_blocks) matrices.push_back(&w.quantized_embedding);
  ArenaLayout layout = lay_out_in_one_arena(shapes, c.weights, blocks_in_place);
  for (size_t k = 0; k < matrices.size(); ++k) {
    *matrices[k] = layout.matrices[k];
    if (sources[k]->format && !blocks_in_place)
      copy_blocks_into(*layout.arena, *matrices[k], sources[k]->blocks.data());
    else if (!sources[k]->format)
      pack_into(*layout.arena, *matrices[k], sources[k]->values.data());
    if (sources[k] != &t.token_embedding) *sources[k] = MatrixTensor();  // freed as it goes: a lower peak
  }
  w.shared_classifier = shared;
  if (shared && t.token_embedding.format) w.quantized_embedding = w.w_out;
  w.token_embedding = std::move(t.token_embedding.values);
  w.final_norm = std::move(t.final_norm);
  fill_rope_tables(w);
  return w;
}

WeightTensors unpack_weights(const Weights& w) {
  WeightTensors t;
  t.config = w.config;
  t.token_embedding.values = w.token_embedding.empty() ? unpack(w.quantized_embedding) : w.token_embedding;
  const auto values = [](const PackedMatrix& m) { return MatrixTensor{unpack(m), std::nullopt, {}}; };
  for (const LayerWeights& l : w.layers)
    t.layers.push_back({l.attn_norm, values(l.wq), values(l.wk), values(l.wv), l.bq, l.bk, l.bv, values(l.wo),
                        l.ffn_norm, values(l.w_gate), values(l.w_up), values(l.w_down)});
  t.final_norm = w.final_norm;
  t.w_out = values(w.w_out);
  return t;
}

WeightStorage weight_storage(const Weights& w) {
  const ModelConfig& c = w.config;
  WeightStorage storage;
  const auto add = [&](const PackedMatrix& m) {
    storage.bytes += static_cast<int64_t>(m.bytes());
    storage.parameters += int64_t{m.n_out} * m.n_in;
    ++storage.matrices[m.blocks ? traits(*m.blocks).name : number_format_name(m.format)];
  };
  for (const PackedMatrix* m : weight_matrices(w)) add(*m);
  int64_t vectors = int64_t{2 * c.n_layers + 1} * c.d_model;  // the norms, and the biases where there are
  for (const LayerWeights& l : w.layers) vectors += static_cast<int64_t>(l.bq.size() + l.bk.size() + l.bv.size());
  storage.bytes += 4 * vectors;
  storage.parameters += vectors;
  // A quantized embedding shared with the classifier is w_out itself (pack_weights), counted above; a
  // float32 one is held beside its packed copy, but is the same parameters.
  if (!w.token_embedding.empty()) {
    storage.bytes += static_cast<int64_t>(w.token_embedding.size()) * 4;
    if (!w.shared_classifier) storage.parameters += static_cast<int64_t>(w.token_embedding.size());
    ++storage.matrices["f32"];
  } else if (!w.shared_classifier) {
    add(w.quantized_embedding);
  }
  return storage;
}

void embed(const Weights& w, int token, float* out) {
  const int d = w.config.d_model;
  if (!w.token_embedding.empty()) {
    std::copy_n(w.token_embedding.begin() + static_cast<std::ptrdiff_t>(token) * d, d, out);
    return;
  }
  const PackedMatrix& m = w.quantized_embedding;
  dequantize_blocks(*m.blocks, m.block_row(token), d / traits(*m.blocks).elements, out);
}

std::vector<const PackedMatrix*> weight_matrices(const Weights& w) {
  return matrices_in_forward_order<const Weights, const PackedMatrix>(w);
}

int widest_matrix_input(const ModelConfig& c) {
  int widest = 0;
  for (const MatrixShape& shape : shapes_in_forward_order(c)) widest = std::max(widest, shape.n_in);
  return widest;
}

}  // namespace kvlab
