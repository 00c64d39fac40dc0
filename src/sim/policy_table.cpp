#include "sim/policy_table.h"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>
#include <vector>

#include "common/text_format.h"
#include "policy/policy_registry.h"

namespace kvlab::sim {

namespace {

// Three significant digits (whole numbers from 100 up), never an exponent: 0.0523, 1.23, 13.8, 138, 1384.
std::string three_digits(const nlohmann::json& value, const char* unit, double scale) {
  if (!value.is_number()) return "-";
  double x = value.get<double>() * scale;
  int decimals = x > 0 ? std::clamp(2 - static_cast<int>(std::floor(std::log10(x))), 0, 6) : 0;
  return format("%.*f%s", decimals, x, unit);
}

std::string whole_number(const nlohmann::json& value) {
  if (!value.is_number()) return "-";
  return format("%.0f", value.get<double>());
}

// "83/128" (peak blocks of the budget), "83" with no limit.
std::string peak_blocks(const nlohmann::json& metrics) {
  if (!metrics.contains("peak_kv_blocks")) return "-";
  std::string text = whole_number(metrics["peak_kv_blocks"]);
  return metrics["kv_blocks_budget"].is_number() ? text + "/" + whole_number(metrics["kv_blocks_budget"]) : text;
}

std::string percent(const nlohmann::json& value) {
  if (!value.is_number()) return "-";
  return format("%.1f%%", value.get<double>());
}

}  // namespace

std::string format_policy_table(const nlohmann::json& result) {
  std::vector<std::pair<policy::PolicyName, std::string>> policies;
  for (const auto& item : result.items())
    policies.emplace_back(policy::parse_policy_name(item.key(), "result"), item.key());
  std::sort(policies.begin(), policies.end(), [](const auto& a, const auto& b) {
    return std::make_tuple(a.first.order, a.first.batch_rows, a.first.step_tokens) <
           std::make_tuple(b.first.order, b.first.batch_rows, b.first.step_tokens);
  });

  // The KV columns appear only when a KV-memory policy is in the table, so the lab's table is unchanged.
  bool has_kv_columns = std::any_of(policies.begin(), policies.end(), [&](const auto& policy) {
    return result[policy.second].contains("peak_kv_blocks");
  });
  std::vector<std::vector<std::string>> rows = {
      {"policy", "median TTFT", "p95 TTFT", "p99 TTFT", "all done", "tokens/s", "TPOT"}};
  if (has_kv_columns) rows[0].insert(rows[0].end(), {"peak KV blocks", "KV waste", "preemptions"});
  const double seconds_per_ms = 1e-3;
  for (const auto& policy : policies) {
    const nlohmann::json& metrics = result[policy.second];
    rows.push_back({policy.second, three_digits(metrics["median_ttft_ms"], " s", seconds_per_ms),
                    three_digits(metrics["p95_ttft_ms"], " s", seconds_per_ms),
                    three_digits(metrics["p99_ttft_ms"], " s", seconds_per_ms),
                    three_digits(metrics["makespan_ms"], " s", seconds_per_ms), whole_number(metrics["tokens_per_s"]),
                    three_digits(metrics["tpot_ms"], " ms", 1.0)});
    if (has_kv_columns)
      rows.back().insert(rows.back().end(),
                         {peak_blocks(metrics), percent(metrics.value("waste_pct", nlohmann::json())),
                          whole_number(metrics.value("preemptions", nlohmann::json()))});
  }

  return aligned_table(rows);
}

}  // namespace kvlab::sim
