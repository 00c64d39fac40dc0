#include "experiments/replay_report.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "common/text_format.h"
#include "policy/policy_registry.h"

namespace kvlab::experiments {

using nlohmann::json;

namespace {

// Milliseconds below a second ("85.3 ms"), seconds with two decimals from there ("12.34 s").
std::string duration(const json& ms) {
  if (!ms.is_number()) return "-";
  const double value = ms.get<double>();
  return value < 1000 ? format("%.1f ms", value) : format("%.2f s", value / 1000);
}

std::string percent(const json& fraction) {
  return fraction.is_number() ? format("%+.1f%%", 100 * fraction.get<double>()) : "-";
}

// A table row of `policy`'s relative differences (error, drift): median TTFT, p95 TTFT, all done.
std::vector<std::string> percent_row(const std::string& policy, const json& differences) {
  return {policy, percent(differences["median_ttft"]), percent(differences["p95_ttft"]),
          percent(differences["makespan"])};
}

// (priced - real) / real as a percentage; "-" when nothing real was timed.
std::string error_of(double real_ms, double priced_ms) {
  return percent(real_ms > 0 ? json((priced_ms - real_ms) / real_ms) : json());
}

// Policy names in the lab's order: serial-nocache, serial-cache, static, continuous, by B in a family.
std::vector<std::string> ordered_policies(const json& result) {
  std::vector<std::pair<policy::PolicyName, std::string>> policies;
  for (const auto& item : result.items())
    policies.emplace_back(policy::parse_policy_name(item.key(), "result"), item.key());
  std::sort(policies.begin(), policies.end(), [](const auto& a, const auto& b) {
    return std::make_pair(a.first.order, a.first.batch_rows) < std::make_pair(b.first.order, b.first.batch_rows);
  });
  std::vector<std::string> names;
  for (const auto& policy : policies) names.push_back(policy.second);
  return names;
}

// "median TTFT / all done" of a run's errors.
std::string two_errors(const json& differences) {
  return percent(differences["median_ttft"]) + " / " + percent(differences["makespan"]);
}

// Where the tables carry the parts that price a pass by what ran before it: their ratios, and each run
// priced without each part and without both.
std::string history_parts_text(const json& result, const std::vector<std::string>& policies) {
  const json& table = result[policies.front()]["step_table"];
  if (!result[policies.front()].contains("error_without")) return "";
  std::string text;
  if (table.contains("after_prompt")) {
    const json& part = table["after_prompt"];
    text +=
        "\nDecode passes 1-4 after a prompt pass of n rows, measured over their time at rest (the after-prompt part):\n";
    for (size_t i = 0; i < part["prompt_rows"].size(); ++i) {
      text += format("  n = %d:", part["prompt_rows"][i].get<int>());
      for (size_t k = 0; k < 4 && k < part["ratio"][i].size(); ++k)
        text += format(" %.2f", part["ratio"][i][k].get<double>());
      text += "\n";
    }
  }
  if (table.contains("prompt_pass")) {
    const json& part = table["prompt_pass"];
    std::vector<std::vector<std::string>> ratios = {{"right after"}};
    for (const json& tokens : part["tokens"]) ratios[0].push_back(format("m = %d", tokens.get<int>()));
    auto ratio_row = [&](const std::string& before, const json& values) {
      ratios.push_back({before});
      for (const json& value : values) ratios.back().push_back(format("%.2f", value.get<double>()));
    };
    for (size_t i = 0; i < part["decode_rows"].size(); ++i) {
      const int rows = part["decode_rows"][i].get<int>();
      ratio_row(format("a decode pass of %d row%s", rows, rows == 1 ? "" : "s"), part["after_decode"][i]);
    }
    for (size_t i = 0; i < part["tokens"].size(); ++i)
      ratio_row(format("a prompt pass of %d tokens", part["tokens"][i].get<int>()), part["after_prompt"][i]);
    text +=
        "\nA prompt pass of m tokens, measured over its time right after one of its own size (the prompt-pass "
        "part):\n\n" +
        aligned_table(ratios);
  }
  std::vector<std::vector<std::string>> errors = {
      {"policy", "with both", "without after-prompt", "without prompt-pass", "grid alone"}};
  for (const std::string& policy : policies) {
    const json& entry = result[policy];
    errors.push_back({policy, two_errors(entry["error"])});
    for (const char* part : {"after_prompt", "prompt_pass"})
      errors.back().push_back(entry["error_without"].contains(part) ? two_errors(entry["error_without"][part]) : "-");
    errors.back().push_back(two_errors(entry["error_grid_only"]));
  }
  return text +
         "\nThe errors of the same runs (median TTFT / all done) priced without each part, and on the grid alone:\n\n" +
         aligned_table(errors);
}

// On a model that writes text: how many of each policy's answers are the ones generated alone, and the
// first few stories as the first policy served them. Empty for a random-weight model.
std::string texts_text(const json& result, const std::vector<std::string>& policies) {
  constexpr size_t kStoriesShown = 3;
  if (policies.empty() || !result[policies.front()].contains("answers_equal_alone")) return "";
  std::string text = "\nEach answer against the same request generated alone (greedy, one sequence):\n\n";
  for (const std::string& policy : policies) {
    const json& entry = result[policy];
    text += format("  %-16s %lld of %lld equal\n", policy.c_str(), entry["answers_equal_alone"].get<long long>(),
                   entry["request_count"].get<long long>());
  }
  const json& requests = result[policies.front()]["real"]["requests"];
  text += "\nThe first stories as " + policies.front() + " served them:\n";
  for (size_t i = 0; i < std::min(kStoriesShown, requests.size()); ++i)
    text +=
        "\n  " + requests[i]["prompt_text"].get<std::string>() + " [" + requests[i]["text"].get<std::string>() + "]\n";
  return text;
}

}  // namespace

std::string format_replay_report(const json& result) {
  const std::vector<std::string> policies = ordered_policies(result);
  std::vector<std::vector<std::string>> metrics = {
      {"policy", "requests", "median TTFT", "sim", "error", "p95 TTFT", "sim", "error", "all done", "sim", "error"}};
  for (const std::string& policy : policies) {
    const json& entry = result[policy];
    std::vector<std::string> row = {policy, std::to_string(entry["request_count"].get<long long>())};
    for (const char* key : {"median_ttft", "p95_ttft", "makespan"}) {
      const std::string field = std::string(key) + "_ms";
      row.push_back(duration(entry["real"][field]));
      row.push_back(duration(entry["sim"][field]));
      row.push_back(percent(entry["error"][key]));
    }
    metrics.push_back(std::move(row));
  }

  const std::string history_text = history_parts_text(result, policies);

  std::vector<std::vector<std::string>> drift = {{"policy", "median TTFT", "p95 TTFT", "all done"}};
  for (const std::string& policy : policies) drift.push_back(percent_row(policy, result[policy]["drift"]));

  std::vector<std::vector<std::string>> steps = {
      {"policy", "forward pass", "rows", "steps", "real", "table", "error", "formula", "error"}};
  std::vector<std::vector<std::string>> history = {
      {"policy", "forward pass", "when", "steps", "real", "table", "error"}};
  std::string formula_lines;
  for (const std::string& policy : policies) {
    const json& check = result[policy]["step_check"];
    auto history_row = [&](const char* pass, const std::string& ran, const json& totals) {
      history.push_back({policy, pass, ran, std::to_string(totals["steps"].get<long long>()),
                         duration(totals["real_ms"]), duration(totals["table_ms"]),
                         error_of(totals["real_ms"].get<double>(), totals["table_ms"].get<double>())});
    };
    for (const json& group : check["decode_by_passes_since_prompt"]) {
      const std::string passes = group["passes_since_prompt"].get<std::string>();
      history_row("decode", passes + (passes == "1" ? " pass" : " passes") + " after a prompt pass", group);
    }
    for (const json& group : check["prompt_by_pass_before"])
      history_row(
          "prompt (prefill, nocache)",
          group["pass_before"] == "none" ? "first of the run" : "after " + group["pass_before"].get<std::string>(),
          group);
    for (const json& kind : check["kinds"]) {
      const double real_ms = kind["real_ms"].get<double>(), table_ms = kind["table_ms"].get<double>();
      auto error = [&](double priced_ms) { return error_of(real_ms, priced_ms); };
      std::vector<std::string> row = {policy,
                                      kind["kind"].get<std::string>(),
                                      std::to_string(kind["rows"].get<int>()),
                                      std::to_string(kind["steps"].get<long long>()),
                                      duration(real_ms),
                                      duration(table_ms),
                                      error(table_ms),
                                      "",
                                      ""};
      if (kind.contains("derived_ms")) {
        row[7] = duration(kind["derived_ms"]);
        row[8] = error(kind["derived_ms"].get<double>());
      }
      steps.push_back(std::move(row));
    }
    steps.push_back({policy, "outside forward passes", "", "", duration(check["outside_steps_ms"]), "", "", "", ""});
    if (check.contains("mixed_formula") && check["mixed_formula"]["cells"].get<int>() > 0) {
      const json& formula = check["mixed_formula"];
      formula_lines += format(
          "%s: the derived formula against the table's %d measured mixed-step cells: mean |error| %.1f%%, max %.1f%%\n",
          policy.c_str(), formula["cells"].get<int>(), 100 * formula["mean_abs_error"].get<double>(),
          100 * formula["max_abs_error"].get<double>());
    }
  }

  return "Real engine vs simulator, same workload, step times measured on this machine\n\n" + aligned_table(metrics) +
         "\nerror = (simulated - real) / real; target: median TTFT and all done within 5%\n" + history_text +
         "\nThe machine's drift during each run: the simulation on the table measured right after it, against the one right before\n"
         "(the simulation above uses the mean of the two)\n\n" +
         aligned_table(drift) +
         "\nWhere the real time went, each forward pass priced on the step table (formula: a mixed step priced by the\n"
         "derived formula instead of the measured mixed grid, docs/memory.md section 1):\n\n" +
         aligned_table(steps) + (formula_lines.empty() ? "" : "\n" + formula_lines) +
         "\nThe same passes by what ran before them, priced on the grid alone (a prompt pass: a prefill, a no-cache pass\n"
         "or a mixed step with a chunk; a decode pass runs slower soon after one, which the grid, timing each cell in a\n"
         "stretch of its own, does not see and the after-prompt part prices: docs/replay.md):\n\n" +
         aligned_table(history) + texts_text(result, policies);
}

}  // namespace kvlab::experiments
