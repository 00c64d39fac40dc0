#include "sim/server_state.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "common/input_error.h"

namespace kvlab::sim {

namespace {

// Padding can make a static batch cost far more row-steps than the workload has tokens (B rows for as
// long as its longest answer); past this bound (a few seconds natively, at about 70 million row-steps/s)
// a simulation stops with an error instead of running on. It is 3x the workload's token limit, so
// padding of up to 3x is always simulated.
constexpr long long kMaxRowSteps = 300'000'000;

}  // namespace

ServerState::ServerState(const StepTable& steps, const std::vector<Request>& workload)
    : steps_(steps), queue_(workload.size()) {
  requests_.reserve(workload.size());
  for (const Request& request : workload) requests_.push_back(RequestState{request});
  std::iota(queue_.begin(), queue_.end(), size_t{0});
  std::stable_sort(queue_.begin(), queue_.end(), [&](size_t a, size_t b) {
    return requests_[a].request.arrival_ms < requests_[b].request.arrival_ms;
  });
}

bool ServerState::next_has_arrived() const {
  return !queue_empty() && requests_[queue_[next_queued_]].request.arrival_ms <= clock_ms_;
}

void ServerState::wait_for_next_arrival() {
  clock_ms_ = std::max(clock_ms_, requests_[queue_[next_queued_]].request.arrival_ms);
}

RequestState& ServerState::take_next() { return requests_[queue_[next_queued_++]]; }

void ServerState::requeue_front(RequestState& request) {
  // The entry before next_queued_ belongs to a request already taken, so it can be reused: no allocation.
  queue_[--next_queued_] = index_of(request);
  if (log_) log_->leave(index_of(request), clock_ms_);
}

void ServerState::run_prefill(RequestState& request, int slot) {
  begin_prefill(request, slot, 0);
  run_prefill_rest(request, steps_.prefill_ms(request.request.prompt_tokens));
}

void ServerState::begin_prefill(RequestState& request, int slot, int cached_tokens) {
  request.slot = slot;
  if (request.admissions++ == 0) request.prefill_start_ms = clock_ms_;
  request.prefill_tokens = request.next_context();
  request.prefilled_tokens = cached_tokens;
  if (log_) log_->admit(index_of(request), slot, clock_ms_, request.answer_tokens_out);
}

void ServerState::run_prefill_rest(RequestState& request, double cost_ms) {
  advance(cost_ms, 1);
  complete_prefill(request);
}

void ServerState::run_step(double cost_ms, const std::vector<RequestState*>& decode_rows,
                           const std::vector<PrefillChunk>& chunks) {
  advance(cost_ms, decode_rows.size() + chunks.size());
  for (RequestState* row : decode_rows) {
    if (row->finished()) {
      if (log_) log_->ride_along(index_of(*row), clock_ms_);
      continue;
    }
    ++row->answer_tokens_out;
    finish_if_done(*row);
  }
  for (const PrefillChunk& chunk : chunks) {
    chunk.request->prefilled_tokens += chunk.tokens;
    if (!chunk.request->prefilling()) complete_prefill(*chunk.request);
  }
}

void ServerState::advance(double cost_ms, size_t rows) {
  row_steps_ += static_cast<long long>(rows);
  if (row_steps_ > kMaxRowSteps)
    throw_range({"workload", "", {}}, ": this policy would run more than " + std::to_string(kMaxRowSteps) +
                " row-steps (rows summed over steps); simulate fewer or shorter requests or a smaller batch");
  clock_ms_ += cost_ms;
  last_step_ms_ = cost_ms;
  ++steps_run_;
}

void ServerState::complete_prefill(RequestState& request) {
  request.prefilled_tokens = request.prefill_tokens;
  if (request.answer_tokens_out == 0) request.first_token_ms = clock_ms_;
  ++request.answer_tokens_out;
  finish_if_done(request);
}

void ServerState::finish_if_done(RequestState& request) {
  if (!request.finished()) return;
  request.finish_ms = clock_ms_;
  ++finished_count_;
  if (log_) log_->leave(index_of(request), clock_ms_);
}

}  // namespace kvlab::sim
