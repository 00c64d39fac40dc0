#include "model_files/llama2c_checkpoint.h"

#include <cmath>
#include <cstdlib>
#include <string>

#include "common/input_error.h"
#include "model_files/byte_reader.h"
#include "model_files/rotary_order.h"

namespace kvlab {

namespace {

constexpr size_t kHeaderBytes = 7 * 4;

// Reads one header field, checked against [lo, hi].
int header_field(ByteReader& in, const char* name, int lo, int hi) {
  const int32_t value = in.i32(name);
  if (value < lo || value > hi)
    throw_range({in.path(name), std::to_string(value), integers_from(lo, hi)},
                "must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi) + " (got " +
                    std::to_string(value) + ")");
  return value;
}

FloatBuffer read_floats(ByteReader& in, size_t count, const std::string& field) {
  in.require_fits(count, 4, field);
  FloatBuffer values(count);
  for (size_t i = 0; i < count; ++i) {
    values[i] = in.f32(field);
    // A NaN or an infinity would spread through every step and write token 0 or ordinary-looking tokens.
    if (!std::isfinite(values[i]))
      in.fail(field, "",
              "holds a NaN or an infinity, as element " + std::to_string(i) +
                  ": kvlab refuses weights that are not finite numbers");
  }
  return values;
}

}  // namespace

WeightTensors read_llama2c_checkpoint(const uint8_t* data, size_t size) {
  ByteReader in(data, size, "checkpoint");
  ModelConfig c;
  c.d_model = header_field(in, "dim", 4, 4096);
  c.d_ff = header_field(in, "hidden_dim", 1, 16384);
  c.n_layers = header_field(in, "n_layers", 1, 64);
  c.n_heads = header_field(in, "n_heads", 1, 128);
  c.n_kv_heads = header_field(in, "n_kv_heads", 1, c.n_heads);
  const int signed_vocab = header_field(in, "vocab_size", -65536, 65536);
  const bool shared_classifier = signed_vocab > 0;
  c.vocab = std::abs(signed_vocab);
  c.max_seq = header_field(in, "seq_len", 2, 8192);
  validate(c, "checkpoint");

  const size_t d = c.d_model, kv = c.kv_dim(), ff = c.d_ff, layers = c.n_layers, vocab = c.vocab;
  const size_t rope_floats = static_cast<size_t>(c.max_seq) * (c.head_dim() / 2);
  // In 64 bits: validate() bounds the weights, but a wasm size_t is 32.
  const uint64_t floats = uint64_t{vocab} * d + uint64_t{layers} * (2 * d + 2 * d * d + 2 * kv * d + 3 * d * ff) + d +
                          2 * rope_floats + (shared_classifier ? 0 : uint64_t{vocab} * d);
  const uint64_t expected = kHeaderBytes + floats * 4;
  if (size != expected)
    throw_range({in.path("size"), std::to_string(size), {}}, "must be " + std::to_string(expected) +
                                                                 " bytes, as the header's dimensions make it (got " +
                                                                 std::to_string(size) + ")");

  WeightTensors t;
  t.config = c;
  t.layers.resize(layers);
  t.token_embedding.values = read_floats(in, vocab * d, "token_embedding");
  // Each kind of weight for every layer, in turn, as run.c's memory_map_weights lays them out.
  auto per_layer_vector = [&](FloatBuffer LayerTensors::*member, size_t count, const char* name) {
    for (size_t l = 0; l < layers; ++l)
      t.layers[l].*member = read_floats(in, count, std::string(name) + "[" + std::to_string(l) + "]");
  };
  auto per_layer = [&](MatrixTensor LayerTensors::*member, size_t count, const char* name) {
    for (size_t l = 0; l < layers; ++l)
      (t.layers[l].*member).values = read_floats(in, count, std::string(name) + "[" + std::to_string(l) + "]");
  };
  per_layer_vector(&LayerTensors::attn_norm, d, "rms_att_weight");
  per_layer(&LayerTensors::wq, d * d, "wq");
  per_layer(&LayerTensors::wk, kv * d, "wk");
  per_layer(&LayerTensors::wv, kv * d, "wv");
  per_layer(&LayerTensors::wo, d * d, "wo");
  per_layer_vector(&LayerTensors::ffn_norm, d, "rms_ffn_weight");
  per_layer(&LayerTensors::w_gate, ff * d, "w1");
  per_layer(&LayerTensors::w_down, d * ff, "w2");
  per_layer(&LayerTensors::w_up, ff * d, "w3");
  t.final_norm = read_floats(in, d, "rms_final_weight");
  in.take(2 * rope_floats * 4, "freq_cis");
  if (!shared_classifier) t.w_out.values = read_floats(in, vocab * d, "wcls");
  for (LayerTensors& layer : t.layers) {
    adjacent_pairs_to_halves(layer.wq, c.n_heads, c.head_dim(), c.d_model);
    adjacent_pairs_to_halves(layer.wk, c.n_kv_heads, c.head_dim(), c.d_model);
  }
  return t;
}

}  // namespace kvlab
