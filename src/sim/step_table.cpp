#include "sim/step_table.h"

#include <algorithm>

#include "common/json_fields.h"
#include "sim/required_fields.h"

namespace kvlab::sim {

namespace {

// Grids measure batches and sequences of at most these sizes, with at most this many points each;
// step times are finite milliseconds below a sanity bound, and 0 (too short to time) or at least a
// nanosecond: a positive time shorter than any clock measures (5e-324 ms) would price the queue in
// denormal seconds, its throughput infinite.
constexpr long long kMaxGridRows = 65536;
constexpr size_t kMaxGridPoints = 1000;
constexpr double kMinStepMs = 1e-6;
constexpr double kMaxStepMs = 1e12;

std::vector<double> as_doubles(const std::vector<int>& values) { return {values.begin(), values.end()}; }

std::string entry_path(const std::string& path, size_t i) { return path + "[" + std::to_string(i) + "]"; }

// A list of `count` step times (ms) at `path`.
std::vector<double> require_step_ms(const nlohmann::json& value, const std::string& path, size_t count,
                                    const std::string& count_reason) {
  std::vector<double> ms = require_number_list(value, path, count, 0, kMaxStepMs, count_reason);
  for (size_t i = 0; i < ms.size(); ++i) {
    if (ms[i] > 0 && ms[i] < kMinStepMs) {
      const std::string given = echo_value(value[i]);
      throw_range({entry_path(path, i), given, numbers_from(kMinStepMs, kMaxStepMs)},
                  "must be 0 or a number from 1e-06 to 1e+12 (got " + given +
                      "): a step time shorter than a nanosecond is shorter than any clock measures");
    }
  }
  return ms;
}

}  // namespace

StepTable StepTable::from_json(const nlohmann::json& steps, const std::string& path) {
  fields::require_object(steps, path);
  StepTable table;

  // The top level also carries a free-form "model" description (and whatever measure adds): not read,
  // but for the facts the simulator may need of it.
  table.read_kv_bytes_per_token(steps, path);
  table.read_max_seq(steps, path);
  std::string decode_path = fields::join(path, "decode");
  const auto& decode = require_object_field(steps, path, "decode");
  fields::reject_unknown(decode, decode_path, {"rows", "contexts", "ms"});
  table.decode_rows_ = as_doubles(require_int_list(decode, decode_path, "rows", 1, kMaxGridRows, kMaxGridPoints, true));
  table.decode_contexts_ =
      as_doubles(require_int_list(decode, decode_path, "contexts", 1, kMaxGridTokens, kMaxGridPoints, true));
  std::string ms_path = fields::join(decode_path, "ms");
  const auto& decode_ms = require_field(decode, decode_path, "ms");
  require_list_of(decode_ms, ms_path, table.decode_rows_.size(), "one per " + decode_path + ".rows entry");
  for (size_t i = 0; i < decode_ms.size(); ++i) {
    auto row = require_step_ms(decode_ms[i], entry_path(ms_path, i), table.decode_contexts_.size(),
                               "one per " + decode_path + ".contexts entry");
    table.decode_ms_.insert(table.decode_ms_.end(), row.begin(), row.end());
  }

  std::string prefill_path = fields::join(path, "prefill");
  const auto& prefill = require_object_field(steps, path, "prefill");
  fields::reject_unknown(prefill, prefill_path, {"tokens", "ms"});
  table.prefill_tokens_ =
      as_doubles(require_int_list(prefill, prefill_path, "tokens", 1, kMaxGridTokens, kMaxGridPoints, true));
  table.prefill_ms_ = require_step_ms(require_field(prefill, prefill_path, "ms"), fields::join(prefill_path, "ms"),
                                      table.prefill_tokens_.size(), "one per " + prefill_path + ".tokens entry");

  if (steps.contains("mixed")) table.read_mixed(steps["mixed"], fields::join(path, "mixed"));
  if (steps.contains("after_prompt"))
    table.after_prompt_ = AfterPromptTable::from_json(steps["after_prompt"], fields::join(path, "after_prompt"));
  if (steps.contains("prompt_pass"))
    table.prompt_pass_ = PromptPassTable::from_json(steps["prompt_pass"], fields::join(path, "prompt_pass"));
  return table;
}

void StepTable::read_kv_bytes_per_token(const nlohmann::json& steps, const std::string& path) {
  const auto model = steps.find("model");
  if (model == steps.end() || !model->is_object() || !model->contains("kv_bytes_per_token")) return;
  try {
    kv_bytes_per_token_ = fields::as_number((*model)["kv_bytes_per_token"],
                                            fields::join(path, "model.kv_bytes_per_token"), 1, kMaxKvBytes);
  } catch (const InputError& error) {
    kv_bytes_per_token_error_ = error;
  }
}

void StepTable::read_max_seq(const nlohmann::json& steps, const std::string& path) {
  const auto model = steps.find("model");
  if (model == steps.end() || !model->is_object() || !model->contains("max_seq")) return;
  max_seq_ =
      static_cast<int>(fields::as_int((*model)["max_seq"], fields::join(path, "model.max_seq"), 2, kMaxTableMaxSeq));
}

std::optional<double> StepTable::kv_bytes_per_token() const {
  if (kv_bytes_per_token_error_) throw *kv_bytes_per_token_error_;
  return kv_bytes_per_token_;
}

StepTable StepTable::without_after_prompt() const {
  StepTable table = *this;
  table.after_prompt_ = {};
  return table;
}

StepTable StepTable::without_prompt_pass() const {
  StepTable table = *this;
  table.prompt_pass_ = {};
  return table;
}

void StepTable::read_mixed(const nlohmann::json& mixed, const std::string& path) {
  fields::require_object(mixed, path);
  fields::reject_unknown(mixed, path, {"chunk_tokens", "rows", "contexts", "ms"});
  std::vector<double> chunk_tokens =
      as_doubles(require_int_list(mixed, path, "chunk_tokens", 1, kMaxGridTokens, kMaxGridPoints, true));
  mixed_rows_ = as_doubles(require_int_list(mixed, path, "rows", 1, kMaxGridRows, kMaxGridPoints, true));
  mixed_contexts_ = as_doubles(require_int_list(mixed, path, "contexts", 1, kMaxGridTokens, kMaxGridPoints, true));
  // ms[k][i][j] for chunk_tokens[k], rows[i], contexts[j].
  const std::string ms_path = fields::join(path, "ms");
  const auto& ms = require_field(mixed, path, "ms");
  require_list_of(ms, ms_path, chunk_tokens.size(), "one per " + path + ".chunk_tokens entry");
  for (size_t k = 0; k < ms.size(); ++k) {
    const std::string chunk_path = entry_path(ms_path, k);
    require_list_of(ms[k], chunk_path, mixed_rows_.size(), "one per " + path + ".rows entry");
    for (size_t i = 0; i < ms[k].size(); ++i) {
      auto row = require_step_ms(ms[k][i], entry_path(chunk_path, i), mixed_contexts_.size(),
                                 "one per " + path + ".contexts entry");
      mixed_ms_.insert(mixed_ms_.end(), row.begin(), row.end());
    }
  }
  mixed_chunk_tokens_ = std::move(chunk_tokens);  // last: has_mixed() only for a grid read whole
}

double StepTable::prefill_ms(double tokens) const {
  return GridPosition::locate(prefill_tokens_, tokens).interpolate([&](size_t k) { return prefill_ms_[k]; });
}

double StepTable::prefill_span_ms(int from_tokens, int to_tokens) const {
  return std::max(0.0, prefill_ms(to_tokens) - prefill_ms(from_tokens));
}

double StepTable::decode_at(const GridPosition& row_position, double context) const {
  GridPosition context_position = GridPosition::locate(decode_contexts_, context);
  size_t contexts = decode_contexts_.size();
  return row_position.interpolate([&](size_t row) {
    const double* row_ms = &decode_ms_[row * contexts];
    return context_position.interpolate([&](size_t j) { return row_ms[j]; });
  });
}

double StepTable::mixed_at(const GridPosition& chunk_position, const GridPosition& row_position, double context) const {
  GridPosition context_position = GridPosition::locate(mixed_contexts_, context);
  const size_t rows = mixed_rows_.size(), contexts = mixed_contexts_.size();
  return chunk_position.interpolate([&](size_t k) {
    return row_position.interpolate([&](size_t i) {
      const double* row_ms = &mixed_ms_[(k * rows + i) * contexts];
      return context_position.interpolate([&](size_t j) { return row_ms[j]; });
    });
  });
}

}  // namespace kvlab::sim
