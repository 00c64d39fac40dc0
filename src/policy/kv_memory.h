#pragma once
// The KV-memory side shared by the reserve, paged and chunked policies: a block manager, admission, and
// preemption by recompute with its counts (docs/memory.md).
#include <string>
#include <vector>

#include "common/input_error.h"
#include "policy/kv_blocks.h"
#include "policy/server_state.h"
#include "policy/slot_pool.h"

namespace kvlab::policy {

// Throws an InputError naming the budget's field unless every request of `workload` fits the memory
// alone: blocks for positions_alone(request) positions, which `need` describes in the message
// ("prompt + answer - 1"). A request that cannot fit alone could never be served.
template <class PositionsAlone>
void check_each_request_fits(const KvSettings& settings, const std::vector<Request>& workload,
                             PositionsAlone positions_alone, const char* need);

// check_each_request_fits() for paged memory (paged, chunked): alone, a request grows to its whole
// sequence, prompt + answer - 1 positions.
void check_paged_fits(const KvSettings& settings, const std::vector<Request>& workload);

class KvMemory {
 public:
  // The memory of a policy serving `server`'s requests; prefix reuse is on when `reuse_shared_prefixes` and
  // the workload shares prefixes.
  KvMemory(const KvSettings& settings, ServerState& server, bool reuse_shared_prefixes);

  // Tokens at the start of `next`'s (re)prefill that are in the cache.
  int cached_prefix_tokens(const RequestState& next) const {
    return blocks_.cached_prefix_tokens(next, next.next_context());
  }
  // Takes the blocks of `next`'s (re)prefill, claiming its cached prefix (`cached_tokens`), and holds at
  // least `hold_positions` positions; false if they do not fit now. Counts the tokens recomputed after
  // a preemption.
  bool admit(const RequestState& next, int cached_tokens, int hold_positions);
  // Gives every decoding request of `running` (admission order) the block its next token needs, oldest
  // first; when none is free, preempts the most recently admitted running request (the row itself if it
  // is the last) by recompute, as vLLM does.
  void make_room_for_decodes(std::vector<RequestState*>& running, SlotPool& slots);

  void note_computed(const RequestState& request) { blocks_.note_computed(request); }
  void record_step() {
    blocks_.record_step(server_.last_step_ms(), server_.now_ms());
    log_use();
  }
  void leave(const RequestState& request) {
    blocks_.release(request);
    log_use();
  }

  KvMemoryReport report() const;

 private:
  // Frees the victim's blocks and slot and puts it back at the front of the queue.
  void preempt(RequestState& victim, SlotPool& slots);
  // The memory in use now, into the server's playback log if it keeps one.
  void log_use() const;

  ServerState& server_;
  KvBlockManager blocks_;
  std::vector<int> discarded_positions_;  // per request: KV positions it held when last preempted
  long long preemptions_ = 0;
  long long recomputed_tokens_ = 0;
};

template <class PositionsAlone>
void check_each_request_fits(const KvSettings& settings, const std::vector<Request>& workload,
                             PositionsAlone positions_alone, const char* need) {
  if (!settings.budget_blocks) return;
  for (size_t i = 0; i < workload.size(); ++i) {
    long long positions = positions_alone(workload[i]);
    long long blocks = settings.blocks_for(positions);
    if (blocks > *settings.budget_blocks)
      throw_range({settings.budget_path, settings.budget_given, {}},
                  "= " + settings.budget_given + " holds " + std::to_string(*settings.budget_blocks) + " blocks of " +
                      std::to_string(settings.block_tokens) + " tokens, but request " + std::to_string(i) +
                      " alone needs " + std::to_string(blocks) + " (" + need + " = " + std::to_string(positions) +
                      " positions)");
  }
}

}  // namespace kvlab::policy
