#pragma once
// `reserve:B` and `paged:B`: continuous:B (the same loop, through the hooks of continuous_batching.h) with
// a KV memory of blocks (docs/memory.md). A request is admitted when a slot is free, it has arrived, and
// the memory takes it; queue order is kept (the head of the queue waits for memory, nobody overtakes it).
// With no memory limit both are continuous:B to the bit (and so is paged:B with prefix reuse off).
#include <optional>
#include <vector>

#include "policy/continuous_batching.h"
#include "policy/kv_memory.h"

namespace kvlab::policy {

class KvBatching : public ContinuousBatching {
 public:
  KvBatching(int slots, const KvSettings& settings) : ContinuousBatching(slots), settings_(settings) {}
  void serve(ServerState& server) override;
  std::optional<KvMemoryReport> memory_report() const override { return memory_->report(); }

 protected:
  // Positions whose blocks `next` takes at admission (at least its prefill's).
  virtual int hold_positions(const RequestState& next) const = 0;
  virtual bool reuses_prefixes() const = 0;

  bool take_memory(const RequestState& next) override;
  void prefill(ServerState& server, RequestState& request, int slot) override;
  void after_decode_step(const std::vector<RequestState*>& active) override;
  void leave(const RequestState& request) override { memory_->leave(request); }

  KvSettings settings_;
  std::optional<KvMemory> memory_;  // made for each serve()

 private:
  int admitted_cached_tokens_ = 0;  // from take_memory() to prefill()
};

// `reserve:B` (Orca / FasterTransformer style): admits a request only if blocks for its prompt plus the
// longest answer it may give (p + A - 1 positions, A the workload's longest answer: the server knows only
// the cap, not the answer) are free, and holds them all until it finishes. Never preempts; no prefix reuse.
class ReserveBatching : public KvBatching {
 public:
  using KvBatching::KvBatching;
  void check(const std::vector<Request>& workload) const override;
  void serve(ServerState& server) override;

 protected:
  int hold_positions(const RequestState& next) const override;
  bool reuses_prefixes() const override { return false; }

 private:
  int longest_answer_tokens_ = 1;
};

// `paged:B` (vLLM style): admits a request when blocks for its prompt are free (after its cached prefix,
// with prefix reuse), then gives it a block whenever its next token starts one. When a decode step needs
// a block and none is free, the most recently admitted request is preempted by recompute: its blocks are
// freed and it goes back to the front of the queue; re-admitted, it prefills its prompt and the tokens it
// already gave, which yields its next token.
class PagedBatching : public KvBatching {
 public:
  using KvBatching::KvBatching;
  void check(const std::vector<Request>& workload) const override;

 protected:
  int hold_positions(const RequestState& next) const override { return next.next_context(); }
  bool reuses_prefixes() const override { return true; }
  void make_room(std::vector<RequestState*>& active, SlotPool& slots) override;
};

}  // namespace kvlab::policy
