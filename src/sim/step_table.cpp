#include "sim/step_table.h"

#include <algorithm>
#include <functional>
#include <stdexcept>

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

// A time a step table may hold: 0 (too short to time) or a clock's measurable range.
bool is_step_ms(double ms) { return ms == 0 || (ms >= kMinStepMs && ms <= kMaxStepMs); }

std::string entry_path(const std::string& path, size_t i) { return path + "[" + std::to_string(i) + "]"; }

// A list of `count` step times (ms) at `path`.
std::vector<double> require_step_ms(const nlohmann::json& value, const std::string& path, size_t count,
                                    const std::string& count_reason) {
  std::vector<double> ms = require_number_list(value, path, count, 0, kMaxStepMs, count_reason);
  for (size_t i = 0; i < ms.size(); ++i) {
    if (!is_step_ms(ms[i])) {
      const std::string given = echo_value(value[i]);
      throw_range({entry_path(path, i), given, numbers_from(kMinStepMs, kMaxStepMs)},
                  "must be 0 or a number from 1e-06 to 1e+12 (got " + given +
                      "): a step time shorter than a nanosecond is shorter than any clock measures");
    }
  }
  return ms;
}

// The shapes and times a table made in this program must have (a JSON table gets the same checks with
// messages naming its fields, in from_json).
void check_made_grids(const StepGrids& g) {
  auto increasing = [](const std::vector<int>& points) {
    return !points.empty() && std::is_sorted(points.begin(), points.end(), std::less_equal<>()) && points.front() >= 1;
  };
  auto times = [](const std::vector<double>& ms, size_t cells) {
    return ms.size() == cells && std::all_of(ms.begin(), ms.end(), is_step_ms);
  };
  const bool mixed = !g.mixed_chunk_tokens.empty();
  if (!increasing(g.decode_rows) || !increasing(g.decode_contexts) || !increasing(g.prefill_tokens) ||
      !times(g.decode_ms, g.decode_rows.size() * g.decode_contexts.size()) ||
      !times(g.prefill_ms, g.prefill_tokens.size()) ||
      (mixed && (!increasing(g.mixed_chunk_tokens) || !increasing(g.mixed_rows) || !increasing(g.mixed_contexts) ||
                 !times(g.mixed_ms, g.mixed_chunk_tokens.size() * g.mixed_rows.size() * g.mixed_contexts.size()))))
    throw std::logic_error("a step table made in this program has a grid out of shape or a time out of range");
}

// ms[i0][i1]... over `shape` (outermost first), from the row-major `ms` starting at `cell`.
nlohmann::json nested_ms(const std::vector<double>& ms, size_t& cell, const std::vector<size_t>& shape,
                         size_t level = 0) {
  if (level == shape.size()) return ms[cell++];
  nlohmann::json list = nlohmann::json::array();
  for (size_t i = 0; i < shape[level]; ++i) list.push_back(nested_ms(ms, cell, shape, level + 1));
  return list;
}

nlohmann::json nested_ms(const std::vector<double>& ms, const std::vector<size_t>& shape) {
  size_t cell = 0;
  return nested_ms(ms, cell, shape);
}

// a and b: the times of one grid in two tables (mean() has checked that the grids are the same).
std::vector<double> cell_means(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> mean(a.size());
  for (size_t i = 0; i < a.size(); ++i) mean[i] = 0.5 * (a[i] + b[i]);
  return mean;
}

}  // namespace

StepTable::StepTable(StepGrids grids, nlohmann::json model) : grids_(std::move(grids)) {
  check_made_grids(grids_);
  if (!model.is_null()) read_model({{"model", std::move(model)}}, "steps");
}

StepTable StepTable::from_json(const nlohmann::json& steps, const std::string& path) {
  fields::require_object(steps, path);
  StepTable table;
  // The top level also carries a free-form "model" description (and whatever measure adds): not read,
  // but for the facts the simulator may need of it.
  table.read_model(steps, path);
  table.grids_ = read_grids(steps, path);
  if (steps.contains("after_prompt"))
    table.after_prompt_ = AfterPromptTable::from_json(steps["after_prompt"], fields::join(path, "after_prompt"));
  if (steps.contains("prompt_pass"))
    table.prompt_pass_ = PromptPassTable::from_json(steps["prompt_pass"], fields::join(path, "prompt_pass"));
  return table;
}

StepGrids StepTable::read_grids(const nlohmann::json& steps, const std::string& path) {
  StepGrids g;
  std::string decode_path = fields::join(path, "decode");
  const auto& decode = require_object_field(steps, path, "decode");
  fields::reject_unknown(decode, decode_path, {"rows", "contexts", "ms"});
  g.decode_rows = require_int_list(decode, decode_path, "rows", 1, kMaxGridRows, kMaxGridPoints, true);
  g.decode_contexts = require_int_list(decode, decode_path, "contexts", 1, kMaxGridTokens, kMaxGridPoints, true);
  std::string ms_path = fields::join(decode_path, "ms");
  const auto& decode_ms = require_field(decode, decode_path, "ms");
  require_list_of(decode_ms, ms_path, g.decode_rows.size(), "one per " + decode_path + ".rows entry");
  for (size_t i = 0; i < decode_ms.size(); ++i) {
    auto row = require_step_ms(decode_ms[i], entry_path(ms_path, i), g.decode_contexts.size(),
                               "one per " + decode_path + ".contexts entry");
    g.decode_ms.insert(g.decode_ms.end(), row.begin(), row.end());
  }

  std::string prefill_path = fields::join(path, "prefill");
  const auto& prefill = require_object_field(steps, path, "prefill");
  fields::reject_unknown(prefill, prefill_path, {"tokens", "ms"});
  g.prefill_tokens = require_int_list(prefill, prefill_path, "tokens", 1, kMaxGridTokens, kMaxGridPoints, true);
  g.prefill_ms = require_step_ms(require_field(prefill, prefill_path, "ms"), fields::join(prefill_path, "ms"),
                                 g.prefill_tokens.size(), "one per " + prefill_path + ".tokens entry");

  if (!steps.contains("mixed")) return g;
  const std::string mixed_path = fields::join(path, "mixed");
  const auto& mixed = steps["mixed"];
  fields::require_object(mixed, mixed_path);
  fields::reject_unknown(mixed, mixed_path, {"chunk_tokens", "rows", "contexts", "ms"});
  std::vector<int> chunk_tokens =
      require_int_list(mixed, mixed_path, "chunk_tokens", 1, kMaxGridTokens, kMaxGridPoints, true);
  g.mixed_rows = require_int_list(mixed, mixed_path, "rows", 1, kMaxGridRows, kMaxGridPoints, true);
  g.mixed_contexts = require_int_list(mixed, mixed_path, "contexts", 1, kMaxGridTokens, kMaxGridPoints, true);
  // ms[k][i][j] for chunk_tokens[k], rows[i], contexts[j].
  const std::string mixed_ms_path = fields::join(mixed_path, "ms");
  const auto& ms = require_field(mixed, mixed_path, "ms");
  require_list_of(ms, mixed_ms_path, chunk_tokens.size(), "one per " + mixed_path + ".chunk_tokens entry");
  for (size_t k = 0; k < ms.size(); ++k) {
    const std::string chunk_path = entry_path(mixed_ms_path, k);
    require_list_of(ms[k], chunk_path, g.mixed_rows.size(), "one per " + mixed_path + ".rows entry");
    for (size_t i = 0; i < ms[k].size(); ++i) {
      auto row = require_step_ms(ms[k][i], entry_path(chunk_path, i), g.mixed_contexts.size(),
                                 "one per " + mixed_path + ".contexts entry");
      g.mixed_ms.insert(g.mixed_ms.end(), row.begin(), row.end());
    }
  }
  g.mixed_chunk_tokens = std::move(chunk_tokens);  // last: has_mixed() only for a grid read whole
  return g;
}

nlohmann::json StepTable::to_json() const {
  const StepGrids& g = grids_;
  nlohmann::json steps = {{"decode",
                           {{"rows", g.decode_rows},
                            {"contexts", g.decode_contexts},
                            {"ms", nested_ms(g.decode_ms, {g.decode_rows.size(), g.decode_contexts.size()})}}},
                          {"prefill", {{"tokens", g.prefill_tokens}, {"ms", g.prefill_ms}}}};
  if (!model_.is_null()) steps["model"] = model_;
  if (has_mixed())
    steps["mixed"] = {
        {"chunk_tokens", g.mixed_chunk_tokens},
        {"rows", g.mixed_rows},
        {"contexts", g.mixed_contexts},
        {"ms", nested_ms(g.mixed_ms, {g.mixed_chunk_tokens.size(), g.mixed_rows.size(), g.mixed_contexts.size()})}};
  if (!after_prompt_.empty()) steps["after_prompt"] = after_prompt_.to_json();
  if (!prompt_pass_.empty()) steps["prompt_pass"] = prompt_pass_.to_json();
  return steps;
}

StepTable StepTable::mean(const StepTable& before, const StepTable& after) {
  const StepGrids& a = before.grids_;
  const StepGrids& b = after.grids_;
  if (a.decode_rows != b.decode_rows || a.decode_contexts != b.decode_contexts ||
      a.prefill_tokens != b.prefill_tokens || a.mixed_chunk_tokens != b.mixed_chunk_tokens ||
      a.mixed_rows != b.mixed_rows || a.mixed_contexts != b.mixed_contexts)
    throw std::logic_error("the mean of two step tables of different grids");
  StepTable table = before;
  table.grids_.decode_ms = cell_means(a.decode_ms, b.decode_ms);
  table.grids_.prefill_ms = cell_means(a.prefill_ms, b.prefill_ms);
  table.grids_.mixed_ms = cell_means(a.mixed_ms, b.mixed_ms);
  return table;
}

StepTable StepTable::with_history(AfterPromptTable after_prompt, PromptPassTable prompt_pass) const {
  StepTable table = *this;
  table.after_prompt_ = std::move(after_prompt);
  table.prompt_pass_ = std::move(prompt_pass);
  return table;
}

void StepTable::read_model(const nlohmann::json& steps, const std::string& path) {
  const auto model = steps.find("model");
  if (model == steps.end()) return;
  model_ = *model;
  if (!model->is_object()) return;
  if (model->contains("kv_bytes_per_token")) {
    try {
      kv_bytes_per_token_ = fields::as_number((*model)["kv_bytes_per_token"],
                                              fields::join(path, "model.kv_bytes_per_token"), 1, kMaxKvBytes);
    } catch (const InputError& error) {
      kv_bytes_per_token_error_ = error;
    }
  }
  if (model->contains("max_seq"))
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

double StepTable::prefill_ms(double tokens) const {
  return GridPosition::locate(grids_.prefill_tokens, tokens).interpolate([&](size_t k) {
    return grids_.prefill_ms[k];
  });
}

double StepTable::prefill_span_ms(int from_tokens, int to_tokens) const {
  return std::max(0.0, prefill_ms(to_tokens) - prefill_ms(from_tokens));
}

double StepTable::decode_at(const GridPosition& row_position, double context) const {
  GridPosition context_position = GridPosition::locate(grids_.decode_contexts, context);
  size_t contexts = grids_.decode_contexts.size();
  return row_position.interpolate([&](size_t row) {
    const double* row_ms = &grids_.decode_ms[row * contexts];
    return context_position.interpolate([&](size_t j) { return row_ms[j]; });
  });
}

double StepTable::mixed_at(const GridPosition& chunk_position, const GridPosition& row_position, double context) const {
  GridPosition context_position = GridPosition::locate(grids_.mixed_contexts, context);
  const size_t rows = grids_.mixed_rows.size(), contexts = grids_.mixed_contexts.size();
  return chunk_position.interpolate([&](size_t k) {
    return row_position.interpolate([&](size_t i) {
      const double* row_ms = &grids_.mixed_ms[(k * rows + i) * contexts];
      return context_position.interpolate([&](size_t j) { return row_ms[j]; });
    });
  });
}

}  // namespace kvlab::sim
