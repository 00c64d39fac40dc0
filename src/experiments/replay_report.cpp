#include "experiments/replay_report.h"

#include <algorithm>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "common/text_format.h"
#include "policy/policy_registry.h"

namespace kvlab::experiments {

namespace {

// Milliseconds below a second ("85.3 ms"), seconds with two decimals from there ("12.34 s").
std::string duration(double ms) { return ms < 1000 ? format("%.1f ms", ms) : format("%.2f s", ms / 1000); }

std::string percent(const std::optional<double>& fraction) {
  return fraction ? format("%+.1f%%", 100 * *fraction) : "-";
}

// A table row of `policy`'s relative differences (error, drift): median TTFT, p95 TTFT, all done.
std::vector<std::string> percent_row(const std::string& policy, const RelativeDifferences& differences) {
  return {policy, percent(differences.median_ttft), percent(differences.p95_ttft), percent(differences.makespan)};
}

// (priced - real) / real as a percentage; "-" when nothing real was timed.
std::string error_of(double real_ms, double priced_ms) {
  return percent(real_ms > 0 ? std::optional<double>((priced_ms - real_ms) / real_ms) : std::nullopt);
}

// The policies in the lab's order: serial-nocache, serial-cache, static, continuous, by B in a family;
// by name where those tie (chunked:B,T of one B).
std::vector<const NamedPolicyReplay*> ordered_policies(const ReplayResult& result) {
  std::vector<std::pair<policy::PolicyName, const NamedPolicyReplay*>> policies;
  for (const NamedPolicyReplay& named : result.policies)
    policies.emplace_back(policy::parse_policy_name(named.name, "result"), &named);
  std::sort(policies.begin(), policies.end(), [](const auto& a, const auto& b) {
    return std::tie(a.first.order, a.first.batch_rows, a.second->name) <
           std::tie(b.first.order, b.first.batch_rows, b.second->name);
  });
  std::vector<const NamedPolicyReplay*> ordered;
  for (const auto& policy : policies) ordered.push_back(policy.second);
  return ordered;
}

// "median TTFT / all done" of a run's errors; "-" for none.
std::string two_errors(const std::optional<RelativeDifferences>& differences) {
  return differences ? percent(differences->median_ttft) + " / " + percent(differences->makespan) : "-";
}

// Where the tables carry the parts that price a pass by what ran before it: their ratios, and each run
// priced without each part and without both.
std::string history_parts_text(const std::vector<const NamedPolicyReplay*>& policies) {
  const PolicyReplay& first = policies.front()->replay;
  if (!first.error_without.grid_only) return "";
  std::string text;
  const sim::AfterPromptTable& after_prompt = first.step_table.after_prompt();
  if (!after_prompt.empty()) {
    text +=
        "\nDecode passes 1-4 after a prompt pass of n rows, measured over their time at rest (the after-prompt part):\n";
    for (size_t i = 0; i < after_prompt.prompt_rows().size(); ++i) {
      const std::vector<double>& ratios = after_prompt.ratios()[i];
      text += format("  n = %d:", static_cast<int>(after_prompt.prompt_rows()[i]));
      for (size_t k = 0; k < 4 && k < ratios.size(); ++k) text += format(" %.2f", ratios[k]);
      text += "\n";
    }
  }
  const sim::PromptPassTable& prompt_pass = first.step_table.prompt_pass();
  if (!prompt_pass.empty()) {
    std::vector<std::vector<std::string>> ratios = {{"right after"}};
    for (double tokens : prompt_pass.tokens()) ratios[0].push_back(format("m = %d", static_cast<int>(tokens)));
    auto ratio_row = [&](const std::string& before, const std::vector<double>& values) {
      ratios.push_back({before});
      for (double value : values) ratios.back().push_back(format("%.2f", value));
    };
    for (size_t i = 0; i < prompt_pass.decode_rows().size(); ++i) {
      const int rows = static_cast<int>(prompt_pass.decode_rows()[i]);
      ratio_row(format("a decode pass of %d row%s", rows, rows == 1 ? "" : "s"), prompt_pass.after_decode_ratios()[i]);
    }
    for (size_t i = 0; i < prompt_pass.tokens().size(); ++i)
      ratio_row(format("a prompt pass of %d tokens", static_cast<int>(prompt_pass.tokens()[i])),
                prompt_pass.after_prompt_ratios()[i]);
    text +=
        "\nA prompt pass of m tokens, measured over its time right after one of its own size (the prompt-pass "
        "part):\n\n" +
        aligned_table(ratios);
  }
  std::vector<std::vector<std::string>> errors = {
      {"policy", "with both", "without after-prompt", "without prompt-pass", "grid alone"}};
  for (const NamedPolicyReplay* named : policies) {
    const PolicyReplay& replay = named->replay;
    const ErrorsWithoutHistory& without = replay.error_without;
    errors.push_back({named->name, two_errors(replay.error), two_errors(without.after_prompt),
                      two_errors(without.prompt_pass), two_errors(without.grid_only)});
  }
  return text +
         "\nThe errors of the same runs (median TTFT / all done) priced without each part, and on the grid alone:\n\n" +
         aligned_table(errors);
}

// On a model that writes text: how many of each policy's answers are the ones generated alone, and the
// first few stories as the first policy served them. Empty for a random-weight model.
std::string texts_text(const std::vector<const NamedPolicyReplay*>& policies) {
  constexpr size_t kStoriesShown = 3;
  if (policies.empty() || !policies.front()->replay.real.answers_equal_alone) return "";
  std::string text = "\nEach answer against the same request generated alone (greedy, one sequence):\n\n";
  for (const NamedPolicyReplay* named : policies)
    text += format("  %-16s %lld of %lld equal\n", named->name.c_str(),
                   static_cast<long long>(named->replay.real.answers_equal_alone.value_or(0)),
                   static_cast<long long>(named->replay.request_count));
  const std::vector<RequestText>& texts = policies.front()->replay.real.texts;
  text += "\nThe first stories as " + policies.front()->name + " served them:\n";
  for (size_t i = 0; i < std::min(kStoriesShown, texts.size()); ++i)
    text += "\n  " + texts[i].prompt + " [" + texts[i].answer + "]\n";
  return text;
}

}  // namespace

std::string format_replay_report(const ReplayResult& result) {
  const std::vector<const NamedPolicyReplay*> policies = ordered_policies(result);
  std::vector<std::vector<std::string>> metrics = {
      {"policy", "requests", "median TTFT", "sim", "error", "p95 TTFT", "sim", "error", "all done", "sim", "error"}};
  for (const NamedPolicyReplay* named : policies) {
    const PolicyReplay& replay = named->replay;
    const sim::PolicyMetrics &real = replay.real.result.metrics, &simulated = replay.sim.metrics;
    metrics.push_back({named->name, std::to_string(replay.request_count), duration(real.median_ttft_ms),
                       duration(simulated.median_ttft_ms), percent(replay.error.median_ttft),
                       duration(real.p95_ttft_ms), duration(simulated.p95_ttft_ms), percent(replay.error.p95_ttft),
                       duration(real.makespan_ms), duration(simulated.makespan_ms), percent(replay.error.makespan)});
  }

  const std::string history_text = history_parts_text(policies);

  std::vector<std::vector<std::string>> drift = {{"policy", "median TTFT", "p95 TTFT", "all done"}};
  for (const NamedPolicyReplay* named : policies) drift.push_back(percent_row(named->name, named->replay.drift));

  std::vector<std::vector<std::string>> steps = {
      {"policy", "forward pass", "rows", "steps", "real", "table", "error", "formula", "error"}};
  std::vector<std::vector<std::string>> history = {
      {"policy", "forward pass", "when", "steps", "real", "table", "error"}};
  std::string formula_lines;
  for (const NamedPolicyReplay* named : policies) {
    const std::string& policy = named->name;
    const StepCheck& check = named->replay.step_check;
    auto history_row = [&](const char* pass, const std::string& ran, const PassTotals& totals) {
      history.push_back({policy, pass, ran, std::to_string(totals.steps), duration(totals.real_ms),
                         duration(totals.table_ms), error_of(totals.real_ms, totals.table_ms)});
    };
    for (const PassGroup& group : check.decode_by_passes_since_prompt)
      history_row("decode", group.when + (group.when == "1" ? " pass" : " passes") + " after a prompt pass",
                  group.totals);
    for (const PassGroup& group : check.prompt_by_pass_before)
      history_row("prompt (prefill, nocache)", group.when == "none" ? "first of the run" : "after " + group.when,
                  group.totals);
    for (const KindTotals& kind : check.kinds) {
      const PassTotals& totals = kind.totals;
      auto error = [&](double priced_ms) { return error_of(totals.real_ms, priced_ms); };
      std::vector<std::string> row = {policy,
                                      serve::step_kind_name(kind.kind),
                                      std::to_string(kind.rows),
                                      std::to_string(totals.steps),
                                      duration(totals.real_ms),
                                      duration(totals.table_ms),
                                      error(totals.table_ms),
                                      "",
                                      ""};
      if (kind.derived_ms) {
        row[7] = duration(*kind.derived_ms);
        row[8] = error(*kind.derived_ms);
      }
      steps.push_back(std::move(row));
    }
    steps.push_back({policy, "outside forward passes", "", "", duration(check.outside_steps_ms), "", "", "", ""});
    if (check.mixed_formula && check.mixed_formula->cells > 0) {
      const FormulaCheck& formula = *check.mixed_formula;
      formula_lines += format(
          "%s: the derived formula against the table's %d measured mixed-step cells: mean |error| %.1f%%, max %.1f%%\n",
          policy.c_str(), static_cast<int>(formula.cells), 100 * formula.mean_abs_error.value_or(0),
          100 * formula.max_abs_error.value_or(0));
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
         aligned_table(history) + texts_text(policies);
}

}  // namespace kvlab::experiments
