#pragma once
// What a KV-memory policy (reserve, paged, chunked) measured beyond the request times, and the keys its
// result gives it under (docs/memory.md).
#include <optional>

#include <nlohmann/json.hpp>

#include "policy/step_series.h"

namespace kvlab::policy {

// The block manager's share (kv_blocks.h).
struct KvBlockReport {
  int block_tokens = 0;
  std::optional<long long> budget_blocks;  // none: no memory limit
  long long peak_blocks = 0;
  std::optional<double> peak_utilisation_pct;  // of the budget; none without one
  // Allocated token slots that held no KV, time-weighted; none if no block was ever held.
  std::optional<double> waste_pct;
  std::optional<double> prefix_hit_rate;  // prompt tokens found cached / looked up; none without prefix reuse
  StepSeries blocks_in_use;
};

struct KvMemoryReport {
  KvBlockReport blocks;
  long long preemptions = 0;
  long long recomputed_tokens = 0;          // by preemptions: computed again at re-admission
  std::optional<long long> split_prefills;  // chunked:B,T's (re)prefills that ran over more than one step
  // kv_block_tokens, kv_blocks_budget, peak_kv_blocks, peak_kv_utilisation_pct, waste_pct, prefix_hit_rate,
  // kv_blocks_in_use {t_ms, blocks}, preemptions, recomputed_tokens and (chunked) split_prefills, into the
  // policy's result object `metrics`.
  void add_to(nlohmann::json& metrics) const;
};

}  // namespace kvlab::policy
