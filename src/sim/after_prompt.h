#pragma once
// The slowdown of decode passes after prompt work (docs/replay.md, "Decode passes after a prompt pass"):
// on the hosts measured, the first few decode passes after a forward pass that computed a prompt (a
// prefill, a no-cache pass, a mixed step with a prompt chunk) run slower than the same pass at rest,
// by more the more rows that prompt pass had (natively, one 16-token prefill: nothing seen; one of 128
// tokens: the next two 8-row passes 40-60% slower, back to rest four passes later; in wasm 30-40% after
// 32 tokens and longer-lived). The step table's cells are timed at rest, so without this a run's price
// is low by about how often decode passes follow prompt work.
//
// The optional step-table part holds the measured ratio (time / time at rest) of the k-th decode pass
// after one prompt pass of n rows, for a few n and k = 1 .. K. A decode pass is priced at its table
// price times ratio(n, k) for the last prompt pass (the largest of consecutive ones; a mixed step counts
// by its largest prompt chunk), linear between the measured n and held at the ends; after K passes, 1.
// Prompt passes are priced by the pass before them (prompt_pass.h); the history a run keeps is
// pass_history.h's.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kvlab::sim {

class AfterPromptTable {
 public:
  // A ratio below this or above the other is a fault, not a slowdown.
  static constexpr double kMinRatio = 0.2, kMaxRatio = 10;

  AfterPromptTable() = default;  // empty: every ratio 1
  // ratio[i][k - 1]: the k-th decode pass after a prompt pass of prompt_rows[i] rows; prompt_rows
  // strictly increasing, every list of ratios as long.
  AfterPromptTable(std::vector<double> prompt_rows, std::vector<std::vector<double>> ratio);

  // Reads and checks the part; errors name the field under `path`.
  static AfterPromptTable from_json(const nlohmann::json& part, const std::string& path);
  nlohmann::json to_json() const;

  bool empty() const { return prompt_rows_.empty(); }
  // The k-th decode pass (k >= 1) after a prompt pass of `prompt_rows` rows.
  double ratio(double prompt_rows, int passes_since) const;
  // The measured points, as the constructor takes them.
  const std::vector<double>& prompt_rows() const { return prompt_rows_; }
  const std::vector<std::vector<double>>& ratios() const { return ratio_; }

 private:
  std::vector<double> prompt_rows_;
  std::vector<std::vector<double>> ratio_;  // [prompt_rows][passes since - 1]
};

}  // namespace kvlab::sim
