#include "sim/after_prompt.h"

#include <algorithm>

#include "common/json_fields.h"
#include "sim/grid_position.h"
#include "sim/required_fields.h"

namespace kvlab::sim {

namespace {

// A prompt pass's rows, at most (its points: kMaxPartPoints).
constexpr long long kMaxPromptRows = 10'000'000;

}  // namespace

AfterPromptTable::AfterPromptTable(std::vector<double> prompt_rows, std::vector<std::vector<double>> ratio)
    : prompt_rows_(std::move(prompt_rows)), ratio_(std::move(ratio)) {}

AfterPromptTable AfterPromptTable::from_json(const nlohmann::json& part, const std::string& path) {
  fields::require_object(part, path);
  fields::reject_unknown(part, path, {"prompt_rows", "ratio", "rounds"});  // "rounds": how it was measured, not read
  std::vector<int> rows = require_int_list(part, path, "prompt_rows", 1, kMaxPromptRows, kMaxPartPoints, true);
  const std::string ratio_path = fields::join(path, "ratio");
  const auto& ratio = require_field(part, path, "ratio");
  require_list_of(ratio, ratio_path, rows.size(), "one per " + fields::join(path, "prompt_rows") + " entry");
  std::vector<std::vector<double>> ratios;
  for (size_t i = 0; i < ratio.size(); ++i) {
    const std::string entry = ratio_path + "[" + std::to_string(i) + "]";
    const size_t passes = ratio[i].is_array() ? ratio[i].size() : 0;
    const size_t expected = i == 0 ? std::clamp<size_t>(passes, 1, kMaxPartPoints) : ratios[0].size();
    ratios.push_back(
        require_number_list(ratio[i], entry, expected, kMinRatio, kMaxRatio,
                            i == 0 ? "one per pass after a prompt pass, 1 to " + std::to_string(kMaxPartPoints)
                                   : "as many as " + ratio_path + "[0]"));
  }
  return AfterPromptTable({rows.begin(), rows.end()}, std::move(ratios));
}

nlohmann::json AfterPromptTable::to_json() const {
  std::vector<long long> rows(prompt_rows_.begin(), prompt_rows_.end());  // read as integers
  return {{"prompt_rows", rows}, {"ratio", ratio_}};
}

double AfterPromptTable::ratio(double prompt_rows, int passes_since) const {
  if (empty() || passes_since < 1 || static_cast<size_t>(passes_since) > ratio_[0].size()) return 1;
  const size_t k = static_cast<size_t>(passes_since - 1);
  return GridPosition::locate_held(prompt_rows_, prompt_rows).interpolate([&](size_t i) { return ratio_[i][k]; });
}

}  // namespace kvlab::sim
