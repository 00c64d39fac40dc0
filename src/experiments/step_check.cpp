#include "experiments/step_check.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <utility>

#include "common/json_or_null.h"
#include "sim/mixed_step.h"

namespace kvlab::experiments {

using nlohmann::json;

namespace {

// Decode passes grouped by how many passes ago the last prompt pass ran (a prefill, a no-cache pass or a
// mixed step with a prompt chunk), by the first count of each group.
constexpr std::pair<int, const char*> kPassesSincePrompt[] = {{1, "1"},   {2, "2"},    {3, "3"},
                                                              {4, "4-7"}, {8, "8-15"}, {16, "16+"}};

// Which of kPassesSincePrompt `passes` falls in.
size_t passes_since_prompt_group(int passes) {
  size_t group = 0;
  while (group + 1 < std::size(kPassesSincePrompt) && kPassesSincePrompt[group + 1].first <= passes) ++group;
  return group;
}

FormulaCheck formula_check(const sim::StepTable& table) {
  const std::vector<double> errors = sim::derived_formula_errors(table);
  FormulaCheck check;
  check.cells = errors.size();
  if (errors.empty()) return check;
  double sum_abs = 0, max_abs = 0;
  for (double error : errors) {
    sum_abs += std::abs(error);
    max_abs = std::max(max_abs, std::abs(error));
  }
  check.mean_abs_error = sum_abs / static_cast<double>(errors.size());
  check.max_abs_error = max_abs;
  return check;
}

// {`key`: `when`, steps, real_ms, table_ms}
json totals_json(const PassTotals& totals, const char* key, const std::string& when) {
  return {{key, when}, {"steps", totals.steps}, {"real_ms", totals.real_ms}, {"table_ms", totals.table_ms}};
}

json groups_json(const std::vector<PassGroup>& groups, const char* key) {
  json entries = json::array();
  for (const PassGroup& group : groups) entries.push_back(totals_json(group.totals, key, group.when));
  return entries;
}

}  // namespace

void PassTotals::add(double pass_real_ms, double pass_table_ms) {
  ++steps;
  real_ms += pass_real_ms;
  table_ms += pass_table_ms;
}

StepCheck step_check(const serve::StepLog& log, const sim::StepTable& table, double real_makespan_ms) {
  std::map<std::pair<serve::StepKind, int>, KindTotals> by_kind;
  std::vector<PassTotals> decode_by_passes_since_prompt(std::size(kPassesSincePrompt));
  std::map<std::string, PassTotals> prompt_by_pass_before;
  int passes_since_prompt = -1;  // none yet
  std::string pass_before = "none";
  StepCheck check;
  for (const serve::StepRecord& record : log.records()) {
    const int* contexts = log.contexts(record);
    auto context_of = [&](int row) { return contexts[row]; };
    auto span_of = [&](int i) {
      return std::pair<int, int>(contexts[record.sequences + 2 * i], contexts[record.sequences + 2 * i + 1]);
    };
    KindTotals& kind = by_kind[{record.kind, record.sequences}];
    const double real_ms = record.end_ms - record.start_ms;
    double table_ms = 0;
    if (record.kind == serve::StepKind::decode) {
      table_ms = table.decode_step_ms(record.sequences, context_of);
    } else if (record.kind == serve::StepKind::mixed) {
      table_ms = sim::mixed_step_ms(table, record.sequences, context_of, record.chunks, span_of);
      if (table.has_mixed())
        kind.derived_ms = kind.derived_ms.value_or(0) +
                          sim::derived_mixed_step_ms(table, record.sequences, context_of, record.chunks, span_of);
    } else {
      table_ms = table.prefill_ms(contexts[0]);
      prompt_by_pass_before[pass_before].add(real_ms, table_ms);
    }
    // A mixed step without a prompt chunk is a decode pass (chunked prefill runs every pass as mixed).
    const bool decode_only =
        record.kind == serve::StepKind::decode || (record.kind == serve::StepKind::mixed && record.chunks == 0);
    if (!decode_only)
      passes_since_prompt = 0;
    else if (passes_since_prompt >= 0)
      decode_by_passes_since_prompt[passes_since_prompt_group(++passes_since_prompt)].add(real_ms, table_ms);
    pass_before = decode_only ? "decode" : step_kind_name(record.kind);
    kind.totals.add(real_ms, table_ms);
    check.real_steps_ms += real_ms;
    check.table_steps_ms += table_ms;
  }
  check.outside_steps_ms = real_makespan_ms - check.real_steps_ms;
  for (auto& [key, kind] : by_kind) {
    kind.kind = key.first;
    kind.rows = key.second;
    check.kinds.push_back(std::move(kind));
  }
  for (size_t group = 0; group < decode_by_passes_since_prompt.size(); ++group)
    if (decode_by_passes_since_prompt[group].steps > 0)
      check.decode_by_passes_since_prompt.push_back(
          {kPassesSincePrompt[group].second, decode_by_passes_since_prompt[group]});
  for (const auto& [before, totals] : prompt_by_pass_before) check.prompt_by_pass_before.push_back({before, totals});
  if (table.has_mixed()) check.mixed_formula = formula_check(table);
  return check;
}

json StepCheck::to_json() const {
  json kind_entries = json::array();
  for (const KindTotals& kind : kinds) {
    json entry = totals_json(kind.totals, "kind", step_kind_name(kind.kind));
    entry["rows"] = kind.rows;
    if (kind.derived_ms) entry["derived_ms"] = *kind.derived_ms;
    kind_entries.push_back(std::move(entry));
  }
  json check = {{"real_steps_ms", real_steps_ms},
                {"table_steps_ms", table_steps_ms},
                {"outside_steps_ms", outside_steps_ms},
                {"kinds", std::move(kind_entries)},
                {"decode_by_passes_since_prompt", groups_json(decode_by_passes_since_prompt, "passes_since_prompt")},
                {"prompt_by_pass_before", groups_json(prompt_by_pass_before, "pass_before")}};
  if (mixed_formula)
    check["mixed_formula"] = {{"cells", mixed_formula->cells},
                              {"mean_abs_error", json_or_null(mixed_formula->mean_abs_error)},
                              {"max_abs_error", json_or_null(mixed_formula->max_abs_error)}};
  return check;
}

}  // namespace kvlab::experiments
