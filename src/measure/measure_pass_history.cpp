#include "measure/measure_pass_history.h"

#include <algorithm>
#include <functional>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "measure/measure.h"
#include "model/generate.h"

namespace kvlab {

namespace {

// Steps before each prefill of the after_prompt part: the first kRestSteps - kRestedSteps bring the step
// back to its rested speed (after a 128-token prefill, in wasm, 8-row passes still ran 30-40% slow six
// passes later), the last kRestedSteps are its rested time.
constexpr int kRestSteps = 24, kRestedSteps = 8;
constexpr int kPromptTokens[] = {8, 16, 32, 64, kLongestPassPrefill};
// The prompt_pass part's sizes, before and after: fewer, as its cells are sizes by sizes.
constexpr int kPromptPassTokens[] = {8, 32, kLongestPassPrefill};
// Decode steps that set up what runs before a timed prompt pass.
constexpr int kSettleSteps = 8;

template <size_t N>
std::vector<int> sizes_under(const int (&sizes)[N], int max_seq) {
  std::vector<int> fitting;
  for (int size : sizes)
    if (size < max_seq) fitting.push_back(size);
  return fitting;
}

// The passes both parts time: decode steps that can be repeated (measure.h) and prefills from position 0
// into two caches of their own (the pass before the timed one, and the timed one).
class PassBench {
 public:
  PassBench(Model& model, const MeasureOptions& o, int n_rows, int context, int max_tokens)
      : model_(model),
        decode_rows_(model, o.model, n_rows, context, o.prompt_seed + 1),
        before_cache_(o.model, max_tokens),
        timed_cache_(o.model, max_tokens),
        prompt_(make_prompt(max_tokens, o.model.vocab, o.prompt_seed + 2)),
        context_(context) {
    model.reserve_rows(std::max(n_rows, max_tokens));
    tokens_.reserve(static_cast<size_t>(n_rows));
  }

  std::vector<Row> rows(int n_rows) { return decode_rows_.rows(n_rows, context_); }
  double decode_ms(const std::vector<Row>& rows) {
    const double start_ms = now_ms();
    model_.greedy_tokens(rows, tokens_);
    return now_ms() - start_ms;
  }
  void settle(const std::vector<Row>& rows) {
    for (int step = 0; step < kSettleSteps; ++step) model_.greedy_tokens(rows, tokens_);
  }
  void prefill_before(int tokens) { prefill(model_, before_cache_, prompt_.data(), tokens, 0); }
  double timed_prefill_ms(int tokens) {
    const double start_ms = now_ms();
    prefill(model_, timed_cache_, prompt_.data(), tokens, 0);
    return now_ms() - start_ms;
  }

 private:
  Model& model_;
  RepeatableDecodeRows decode_rows_;
  KvCache before_cache_, timed_cache_;  // max_tokens positions each
  std::vector<int> prompt_;             // [max_tokens]
  std::vector<int> tokens_;             // a decode pass's greedy tokens
  int context_;
};

// Called with a round's index when that round of a part is done.
using RoundDone = std::function<void(int round)>;

// Sums over rounds -> means, kept inside the parts' bounds.
template <class Table>
void mean_over_rounds(std::vector<std::vector<double>>& sums, int rounds) {
  for (auto& row : sums)
    for (double& ratio : row) ratio = std::clamp(ratio / rounds, Table::kMinRatio, Table::kMaxRatio);
}

// The after_prompt part; empty where the rested step is shorter than min_rested_ms.
sim::AfterPromptTable measure_after_prompt(PassBench& bench, int n_rows, const std::vector<int>& prompt_tokens,
                                           int rounds, double min_rested_ms, const RoundDone& round_done) {
  const std::vector<Row> rows = bench.rows(n_rows);  // [n_rows]
  // ratio_sum[i][k]: the k+1-th step after a prefill of prompt_tokens[i], summed over rounds.
  std::vector<std::vector<double>> ratio_sum(prompt_tokens.size(), std::vector<double>(kAfterPromptPasses, 0.0));
  for (int round = 0; round < rounds; ++round)
    for (size_t i = 0; i < prompt_tokens.size(); ++i) {
      double rested_ms = 0;
      for (int step = 0; step < kRestSteps; ++step) {
        const double step_ms = bench.decode_ms(rows);
        if (step >= kRestSteps - kRestedSteps) rested_ms += step_ms / kRestedSteps;
      }
      if (rested_ms < min_rested_ms) return {};
      bench.prefill_before(prompt_tokens[i]);
      for (int k = 0; k < kAfterPromptPasses; ++k)
        ratio_sum[i][static_cast<size_t>(k)] += bench.decode_ms(rows) / rested_ms;
      if (i + 1 == prompt_tokens.size()) round_done(round);
    }
  mean_over_rounds<sim::AfterPromptTable>(ratio_sum, rounds);
  return sim::AfterPromptTable({prompt_tokens.begin(), prompt_tokens.end()}, std::move(ratio_sum));
}

// The prompt_pass part. After decode steps: a prompt pass of m tokens over the same pass right after it
// (as the step table times its cells, right after an untimed one of its own). After a prompt pass of n
// tokens: m after n over m after m, both right after the same decode steps, so that a pass right after
// one of its own size is priced at its cell; a pass over the pass after it would count a third prompt
// pass in a row, which in wasm ran 1-2% longer than the second.
sim::PromptPassTable measure_prompt_pass(PassBench& bench, int n_rows, const std::vector<int>& tokens, int rounds,
                                         const RoundDone& round_done) {
  std::vector<int> decode_rows = {1};
  if (n_rows > 1) decode_rows.push_back(n_rows);
  std::vector<std::vector<Row>> row_lists;  // [decode_rows]
  for (int rows : decode_rows) row_lists.push_back(bench.rows(rows));
  std::vector<std::vector<double>> after_decode(decode_rows.size(), std::vector<double>(tokens.size(), 0.0));
  std::vector<std::vector<double>> after_prompt(tokens.size(), std::vector<double>(tokens.size(), 0.0));
  std::vector<double> after_prompt_ms(tokens.size());  // [tokens before] this round's pass of tokens[j]
  for (int round = 0; round < rounds; ++round)
    for (size_t j = 0; j < tokens.size(); ++j) {
      for (size_t i = 0; i < decode_rows.size(); ++i) {
        bench.settle(row_lists[i]);
        const double first_ms = bench.timed_prefill_ms(tokens[j]);
        after_decode[i][j] += first_ms / bench.timed_prefill_ms(tokens[j]);
      }
      for (size_t i = 0; i < tokens.size(); ++i) {
        bench.settle(row_lists.back());
        bench.prefill_before(tokens[i]);
        after_prompt_ms[i] = bench.timed_prefill_ms(tokens[j]);
      }
      for (size_t i = 0; i < tokens.size(); ++i) after_prompt[i][j] += after_prompt_ms[i] / after_prompt_ms[j];
      if (j + 1 == tokens.size()) round_done(round);
    }
  mean_over_rounds<sim::PromptPassTable>(after_decode, rounds);
  mean_over_rounds<sim::PromptPassTable>(after_prompt, rounds);
  return sim::PromptPassTable({tokens.begin(), tokens.end()}, {decode_rows.begin(), decode_rows.end()},
                              std::move(after_decode), std::move(after_prompt));
}

}  // namespace

PassHistoryParts measure_pass_history(Model& model, const MeasureOptions& o, int rounds, double min_rested_ms,
                                      const ProgressFn& progress) {
  std::vector<int> row_counts;
  for (int rows : o.decode_rows)
    if (rows <= 8) row_counts.push_back(rows);
  const int n_rows = row_counts.empty() ? o.decode_rows.front() : row_counts.back();
  const int context = o.decode_contexts[o.decode_contexts.size() / 2];
  const std::vector<int> prompt_tokens = sizes_under(kPromptTokens, o.model.max_seq);
  if (prompt_tokens.empty()) return {};  // a model of at most 8 positions: no prompt to measure after
  PassBench bench(model, o, n_rows, context, prompt_tokens.back());
  // The two parts take about the same time: each is half of the progress.
  auto half = [&](double start) -> RoundDone {
    return [&progress, start, rounds](int round) {
      if (progress) progress(start + 0.5 * (round + 1) / rounds, "passes by what ran before them");
    };
  };
  PassHistoryParts parts;
  parts.after_prompt = measure_after_prompt(bench, n_rows, prompt_tokens, rounds, min_rested_ms, half(0));
  if (parts.after_prompt.empty()) return {};
  parts.prompt_pass =
      measure_prompt_pass(bench, n_rows, sizes_under(kPromptPassTokens, o.model.max_seq), rounds, half(0.5));
  return parts;
}

}  // namespace kvlab
