#include "policy/kv_batching.h"

namespace kvlab::policy {

void KvBatching::serve(ServerState& server) {
  memory_.emplace(settings_, server, reuses_prefixes());
  ContinuousBatching::serve(server);
}

bool KvBatching::take_memory(const RequestState& next) {
  admitted_cached_tokens_ = memory_->cached_prefix_tokens(next);
  return memory_->admit(next, admitted_cached_tokens_, hold_positions(next));
}

void KvBatching::prefill(ServerState& server, RequestState& request, int slot) {
  server.prefill(request, slot, admitted_cached_tokens_);
  memory_->note_computed(request);
  memory_->record_step();
}

void KvBatching::after_decode_step(const std::vector<RequestState*>& active) {
  for (const RequestState* row : active) memory_->note_computed(*row);
  memory_->record_step();
}

void ReserveBatching::check(const std::vector<Request>& workload) const {
  const int longest = longest_answer_tokens(workload);
  check_each_request_fits(
      settings_, workload, [&](const Request& r) { return static_cast<long long>(r.prompt_tokens) + longest - 1; },
      "prompt + the longest answer - 1");
}

void ReserveBatching::serve(ServerState& server) {
  longest_answer_tokens_ = longest_answer_tokens(server.requests());
  KvBatching::serve(server);
}

int ReserveBatching::hold_positions(const RequestState& next) const {
  return next.request.prompt_tokens + longest_answer_tokens_ - 1;
}

void PagedBatching::check(const std::vector<Request>& workload) const { check_paged_fits(settings_, workload); }

void PagedBatching::make_room(std::vector<RequestState*>& active, SlotPool& slots) {
  memory_->make_room_for_decodes(active, slots);
}

}  // namespace kvlab::policy
