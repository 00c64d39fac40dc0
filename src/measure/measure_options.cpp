#include "measure/measure_options.h"

#include <algorithm>
#include <utility>

#include "common/input_error.h"
#include "common/json_fields.h"
#include "model/thread_pool.h"
#include "model/weights.h"

namespace kvlab {

using nlohmann::json;

const char* const kMeasureOptionFields =
    "preset, model {vocab, d_model, n_layers, n_heads, n_kv_heads, d_ff, max_seq, seed}, weights, kv, prompt_tokens, "
    "answer_tokens, runs, prompt_seed, decode_rows, decode_contexts, prefill_tokens, mixed_chunk_tokens, mixed_rows, mixed_contexts, min_sample_ms, samples, threads";

namespace {

ModelConfig read_model(const json& object, const std::string& path, ModelConfig c) {
  fields::require_object(object, path);
  fields::reject_unknown(object, path,
                         {"vocab", "d_model", "n_layers", "n_heads", "n_kv_heads", "d_ff", "max_seq", "seed"});
  // Broad type/range checks here; validate() then checks how the sizes fit together.
  const long long big = 1 << 20;
  c.vocab = static_cast<int>(fields::read_int(object, path, "vocab", c.vocab, 2, 65536));
  c.d_model = static_cast<int>(fields::read_int(object, path, "d_model", c.d_model, 4, 4096));
  c.n_layers = static_cast<int>(fields::read_int(object, path, "n_layers", c.n_layers, 1, 64));
  c.n_heads = static_cast<int>(fields::read_int(object, path, "n_heads", c.n_heads, 1, 128));
  c.n_kv_heads = static_cast<int>(fields::read_int(object, path, "n_kv_heads", c.n_kv_heads, 1, 128));
  c.d_ff = static_cast<int>(fields::read_int(object, path, "d_ff", c.d_ff, 1, 16384));
  c.max_seq = static_cast<int>(fields::read_int(object, path, "max_seq", c.max_seq, 2, 8192));
  c.seed = static_cast<uint64_t>(fields::read_int(object, path, "seed", static_cast<long long>(c.seed), 0, big * big));
  validate(c, path);
  return c;
}

}  // namespace

LargestMixedStep largest_mixed_step(const MeasureOptions& o) {
  if (!o.mixed_grid) return {};
  return {o.mixed_rows.back(), o.mixed_contexts.back(), o.mixed_chunk_tokens.back()};
}

int64_t measure_memory_bytes(const MeasureOptions& o) {
  const ModelConfig& c = o.model;
  const LargestMixedStep mixed = largest_mixed_step(o);
  const int64_t max_rows = std::max({o.decode_rows.back(), o.decode_contexts.back(), o.prefill_tokens.back(),
                                     o.prompt_tokens + o.answer_tokens, mixed.chunk_tokens + mixed.rows});
  const int64_t caches = std::max(o.decode_rows.back(), mixed.rows);
  const int64_t kv_positions = caches * c.max_seq + 2 * c.max_seq;
  // Model's Scratch per row: six of d_model, k and v, gate and up, logits, and the matmul's interleaved
  // inputs.
  const int64_t activation_floats =
      max_rows * (6 * int64_t{c.d_model} + 2 * c.kv_dim() + 2 * c.d_ff + c.vocab + widest_matrix_input(c));
  return model_size(c).weight_bytes + kv_positions * model_size(c).kv_bytes_per_token + activation_floats * 4;
}

MeasureOptions read_measure_options(const json& object, const std::string& path) {
  fields::require_object(object, path);
  fields::reject_unknown(object, path,
                         {"preset", "model", "weights", "kv", "prompt_tokens", "answer_tokens", "runs", "prompt_seed",
                          "decode_rows", "decode_contexts", "prefill_tokens", "mixed_chunk_tokens", "mixed_rows",
                          "mixed_contexts", "min_sample_ms", "samples", "threads"});
  MeasureOptions o;
  o.preset = fields::read_string(object, path, "preset", o.preset);
  o.model = find_preset(o.preset, fields::join(path, "preset")).config;
  if (object.contains("model")) o.model = read_model(object["model"], fields::join(path, "model"), o.model);
  o.model.weights =
      parse_number_format(fields::read_string(object, path, "weights", number_format_name(o.model.weights)),
                          model_weight_formats(), fields::join(path, "weights"));
  o.model.kv = parse_number_format(fields::read_string(object, path, "kv", number_format_name(o.model.kv)),
                                   model_kv_formats(), fields::join(path, "kv"));
  const int max_seq = o.model.max_seq;

  o.prompt_tokens = static_cast<int>(fields::read_int(object, path, "prompt_tokens", o.prompt_tokens, 1, max_seq - 1));
  o.answer_tokens = static_cast<int>(
      fields::read_int(object, path, "answer_tokens", o.answer_tokens, 1, max_seq - o.prompt_tokens + 1));
  o.runs = static_cast<int>(fields::read_int(object, path, "runs", o.runs, 1, kMaxRuns));
  o.prompt_seed = static_cast<uint64_t>(fields::read_int(object, path, "prompt_seed", 7, 0, 1LL << 53));
  o.decode_rows = fields::read_int_list(object, path, "decode_rows", o.decode_rows, 1, 256, 16, true);
  o.decode_contexts = fields::read_int_list(object, path, "decode_contexts", o.decode_contexts, 1, max_seq, 32, true);
  o.prefill_tokens = fields::read_int_list(object, path, "prefill_tokens", o.prefill_tokens, 1, max_seq, 32, true);
  o.mixed_chunk_tokens =
      fields::read_int_list(object, path, "mixed_chunk_tokens", o.mixed_chunk_tokens, 1, max_seq, 8, true);
  o.mixed_rows = fields::read_int_list(object, path, "mixed_rows", o.mixed_rows, 1, 256, 8, true);
  o.mixed_contexts = fields::read_int_list(object, path, "mixed_contexts", o.mixed_contexts, 1, max_seq, 8, true);
  o.timing.min_sample_ms = fields::read_number(object, path, "min_sample_ms", o.timing.min_sample_ms, 0.1, 1000);
  o.timing.samples = static_cast<int>(fields::read_int(object, path, "samples", o.timing.samples, 1, 101));
  o.threads = static_cast<int>(fields::read_int(object, path, "threads", o.threads, 1, max_threads()));

  // The defaults of the grids assume the default max_seq; a smaller model must say its own grids.
  for (const auto& [name, grid] :
       {std::pair<const char*, const std::vector<int>*>{"decode_contexts", &o.decode_contexts},
        {"prefill_tokens", &o.prefill_tokens},
        {"mixed_chunk_tokens", &o.mixed_chunk_tokens},
        {"mixed_contexts", &o.mixed_contexts}})
    if (grid->back() > max_seq)
      throw_range({fields::join(path, name), std::to_string(grid->back()), integers_from(1, max_seq)},
                  "must not exceed model.max_seq = " + std::to_string(max_seq));

  const int64_t bytes = measure_memory_bytes(o);
  if (bytes > kMaxMeasureBytes)
    throw_range({path, "", {}},
                "needs " + std::to_string(bytes >> 20) + " MiB for weights, KV caches and activations (at most " +
                    std::to_string(kMaxMeasureBytes >> 20) + " MiB): use a smaller model or fewer decode_rows");
  return o;
}

}  // namespace kvlab
