#include "policy/kv_memory.h"

#include <algorithm>
#include <stdexcept>

namespace kvlab::policy {

namespace {

// Whether any request shares a prompt prefix (a system prompt, or turns of a conversation).
bool shares_prefixes(const std::vector<RequestState>& requests) {
  return std::any_of(requests.begin(), requests.end(),
                     [](const RequestState& state) { return state.request.shares_prefix(); });
}

}  // namespace

void check_paged_fits(const KvSettings& settings, const std::vector<Request>& workload) {
  check_each_request_fits(
      settings, workload,
      [](const Request& r) { return static_cast<long long>(r.prompt_tokens) + r.answer_tokens - 1; },
      "prompt + answer - 1");
}

KvMemory::KvMemory(const KvSettings& settings, ServerState& server, bool reuse_shared_prefixes)
    : server_(server),
      blocks_(settings, server.requests(), reuse_shared_prefixes && shares_prefixes(server.requests())),
      discarded_positions_(server.requests().size(), 0) {
  server.attach_kv_blocks(&blocks_);
  if (PlaybackLog* log = server.playback_log()) log->memory_budget(settings.budget_blocks, settings.block_tokens);
}

void KvMemory::log_use() const {
  if (PlaybackLog* log = server_.playback_log())
    log->memory_use(server_.now_ms(), blocks_.held_blocks(), blocks_.used_tokens());
}

bool KvMemory::admit(const RequestState& next, int cached_tokens, int hold_positions) {
  if (!blocks_.admit(next, cached_tokens, hold_positions, next.next_context())) {
    // With nothing held, the whole memory is free (or evictable): check_each_request_fits() promised room.
    if (blocks_.held_blocks() == 0) throw std::logic_error("KV memory refused a request with nothing else held");
    return false;
  }
  int& discarded = discarded_positions_[server_.index_of(next)];
  recomputed_tokens_ += std::max(0, discarded - cached_tokens);
  discarded = 0;
  log_use();
  return true;
}

void KvMemory::make_room_for_decodes(std::vector<RequestState*>& running, SlotPool& slots) {
  for (size_t i = 0; i < running.size(); ++i) {
    RequestState& row = *running[i];
    if (row.prefilling()) continue;  // its whole prefill's blocks were taken at admission
    while (!blocks_.grow(row, row.next_context())) {
      RequestState& victim = *running.back();
      running.pop_back();
      preempt(victim, slots);
      if (&victim == &row) break;
    }
  }
  log_use();
}

void KvMemory::preempt(RequestState& victim, SlotPool& slots) {
  discarded_positions_[server_.index_of(victim)] = victim.kv_positions();
  blocks_.release(victim);
  slots.give_back(victim.slot);
  server_.requeue_front(victim);
  ++preemptions_;
  if (PlaybackLog* log = server_.playback_log()) log->preemption(server_.index_of(victim), server_.now_ms());
}

KvMemoryReport KvMemory::report() const {
  KvMemoryReport report;
  report.blocks = blocks_.report();
  report.preemptions = preemptions_;
  report.recomputed_tokens = recomputed_tokens_;
  return report;
}

}  // namespace kvlab::policy
