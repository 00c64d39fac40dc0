#include "policy/chunked_prefill.h"

#include <algorithm>

#include "policy/slot_pool.h"

namespace kvlab::policy {

void ChunkedPrefill::check(const std::vector<Request>& workload) const { check_paged_fits(settings_, workload); }

void ChunkedPrefill::serve(ServerState& server) {
  KvMemory& memory = memory_.emplace(settings_, server, true);
  split_prefills_ = 0;
  std::vector<RequestState*> running, decode_rows;  // admission order
  std::vector<PrefillChunk> chunks;
  running.reserve(static_cast<size_t>(slots_));
  decode_rows.reserve(static_cast<size_t>(slots_));
  chunks.reserve(static_cast<size_t>(slots_));
  SlotPool slots(slots_);

  while (!server.queue_empty() || !running.empty()) {
    memory.make_room_for_decodes(running, slots);
    decode_rows.clear();
    chunks.clear();
    // (1) A decode row for every request past its prefill: at most B <= T tokens.
    for (RequestState* request : running)
      if (!request->prefilling()) decode_rows.push_back(request);
    int tokens_left = step_tokens_ - static_cast<int>(decode_rows.size());
    // (2) The prefill in progress (only one is ever cut, below) continues.
    for (RequestState* request : running) {
      if (!request->prefilling() || tokens_left == 0) continue;
      int tokens = std::min(request->prefill_tokens - request->prefilled_tokens, tokens_left);
      chunks.push_back({request, tokens});
      tokens_left -= tokens;
    }
    // (3) New requests in queue order while a slot is free, tokens are left and memory takes the whole
    // prefill's blocks. A prompt is cut only as the step's first prefill (it could never fit otherwise):
    // one that does not fit what is left waits for the next step rather than being cut to top it up, so
    // with T >= prompt + B no prompt is ever cut.
    while (tokens_left > 0 && !slots.empty() && server.next_has_arrived()) {
      const RequestState& next = server.peek_next();
      int cached_tokens = memory.cached_prefix_tokens(next);
      int uncached_tokens = next.next_context() - cached_tokens;
      if (uncached_tokens > tokens_left && !chunks.empty()) break;
      if (!memory.admit(next, cached_tokens, next.next_context())) break;
      RequestState& request = server.take_next();
      server.begin_prefill(request, slots.take(), cached_tokens);
      running.push_back(&request);
      int tokens = std::min(uncached_tokens, tokens_left);
      split_prefills_ += tokens < uncached_tokens;
      chunks.push_back({&request, tokens});
      tokens_left -= tokens;
    }
    if (decode_rows.empty() && chunks.empty()) {
      // Nothing running and nothing arrived: jump to the next arrival.
      server.wait_for_next_arrival();
      continue;
    }
    server.mixed_step(decode_rows, chunks);
    for (const RequestState* request : decode_rows) memory.note_computed(*request);
    for (const PrefillChunk& chunk : chunks) memory.note_computed(*chunk.request);
    memory.record_step();
    for (const RequestState* request : running) {
      if (!request->finished()) continue;
      memory.leave(*request);
      slots.give_back(request->slot);
    }
    running.erase(std::remove_if(running.begin(), running.end(), [](const RequestState* r) { return r->finished(); }),
                  running.end());
  }
}

std::optional<KvMemoryReport> ChunkedPrefill::memory_report() const {
  KvMemoryReport report = memory_->report();
  report.split_prefills = split_prefills_;
  return report;
}

}  // namespace kvlab::policy
