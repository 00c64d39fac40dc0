#pragma once
// `chunked:B,T` (Sarathi-Serve style): B slots, a budget of T tokens per step, and paged KV memory (blocks
// on demand, preemption by recompute, prefix reuse) as under paged:B. Every step first runs one decode row
// for each request past its prefill, then spends what is left of T on prefill chunks: the prefill in
// progress first, then new requests in queue order. A long prompt is cut into chunks that ride along with
// the decode rows, so it never stalls them for a whole prefill (docs/memory.md).
#include <optional>
#include <vector>

#include "policy/kv_memory.h"
#include "policy/scheduler.h"

namespace kvlab::policy {

class ChunkedPrefill : public Scheduler {
 public:
  ChunkedPrefill(int slots, int step_tokens, const KvSettings& settings)
      : slots_(slots), step_tokens_(step_tokens), settings_(settings) {}
  int slots() const override { return slots_; }
  void check(const std::vector<Request>& workload) const override;
  void serve(ServerState& server) override;
  // The memory's report with split_prefills.
  std::optional<KvMemoryReport> memory_report() const override;

 private:
  int slots_;
  int step_tokens_;  // T >= B, so that every decode row fits a step
  KvSettings settings_;
  std::optional<KvMemory> memory_;  // made for each serve()
  long long split_prefills_ = 0;
};

}  // namespace kvlab::policy
