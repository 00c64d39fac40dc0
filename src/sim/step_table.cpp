#include "sim/step_table.h"

#include <algorithm>

#include "common/json_fields.h"
#include "sim/required_fields.h"

namespace kvlab::sim {

namespace {

// Grids measure batches and sequences of at most these sizes, with at most this many points each;
// step times are finite, non-negative milliseconds below a sanity bound.
constexpr long long kMaxGridRows = 65536;
constexpr long long kMaxGridTokens = 10'000'000;
constexpr size_t kMaxGridPoints = 1000;
constexpr double kMaxStepMs = 1e12;

std::vector<double> as_doubles(const std::vector<int>& values) { return {values.begin(), values.end()}; }

}  // namespace

StepTable StepTable::from_json(const nlohmann::json& steps, const std::string& path) {
  fields::require_object(steps, path);
  StepTable table;

  // The top level also carries a free-form "model" description (and whatever measure adds): not read.
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
    auto row = require_number_list(decode_ms[i], ms_path + "[" + std::to_string(i) + "]",
                                   table.decode_contexts_.size(), 0, kMaxStepMs,
                                   "one per " + decode_path + ".contexts entry");
    table.decode_ms_.insert(table.decode_ms_.end(), row.begin(), row.end());
  }

  std::string prefill_path = fields::join(path, "prefill");
  const auto& prefill = require_object_field(steps, path, "prefill");
  fields::reject_unknown(prefill, prefill_path, {"tokens", "ms"});
  table.prefill_tokens_ =
      as_doubles(require_int_list(prefill, prefill_path, "tokens", 1, kMaxGridTokens, kMaxGridPoints, true));
  table.prefill_ms_ = require_number_list(require_field(prefill, prefill_path, "ms"), fields::join(prefill_path, "ms"),
                                          table.prefill_tokens_.size(), 0, kMaxStepMs,
                                          "one per " + prefill_path + ".tokens entry");
  return table;
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

}  // namespace kvlab::sim
