#include "policy/kv_memory_report.h"

#include "common/json_or_null.h"

namespace kvlab::policy {

void KvMemoryReport::add_to(nlohmann::json& metrics) const {
  metrics["kv_block_tokens"] = blocks.block_tokens;
  metrics["kv_blocks_budget"] = json_or_null(blocks.budget_blocks);
  metrics["peak_kv_blocks"] = blocks.peak_blocks;
  metrics["peak_kv_utilisation_pct"] = json_or_null(blocks.peak_utilisation_pct);
  metrics["waste_pct"] = json_or_null(blocks.waste_pct);
  metrics["prefix_hit_rate"] = json_or_null(blocks.prefix_hit_rate);
  metrics["kv_blocks_in_use"] = blocks.blocks_in_use.to_json("blocks");
  metrics["preemptions"] = preemptions;
  metrics["recomputed_tokens"] = recomputed_tokens;
  if (split_prefills) metrics["split_prefills"] = *split_prefills;
}

}  // namespace kvlab::policy
