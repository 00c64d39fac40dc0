#pragma once
// Prompt passes priced by the pass before them (docs/replay.md, "Prompt passes by the pass before"). The
// step table times each prefill cell in a run of that prefill, right after an untimed one of its own; in
// a served queue a prompt pass follows something else. On the hosts measured, a prefill right after
// one-row decode passes ran 3-8% slower than its cell natively (serial-cache, every replay) and, in
// wasm in some hours, 5-10% faster; a request's first pass right after a long no-cache pass 15-24%
// slower (serial-nocache, every target).
//
// The optional step-table part holds the measured ratio of a prompt pass of m tokens right after a decode
// pass of r rows (over the same pass right after one of its own), and right after a prompt pass of n
// tokens (over the same pass right after one of m tokens), for a few m, r and n; linear between them,
// held at the ends. A prompt pass (a prefill, a no-cache pass, a mixed step with a prompt chunk, counted
// by its largest chunk) costs its table price times that ratio; the first pass of a run, with nothing
// before it, its table price.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kvlab::sim {

class PromptPassTable {
 public:
  // A ratio below this or above the other is a fault, not a pass's history.
  static constexpr double kMinRatio = 0.2, kMaxRatio = 10;

  PromptPassTable() = default;  // empty: every ratio 1
  // tokens and decode_rows strictly increasing; after_decode[i][j]: a prompt pass of tokens[j] tokens
  // right after a decode pass of decode_rows[i] rows; after_prompt[i][j]: right after a prompt pass of
  // tokens[i] tokens.
  PromptPassTable(std::vector<double> tokens, std::vector<double> decode_rows,
                  std::vector<std::vector<double>> after_decode, std::vector<std::vector<double>> after_prompt);

  // Reads and checks the part; errors name the field under `path`.
  static PromptPassTable from_json(const nlohmann::json& part, const std::string& path);
  nlohmann::json to_json() const;

  bool empty() const { return tokens_.empty(); }
  // A prompt pass of `tokens` right after a decode pass of `decode_rows` rows.
  double after_decode(double decode_rows, double tokens) const;
  // A prompt pass of `tokens` right after a prompt pass of `tokens_before`.
  double after_prompt(double tokens_before, double tokens) const;
  // The measured points, as the constructor takes them.
  const std::vector<double>& tokens() const { return tokens_; }
  const std::vector<double>& decode_rows() const { return decode_rows_; }
  const std::vector<std::vector<double>>& after_decode_ratios() const { return after_decode_; }
  const std::vector<std::vector<double>>& after_prompt_ratios() const { return after_prompt_; }

 private:
  std::vector<double> tokens_;
  std::vector<double> decode_rows_;
  std::vector<std::vector<double>> after_decode_;  // [decode_rows][tokens]
  std::vector<std::vector<double>> after_prompt_;  // [tokens before][tokens]
};

}  // namespace kvlab::sim
