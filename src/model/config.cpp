#include "model/config.h"

#include "common/find_by_name.h"
#include "common/text_format.h"

namespace kvlab {

namespace {

ModelConfig make_config(int vocab, int d_model, int n_layers, int n_heads, int n_kv_heads, int d_ff, int max_seq) {
  ModelConfig c;
  c.vocab = vocab;
  c.d_model = d_model;
  c.n_layers = n_layers;
  c.n_heads = n_heads;
  c.n_kv_heads = n_kv_heads;
  c.d_ff = d_ff;
  c.max_seq = max_seq;
  return c;
}

}  // namespace

const std::vector<NumberFormat>& model_weight_formats() {
  static const std::vector<NumberFormat> formats = {NumberFormat::f32, NumberFormat::bf16};
  return formats;
}

const std::vector<NumberFormat>& model_kv_formats() {
  static const std::vector<NumberFormat> formats = {NumberFormat::f32, NumberFormat::bf16, NumberFormat::f16};
  return formats;
}

const std::vector<ModelPreset>& model_presets() {
  static const std::vector<ModelPreset> presets = {
      // The default. 11.1 M parameters, 44.5 MB of float32 weights: more than a core's L2 and than the
      // 32 MB L3 of the machine it was chosen on, so a one-row decode step streams its weights from
      // memory and extra rows ride along, as on a real server. The whole default lab takes about 5 s
      // natively there, and one decode step about 1.5 ms, long enough to time at 0.1 ms resolution.
      {"small", "default", "default: 11.1 M parameters, 44.5 MB of weights (more than a typical L3 cache)",
       ModelConfig{}},
      {"lab", "the published toy size", "the size of the published lab's toy model: 2 layers of width 64",
       make_config(256, 64, 2, 4, 4, 192, 256)},
      {"medium", "slow", "26 M parameters (105 MB), for machines with time to spare",
       make_config(2048, 512, 8, 8, 2, 1536, 256)},
      {"tiny", "for tests", "for tests: 2 layers of width 32, grouped-query attention 4:2",
       make_config(64, 32, 2, 4, 2, 64, 160)},
  };
  return presets;
}

const ModelPreset& find_preset(const std::string& name, const std::string& field) {
  return find_by_name(model_presets(), name, field);
}

ModelSize model_size(const ModelConfig& c) {
  int64_t d = c.d_model, kv = c.kv_dim(), ff = c.d_ff, vocab = c.vocab;
  int64_t per_layer_matrices = d * d * 2 + 2 * kv * d + 3 * d * ff;  // wq wo, wk wv, gate up down
  int64_t matrices = c.n_layers * per_layer_matrices + vocab * d;    // and the output projection
  int64_t floats = c.n_layers * 2 * d + vocab * d + d;               // norms, embedding, final norm
  return {matrices + floats, matrices * (bits_per_number(c.weights) / 8) + floats * 4,
          int64_t{2} * c.n_layers * c.n_kv_heads * c.head_dim() * (bits_per_number(c.kv) / 8)};
}

void validate(const ModelConfig& c, const std::string& path) {
  // Before the fields' agreement: a size too large is about the fields given, not a default they clash with.
  validate_ranges(c, path);
  const ModelSize size = model_size(c);
  if (size.weight_bytes > kMaxWeightBytes)
    throw_range({path, "", {}},
                "is too large: " + grouped(static_cast<unsigned long long>(size.weight_bytes >> 20)) +
                    " MiB of weights (at most 512 MiB) for n_layers " + std::to_string(c.n_layers) +
                    " x (2 d_model^2 + 2 kv_dim d_model + 3 d_model d_ff) + 2 vocab d_model, and norms = " +
                    grouped(static_cast<unsigned long long>(size.parameters)) + " parameters, with d_model " +
                    std::to_string(c.d_model) + ", kv_dim " + std::to_string(c.kv_dim()) + ", d_ff " +
                    std::to_string(c.d_ff) + " and vocab " + std::to_string(c.vocab));
  validate_agreement(c, path);
}

void validate_ranges(const ModelConfig& c, const std::string& path) {
  auto check = [&](const char* name, int value, int lo, int hi) {
    if (value < lo || value > hi)
      throw_range({path + "." + name, std::to_string(value), integers_from(lo, hi)},
                  "must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi) + " (got " +
                      std::to_string(value) + ")");
  };
  check("vocab", c.vocab, 2, kMaxVocab);
  check("d_model", c.d_model, 4, 4096);
  check("n_layers", c.n_layers, 1, 64);
  check("n_heads", c.n_heads, 1, 128);
  check("n_kv_heads", c.n_kv_heads, 1, c.n_heads);
  check("d_ff", c.d_ff, 1, 16384);
  check("max_seq", c.max_seq, 2, 8192);
}

void validate_agreement(const ModelConfig& c, const std::string& path) {
  if (c.d_model % c.n_heads != 0)
    throw_range({path + ".n_heads", std::to_string(c.n_heads), {}},
                "must divide d_model (" + std::to_string(c.d_model) + " is not a multiple of " +
                    std::to_string(c.n_heads) + ")");
  if (c.n_heads % c.n_kv_heads != 0)
    throw_range({path + ".n_kv_heads", std::to_string(c.n_kv_heads), {}},
                "must divide n_heads (" + std::to_string(c.n_heads) + " is not a multiple of " +
                    std::to_string(c.n_kv_heads) + ")");
  if (c.head_dim() % 2 != 0)
    throw_range({path + ".d_model", std::to_string(c.d_model), {}},
                "/ n_heads must be even for rotary embeddings (got " + std::to_string(c.head_dim()) + ")");
}

}  // namespace kvlab
