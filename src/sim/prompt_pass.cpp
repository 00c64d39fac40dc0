#include "sim/prompt_pass.h"

#include "common/json_fields.h"
#include "sim/grid_position.h"
#include "sim/required_fields.h"

namespace kvlab::sim {

namespace {

// ratio[i][j] at (x, y) on the grids xs and ys: linear in each, held at the ends.
double held_bilinear(const std::vector<double>& xs, double x, const std::vector<double>& ys, double y,
                     const std::vector<std::vector<double>>& ratio) {
  const GridPosition at_x = GridPosition::locate_held(xs, x);
  const GridPosition at_y = GridPosition::locate_held(ys, y);
  return at_x.interpolate([&](size_t i) { return at_y.interpolate([&](size_t j) { return ratio[i][j]; }); });
}

// A list of `rows` lists of one ratio per `tokens_path` entry.
std::vector<std::vector<double>> require_ratios(const nlohmann::json& part, const std::string& path, const char* name,
                                                size_t rows, const std::string& rows_reason, size_t tokens,
                                                const std::string& tokens_path) {
  const std::string ratios_path = fields::join(path, name);
  const nlohmann::json& ratios = require_field(part, path, name);
  require_list_of(ratios, ratios_path, rows, rows_reason);
  std::vector<std::vector<double>> read;
  for (size_t i = 0; i < rows; ++i)
    read.push_back(require_number_list(ratios[i], ratios_path + "[" + std::to_string(i) + "]", tokens,
                                       PromptPassTable::kMinRatio, PromptPassTable::kMaxRatio,
                                       "one per " + tokens_path + " entry"));
  return read;
}

}  // namespace

PromptPassTable::PromptPassTable(std::vector<double> tokens, std::vector<double> decode_rows,
                                 std::vector<std::vector<double>> after_decode,
                                 std::vector<std::vector<double>> after_prompt)
    : tokens_(std::move(tokens)),
      decode_rows_(std::move(decode_rows)),
      after_decode_(std::move(after_decode)),
      after_prompt_(std::move(after_prompt)) {}

PromptPassTable PromptPassTable::from_json(const nlohmann::json& part, const std::string& path) {
  fields::require_object(part, path);
  fields::reject_unknown(part, path,
                         {"tokens", "decode_rows", "after_decode", "after_prompt", "rounds"});  // "rounds": not read
  const std::vector<int> tokens = require_int_list(part, path, "tokens", 1, kMaxGridTokens, kMaxPartPoints, true);
  const std::vector<int> rows = require_int_list(part, path, "decode_rows", 1, kMaxGridTokens, kMaxPartPoints, true);
  const std::string tokens_path = fields::join(path, "tokens");
  return PromptPassTable(
      {tokens.begin(), tokens.end()}, {rows.begin(), rows.end()},
      require_ratios(part, path, "after_decode", rows.size(), "one per " + fields::join(path, "decode_rows") + " entry",
                     tokens.size(), tokens_path),
      require_ratios(part, path, "after_prompt", tokens.size(), "one per " + tokens_path + " entry", tokens.size(),
                     tokens_path));
}

nlohmann::json PromptPassTable::to_json() const {
  const std::vector<long long> tokens(tokens_.begin(), tokens_.end()), rows(decode_rows_.begin(), decode_rows_.end());
  return {{"tokens", tokens}, {"decode_rows", rows}, {"after_decode", after_decode_}, {"after_prompt", after_prompt_}};
}

double PromptPassTable::after_decode(double decode_rows, double tokens) const {
  return empty() ? 1 : held_bilinear(decode_rows_, decode_rows, tokens_, tokens, after_decode_);
}

double PromptPassTable::after_prompt(double tokens_before, double tokens) const {
  return empty() ? 1 : held_bilinear(tokens_, tokens_before, tokens_, tokens, after_prompt_);
}

}  // namespace kvlab::sim
