#include "measure/measure_options.h"

#include <algorithm>
#include <utility>

#include "common/input_error.h"
#include "common/json_fields.h"
#include "common/text_format.h"
#include "common/utf8.h"
#include "measure/measure_pass_history.h"
#include "model/thread_pool.h"
#include "model/weights.h"
#include "model_files/story_openings.h"

namespace kvlab {

using nlohmann::json;

const char* const kMeasureOptionFields =
    "preset, model {vocab, d_model, n_layers, n_heads, n_kv_heads, d_ff, max_seq, seed}, weights, kv, prompt_tokens, "
    "prompt_text, answer_tokens, runs, prompt_seed, decode_rows, decode_contexts, prefill_tokens, mixed_chunk_tokens, mixed_rows, mixed_contexts, min_sample_ms, samples, threads, thread_check";

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

int64_t held_weight_bytes(const MeasureOptions& o) {
  return o.file.model ? weight_storage(o.file.model->weights()).bytes : model_size(o.model).weight_bytes;
}

int64_t measure_memory_bytes(const MeasureOptions& o) {
  const ModelConfig& c = o.model;
  const LargestMixedStep mixed = largest_mixed_step(o);
  const int64_t max_rows = std::max({o.decode_rows.back(), o.decode_contexts.back(), o.prefill_tokens.back(),
                                     o.prompt_tokens + o.answer_tokens, mixed.chunk_tokens + mixed.rows});
  // The caches as measure_steps, measure_answer and the pass history size them: each decode row's for the
  // longest context timed, and two of the longest prefill or answer (not of max_seq: a file's model may
  // have 8,192 positions, of which the lab uses a few hundred).
  const int64_t caches = std::max(o.decode_rows.back(), mixed.rows);
  const int64_t longest_context = std::max(o.decode_contexts.back(), mixed.context);
  const int64_t longest_fill = std::max({o.prefill_tokens.back(), mixed.chunk_tokens, o.prompt_tokens + o.answer_tokens,
                                         std::min(c.max_seq, kLongestPassPrefill)});
  const int64_t kv_positions = caches * longest_context + 2 * longest_fill;
  // Model's Scratch per row: six of d_model, k and v, gate and up, logits, and the matmul's interleaved
  // inputs.
  const int64_t activation_floats =
      max_rows * (6 * int64_t{c.d_model} + 2 * c.kv_dim() + 2 * c.d_ff + c.vocab + widest_matrix_input(c));
  return held_weight_bytes(o) + kv_positions * model_size(c).kv_bytes_per_token + activation_floats * 4;
}

namespace {

// The model a measurement runs: a preset (options.preset, options.model) or the caller's file model,
// whose sizes and formats are fixed, so the fields that would set them are refused.
void read_model_choice(const json& object, const std::string& path, const FileModelRef& file, MeasureOptions& o) {
  if (!file.model) {
    o.preset = fields::read_string(object, path, "preset", o.preset);
    o.model = find_preset(o.preset, fields::join(path, "preset")).config;
    if (object.contains("model")) o.model = read_model(object["model"], fields::join(path, "model"), o.model);
  } else {
    for (const char* field : {"preset", "model"}) {
      if (!object.contains(field)) continue;
      // A size is named by its own path (options.model.d_model), which a command line maps to its flag.
      const json& value = object[field];
      const std::string named =
          value.is_object() && !value.empty() ? std::string(field) + "." + value.begin().key() : std::string(field);
      throw_range({fields::join(path, named), "", {}},
                  std::string("is not taken with a model read from files (") + file.name +
                      "): its sizes are the file's; give a preset or a model file, not both");
    }
    o.file = file;
    o.model = file.model->config();
  }
  const std::pair<const char*, NumberFormat*> formats[] = {{"weights", &o.model.weights}, {"kv", &o.model.kv}};
  for (const auto& [field, format] : formats) {
    const std::string field_path = fields::join(path, field);
    const NumberFormat given =
        parse_number_format(fields::read_string(object, path, field, number_format_name(*format)),
                            field == std::string("weights") ? model_weight_formats() : model_kv_formats(), field_path);
    if (file.model && given != *format)
      throw_range({field_path, number_format_name(given), one_of({number_format_name(*format)})},
                  std::string("must be ") + number_format_name(*format) + ", the format " + file.name +
                      " was loaded with (the model's loading sets it)");
    *format = given;
  }
}

// Part A's prompt: on a model with a tokenizer, text (options.prompt_text, or a story opening picked by
// prompt_seed) encoded; otherwise prompt_tokens ids, drawn later from prompt_seed.
void read_prompt(const json& object, const std::string& path, MeasureOptions& o) {
  const int max_seq = o.model.max_seq;
  const Tokenizer* tokenizer = o.file.tokenizer;
  if (!tokenizer) {
    if (object.contains("prompt_text"))
      throw_range({fields::join(path, "prompt_text"), "", {}},
                  "needs a model with a tokenizer (a model read from files); a preset's prompt is prompt_tokens ids");
    o.prompt_tokens =
        static_cast<int>(fields::read_int(object, path, "prompt_tokens", o.prompt_tokens, 1, max_seq - 1));
    return;
  }
  if (object.contains("prompt_tokens"))
    throw_range({fields::join(path, "prompt_tokens"), "", {}},
                "is not taken with a model that has a tokenizer: the prompt is text (prompt_text), and its tokens "
                "are what the text encodes to");
  const std::string field = fields::join(path, "prompt_text");
  o.prompt_text = fields::read_string(object, path, "prompt_text", story_opening_for_seed(o.prompt_seed));
  if (!is_valid_utf8(o.prompt_text)) throw_range({field, "", {}}, "must be UTF-8 text");
  o.prompt = tokenizer->encode(o.prompt_text, field);
  o.prompt_tokens = static_cast<int>(o.prompt.size());
  if (o.prompt_tokens > max_seq - 1)
    throw_range({field, "", {}}, "is " + std::to_string(o.prompt_tokens) + " tokens; the model holds " +
                                     std::to_string(max_seq) + " positions, at least one of them the answer's");
}

// Refuses a grid whose timing would last past kMaxGridSampleMs, naming samples (with the most that fit)
// or, when even one sample is too many, min_sample_ms.
void check_grid_time(const MeasureOptions& o, const std::string& path) {
  const double sample_ms = grid_sample_ms(o);
  if (sample_ms <= kMaxGridSampleMs) return;
  const double cells = static_cast<double>(grid_cells(o));
  const std::string why = format(
      "the grid's %s cells, each calibrated and then sampled %d times for at least %g ms a sample, would take at "
      "least %s s (at most %s s)",
      grouped(static_cast<unsigned long long>(cells)).c_str(), o.timing.samples, o.timing.min_sample_ms,
      grouped(static_cast<unsigned long long>(sample_ms / 1000)).c_str(),
      grouped(static_cast<unsigned long long>(kMaxGridSampleMs / 1000)).c_str());
  const auto most_samples =
      static_cast<long long>(kMaxGridSampleMs / (cells * o.timing.min_sample_ms) - kCalibrationSamples);
  if (most_samples >= 1)
    throw_range({fields::join(path, "samples"), std::to_string(o.timing.samples), integers_from(1, most_samples)},
                "must be from 1 to " + std::to_string(most_samples) + " with these grids: " + why +
                    "; take fewer samples, shorter samples or fewer grid values");
  const double longest_ms = kMaxGridSampleMs / (cells * (o.timing.samples + kCalibrationSamples));
  throw_range({fields::join(path, "min_sample_ms"), format("%g", o.timing.min_sample_ms),
               numbers_from(kMinSampleMs, longest_ms)},
              format("must be at most %g with these grids: ", longest_ms) + why +
                  "; take shorter samples or fewer grid values");
}

}  // namespace

size_t grid_cells(const MeasureOptions& o) {
  return o.decode_rows.size() * o.decode_contexts.size() + o.prefill_tokens.size() +
         (o.mixed_grid ? o.mixed_chunk_tokens.size() * o.mixed_rows.size() * o.mixed_contexts.size() : 0);
}

double grid_sample_ms(const MeasureOptions& o) {
  return static_cast<double>(grid_cells(o)) * (o.timing.samples + kCalibrationSamples) * o.timing.min_sample_ms;
}

MeasureOptions read_measure_options(const json& object, const std::string& path, const FileModelRef& file) {
  fields::require_object(object, path);
  fields::reject_unknown(object, path,
                         {"preset", "model", "weights", "kv", "prompt_tokens", "prompt_text", "answer_tokens", "runs",
                          "prompt_seed", "decode_rows", "decode_contexts", "prefill_tokens", "mixed_chunk_tokens",
                          "mixed_rows", "mixed_contexts", "min_sample_ms", "samples", "threads", "thread_check"});
  MeasureOptions o;
  read_model_choice(object, path, file, o);
  const int max_seq = o.model.max_seq;

  o.prompt_seed = static_cast<uint64_t>(fields::read_int(object, path, "prompt_seed", 7, 0, 1LL << 53));
  read_prompt(object, path, o);
  o.answer_tokens = static_cast<int>(
      fields::read_int(object, path, "answer_tokens", o.answer_tokens, 1, max_seq - o.prompt_tokens + 1));
  o.runs = static_cast<int>(fields::read_int(object, path, "runs", o.runs, 1, kMaxRuns));
  o.decode_rows = fields::read_int_list(object, path, "decode_rows", o.decode_rows, 1, 256, 16, true);
  o.decode_contexts = fields::read_int_list(object, path, "decode_contexts", o.decode_contexts, 1, max_seq, 32, true);
  o.prefill_tokens = fields::read_int_list(object, path, "prefill_tokens", o.prefill_tokens, 1, max_seq, 32, true);
  o.mixed_chunk_tokens =
      fields::read_int_list(object, path, "mixed_chunk_tokens", o.mixed_chunk_tokens, 1, max_seq, 8, true);
  o.mixed_rows = fields::read_int_list(object, path, "mixed_rows", o.mixed_rows, 1, 256, 8, true);
  o.mixed_contexts = fields::read_int_list(object, path, "mixed_contexts", o.mixed_contexts, 1, max_seq, 8, true);
  o.timing.min_sample_ms =
      fields::read_number(object, path, "min_sample_ms", o.timing.min_sample_ms, kMinSampleMs, 1000);
  o.timing.samples = static_cast<int>(fields::read_int(object, path, "samples", o.timing.samples, 1, 101));
  o.threads = static_cast<int>(fields::read_int(object, path, "threads", o.threads, 1, max_threads()));
  o.thread_check = fields::read_bool(object, path, "thread_check", o.thread_check);

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
  check_grid_time(o, path);
  return o;
}

}  // namespace kvlab
