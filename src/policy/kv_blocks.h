#pragma once
// The KV memory of the reserve, paged and chunked policies, in blocks of a fixed number of token slots
// (in the spirit of vLLM's block manager and Vidur's memory bookkeeping): allocation, reference counts,
// prefix reuse by content and its least-recently-used cache, and the use measured over time.
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "policy/kv_memory_report.h"
#include "policy/request.h"
#include "policy/step_series.h"

namespace kvlab::policy {

struct KvSettings {
  int block_tokens = 16;
  std::optional<long long> budget_blocks;  // none: no memory limit
  std::string budget_path;                 // the field that gave it, for errors ("options.kv_tokens")
  std::string budget_given;                // what it gave ("1024")

  long long blocks_for(long long positions) const { return (positions + block_tokens - 1) / block_tokens; }
};

// Positions a slot's cache needs for `workload`: the longest prompt + the longest answer - 1. A request
// alone needs p + n - 1 (its last token is never fed back), but a padding row of a static batch runs on
// to its batch's longest answer, so a long prompt may share a batch with a long answer.
int cache_positions(const std::vector<Request>& workload);

// The blocks a pool for `slots` slots serving `workload` may need: at most the budget, and no more than
// the block manager can hand out ids for: every slot holding the longest sequence, plus (prefix reuse)
// every block of every request kept cached. The real engine allocates this many; the simulator bounds its
// bookkeeping by it.
long long kv_pool_blocks(const std::vector<Request>& workload, int slots, const KvSettings& kv);

// A block is in one of three states: held by one or more requests; cached (prefix reuse: it holds the KV
// of a known content and nobody holds it, so it is found by a later request with the same prefix, or
// evicted when a block is needed); or free. Every block has an id (0, 1, ... below the budget, handed out
// as needed and reused once free), and a request holds its blocks as a block table, in the order of its
// positions: the real backend stores the model's keys and values in those very blocks (serve/engine.h),
// so the blocks the simulator prices are the blocks the model reads.
class KvBlockManager {
 public:
  // `requests`: the server's (workload order), which the request arguments below belong to.
  // `reuse_prefixes`: full blocks are keyed by content and found again (docs/memory.md, "Prefix reuse").
  KvBlockManager(const KvSettings& settings, const std::vector<RequestState>& requests, bool reuse_prefixes);

  long long held_blocks() const { return held_blocks_; }
  // Token slots of held blocks that hold KV.
  long long used_tokens() const { return used_slots_; }

  // Tokens at the start of a prefill of `prefill_tokens` tokens of `request` that are in the cache: whole
  // blocks, as long a run from the first block as is cached, leaving at least one token to compute (the
  // step that computes it gives the next token). 0 without prefix reuse.
  int cached_prefix_tokens(const RequestState& request, int prefill_tokens) const;
  // Gives `request` (holding nothing) the blocks of its first `hold_positions` positions: the cached ones
  // of its first `cached_tokens` (from cached_prefix_tokens) are claimed, the others allocated, evicting
  // cached blocks least recently used first when no block is free. False, with nothing changed, if they
  // do not fit. `prefill_tokens` (its prefill's length) counts towards the prefix hit rate.
  bool admit(const RequestState& request, int cached_tokens, int hold_positions, int prefill_tokens);
  // Makes `request` hold blocks for `positions` positions; false, with nothing changed, if it needs a new
  // block and none is free or cached.
  bool grow(const RequestState& request, int positions);
  // `request`'s KV now holds request.kv_positions() positions: they count as used, and (prefix reuse) each
  // block that is now full gets its content key, unless an equal block is cached already.
  void note_computed(const RequestState& request);
  // Frees all of `request`'s blocks. With prefix reuse, its keyed blocks stay cached, its last block ahead
  // of its first in the eviction order.
  void release(const RequestState& request);
  // `request`'s block table: the ids of the blocks of its positions 0 .. block_tokens-1, block_tokens ..
  const std::vector<int>& block_table(const RequestState& request) const {
    return holdings_[static_cast<size_t>(&request - first_request_)].blocks;
  }
  // Requests holding block `block` (0: cached or free).
  int holders(int block) const { return block_refs_[static_cast<size_t>(block)]; }
  // Block ids handed out so far (one more than the largest; at most the budget).
  int block_ids() const { return static_cast<int>(block_refs_.size()); }

  // Accounts a step of `step_ms` that ended at `end_ms` with the blocks held now: the peak, the
  // time-weighted allocated and unused slots (waste), and the sampled series of blocks in use.
  void record_step(double step_ms, double end_ms);

  KvBlockReport report() const;

 private:
  struct Holding {
    std::vector<int> blocks;    // its block table: block ids, first position's first
    int positions = 0;          // KV positions it holds (counted as used)
    int next_block_to_key = 0;  // its first block not yet offered a content key
  };

  Holding& holding(const RequestState& request) { return holdings_[static_cast<size_t>(&request - first_request_)]; }
  uint64_t content_key(const RequestState& request, int block) const;
  // Appends `count` free blocks to `h`'s table, evicting cached ones when there are too few.
  void take_free_blocks(Holding& h, long long count);
  void evict_least_recently_used();
  void give_key(int block, uint64_t key);
  void lru_append(int block);
  void lru_remove(int block);
  // Counts work on keyed blocks against the bound that keeps a simulation from running on for minutes.
  void count_block_work(long long blocks) const;

  KvSettings settings_;
  bool reuse_prefixes_;
  const RequestState* first_request_;
  std::vector<Holding> holdings_;  // per request, workload order

  long long free_blocks_;        // neither held nor cached (free ids, and ids never handed out)
  long long held_blocks_ = 0;    // held by at least one request
  long long cached_blocks_ = 0;  // keyed, held by none
  long long used_slots_ = 0;     // token slots of held blocks that hold KV

  // Per block id: its holders, its content key (kPlain if none) and, for cached blocks, its neighbours in
  // a doubly linked list, least recently used at the head.
  std::vector<int> block_refs_, lru_prev_, lru_next_;
  std::vector<uint64_t> block_key_;
  std::vector<int> free_ids_;  // ids of freed blocks, handed out again before new ones
  int lru_head_ = -1, lru_tail_ = -1;
  std::unordered_map<uint64_t, int> block_of_key_;
  mutable long long block_work_ = 0;

  long long peak_held_blocks_ = 0;
  double allocated_slot_ms_ = 0, unused_slot_ms_ = 0;  // slots x ms, summed over steps
  long long looked_up_tokens_ = 0, hit_tokens_ = 0;
  StepSeries blocks_in_use_;
};

}  // namespace kvlab::policy
