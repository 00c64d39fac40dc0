#pragma once
// The bookkeeping every policy shares (in the manner of Vidur's simulator): one server's clock, the
// queue in arrival order, each request's progress, and the count of steps run. A policy decides what
// runs next; it moves time and tokens only through the primitives below, so that prefills, token steps,
// first-token and finish times mean the same under every policy.
#include <cstddef>
#include <vector>

#include "sim/playback_log.h"
#include "sim/request.h"
#include "sim/step_table.h"

namespace kvlab::sim {

// Part of a (re)prefill run in one step: the next `tokens` tokens of `request`'s prefill.
struct PrefillChunk {
  RequestState* request;
  int tokens;
};

class ServerState {
 public:
  ServerState(const StepTable& steps, const std::vector<Request>& workload);

  const StepTable& steps() const { return steps_; }
  double now_ms() const { return clock_ms_; }
  // Cost of the last step run (0 before the first).
  double last_step_ms() const { return last_step_ms_; }

  // The queue: requests not yet taken, in arrival order (ties keep workload order).
  bool queue_empty() const { return next_queued_ == queue_.size(); }
  // Whether the next queued request has arrived by now (false when the queue is empty).
  bool next_has_arrived() const;
  // Idles the server until the next queued request has arrived (no-op if it already has).
  void wait_for_next_arrival();
  // The next queued request, left in the queue (the queue must not be empty).
  const RequestState& peek_next() const { return requests_[queue_[next_queued_]]; }
  // Removes the next queued request and hands it to the policy.
  RequestState& take_next();
  // Puts a taken request back at the front of the queue (preemption by recompute): it is next again.
  void requeue_front(RequestState& request);

  // Prefill of `request` alone, occupying `slot`: its first token is ready at the end, and an answer
  // of one token finishes there.
  void run_prefill(RequestState& request, int slot);
  // One forward step costing `cost_ms` over `rows`: each unfinished row gets its next token, and rows
  // that now hold all their tokens finish at the end of the step. Finished rows may ride along (padding).
  void run_token_step(double cost_ms, const std::vector<RequestState*>& rows) { run_step(cost_ms, rows, {}); }

  // The primitives of policies that preempt, reuse cached prefixes or chunk prefills.
  // Begins a (re)prefill of `request` in `slot` over its prompt and the tokens it already has
  // (next_context() tokens), of which the first `cached_tokens` are found in the KV cache. The prefill
  // start time is kept from the first admission.
  void begin_prefill(RequestState& request, int slot, int cached_tokens);
  // A step costing `cost_ms` that runs the rest of `request`'s begun prefill alone and gives its next token.
  void run_prefill_rest(RequestState& request, double cost_ms);
  // One forward step costing `cost_ms`: every unfinished row of `decode_rows` gets its next token, and
  // every chunk advances its request's prefill; a prefill that completes gives its request's next token
  // (the first token, the first time). Requests holding all their tokens finish at the end of the step.
  void run_step(double cost_ms, const std::vector<RequestState*>& decode_rows, const std::vector<PrefillChunk>& chunks);

  // Records seats (and, through KvMemory, memory) into `log` from now on; nullptr (the default) records nothing.
  void record_playback(PlaybackLog* log) { log_ = log; }
  PlaybackLog* playback_log() const { return log_; }

  long long steps_run() const { return steps_run_; }
  size_t finished_count() const { return finished_count_; }
  // Every request, in workload order; index_of(state) is its position there.
  const std::vector<RequestState>& requests() const { return requests_; }
  size_t index_of(const RequestState& state) const { return static_cast<size_t>(&state - requests_.data()); }

 private:
  // Moves the clock by one step of `rows` rows (padding and prefill chunks included) costing `cost_ms`.
  void advance(double cost_ms, size_t rows);
  void complete_prefill(RequestState& request);
  void finish_if_done(RequestState& request);

  const StepTable& steps_;
  std::vector<RequestState> requests_;  // workload order; never resized, so policies may keep pointers
  std::vector<size_t> queue_;           // indices into requests_, in arrival order
  size_t next_queued_ = 0;
  double clock_ms_ = 0;
  double last_step_ms_ = 0;
  long long steps_run_ = 0;
  long long row_steps_ = 0;  // rows summed over steps, finished rows included: the work done so far
  size_t finished_count_ = 0;
  PlaybackLog* log_ = nullptr;
};

}  // namespace kvlab::sim
