#include "policy/server_state.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "common/input_error.h"

namespace kvlab::policy {

namespace {

// Padding can make a static batch cost far more row-steps than the workload has tokens (B rows for as
// long as its longest answer); past this bound (a few seconds natively, at about 70 million row-steps/s)
// a simulation stops with an error instead of running on. It is 3x the workload's token limit, so
// padding of up to 3x is always simulated.
constexpr long long kMaxRowSteps = 300'000'000;

}  // namespace

ServerState::ServerState(const std::vector<Request>& workload) : queue_(workload.size()) {
  requests_.reserve(workload.size());
  for (const Request& request : workload) requests_.push_back(RequestState{request});
  std::iota(queue_.begin(), queue_.end(), size_t{0});
  std::stable_sort(queue_.begin(), queue_.end(), [&](size_t a, size_t b) {
    return requests_[a].request.arrival_ms < requests_[b].request.arrival_ms;
  });
}

bool ServerState::next_has_arrived() const {
  return !queue_empty() && requests_[queue_[next_queued_]].request.arrival_ms <= now_ms();
}

void ServerState::wait_for_next_arrival() {
  if (!queue_empty()) wait_until(requests_[queue_[next_queued_]].request.arrival_ms);
}

void ServerState::requeue_front(RequestState& request) {
  // The entry before next_queued_ belongs to a request already taken, so it can be reused: no allocation.
  queue_[--next_queued_] = index_of(request);
  if (log_) log_->leave(index_of(request), now_ms());
}

void ServerState::begin_prefill(RequestState& request, int slot, int cached_tokens) {
  request.slot = slot;
  if (request.admissions++ == 0) request.prefill_start_ms = now_ms();
  request.prefill_tokens = request.next_context();
  request.prefilled_tokens = cached_tokens;
  if (log_) log_->admit(index_of(request), slot, now_ms(), request.answer_tokens_out);
}

void ServerState::count_step(double step_ms, size_t rows) {
  row_steps_ += static_cast<long long>(rows);
  if (row_steps_ > kMaxRowSteps)
    throw_range({"workload", "", {}},
                ": this policy would run more than " + std::to_string(kMaxRowSteps) +
                    " row-steps (rows summed over steps); simulate fewer or shorter requests or a smaller batch");
  last_step_ms_ = step_ms;
  ++steps_run_;
}

void ServerState::complete_step(double end_ms, const std::vector<RequestState*>& decode_rows,
                                const std::vector<PrefillChunk>& chunks) {
  for (RequestState* row : decode_rows) {
    if (row->finished()) {
      ++row->padding_tokens;
      if (log_) log_->ride_along(index_of(*row), end_ms);
      continue;
    }
    ++row->answer_tokens_out;
    finish_if_done(end_ms, *row);
  }
  for (const PrefillChunk& chunk : chunks) {
    chunk.request->prefilled_tokens += chunk.tokens;
    if (!chunk.request->prefilling()) complete_prefill(end_ms, *chunk.request);
  }
}

void ServerState::complete_prefill(double end_ms, RequestState& request) {
  request.prefilled_tokens = request.prefill_tokens;
  if (request.answer_tokens_out == 0) request.first_token_ms = end_ms;
  ++request.answer_tokens_out;
  finish_if_done(end_ms, request);
}

void ServerState::finish_if_done(double end_ms, RequestState& request) {
  if (!request.finished()) return;
  request.finish_ms = end_ms;
  ++finished_count_;
  if (log_) log_->leave(index_of(request), end_ms);
  if (on_finished_) on_finished_(finished_count_);
}

}  // namespace kvlab::policy
