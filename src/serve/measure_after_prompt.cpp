#include "serve/measure_after_prompt.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "bench/measure.h"
#include "common/clock.h"
#include "model/generate.h"

namespace kvlab::serve {

namespace {

// Steps before each prefill: the first kRestSteps - kRestedSteps bring the step back to its rested
// speed (after a 128-token prefill, in wasm, 8-row passes still ran 30-40% slow six passes later), the
// last kRestedSteps are its rested time.
constexpr int kRestSteps = 24, kRestedSteps = 8;
constexpr int kPromptTokens[] = {8, 16, 32, 64, 128};

}  // namespace

sim::AfterPromptTable measure_after_prompt(Model& model, const MeasureOptions& o, int rounds, double min_rested_ms) {
  std::vector<int> row_counts;
  for (int rows : o.decode_rows)
    if (rows <= 8) row_counts.push_back(rows);
  const int n_rows = row_counts.empty() ? o.decode_rows.front() : row_counts.back();
  const int context = o.decode_contexts[o.decode_contexts.size() / 2];
  std::vector<int> prompt_tokens;
  for (int tokens : kPromptTokens)
    if (tokens < o.model.max_seq) prompt_tokens.push_back(tokens);
  if (prompt_tokens.empty()) return {};  // a model of at most 8 positions: no prompt to measure after
  const int max_tokens = prompt_tokens.back();

  // The decode step can be repeated (measure.h); the prefills fill a cache of their own from position 0.
  RepeatableDecodeRows decode_rows(model, o.model, n_rows, context, o.prompt_seed + 1);
  const std::vector<Row> rows = decode_rows.rows(n_rows, context);  // [n_rows]
  KvCache prompt_cache(o.model, max_tokens);
  const std::vector<int> prompt = make_prompt(max_tokens, o.model.vocab, o.prompt_seed + 2);
  model.reserve_rows(std::max(n_rows, max_tokens));
  auto timed_step_ms = [&] {
    const double start_ms = now_ms();
    model.forward(rows);
    return now_ms() - start_ms;
  };

  // ratio_sum[i][k]: the k+1-th step after a prefill of prompt_tokens[i], summed over rounds.
  std::vector<std::vector<double>> ratio_sum(prompt_tokens.size(), std::vector<double>(kAfterPromptPasses, 0.0));
  for (int round = 0; round < rounds; ++round)
    for (size_t i = 0; i < prompt_tokens.size(); ++i) {
      double rested_ms = 0;
      for (int step = 0; step < kRestSteps; ++step) {
        const double step_ms = timed_step_ms();
        if (step >= kRestSteps - kRestedSteps) rested_ms += step_ms / kRestedSteps;
      }
      if (rested_ms < min_rested_ms) return {};
      prefill(model, prompt_cache, prompt.data(), prompt_tokens[i], 0);
      for (int k = 0; k < kAfterPromptPasses; ++k) ratio_sum[i][static_cast<size_t>(k)] += timed_step_ms() / rested_ms;
    }
  for (auto& row : ratio_sum)
    for (double& ratio : row) ratio = std::clamp(ratio / rounds, sim::AfterPromptTable::kMinRatio, sim::AfterPromptTable::kMaxRatio);
  return sim::AfterPromptTable({prompt_tokens.begin(), prompt_tokens.end()}, std::move(ratio_sum));
}

}  // namespace kvlab::serve
