#pragma once
// The backend interface every serving policy runs against (in the manner of Vidur, where a scheduler
// decides the next batch and a separate predictor prices it): the queue and the clock, each request's
// progress, and the forward passes a policy can ask for. A policy (scheduler.h) decides what runs next;
// a backend carries it out. Two backends implement the passes: PricedServer (priced_server.h) prices
// each one on the measured step table and moves a simulated clock; serve::Engine runs each one through
// the model and reads the real clock. The bookkeeping after a pass (tokens out, first-token and finish
// times, the playback log) is this class's, so it means the same on both.
#include <cstddef>
#include <functional>
#include <vector>

#include "policy/playback_log.h"
#include "policy/request.h"

namespace kvlab::policy {

class KvBlockManager;

// Part of a (re)prefill run in one step: the next `tokens` tokens of `request`'s prefill.
struct PrefillChunk {
  RequestState* request;
  int tokens;
};

class ServerState {
 public:
  explicit ServerState(const std::vector<Request>& workload);
  virtual ~ServerState() = default;
  ServerState(const ServerState&) = delete;
  ServerState& operator=(const ServerState&) = delete;

  // The clock: ms since the run started, simulated or real.
  virtual double now_ms() const = 0;
  // Length of the last step run (0 before the first).
  double last_step_ms() const { return last_step_ms_; }

  // The queue: requests not yet taken, in arrival order (ties keep workload order).
  bool queue_empty() const { return next_queued_ == queue_.size(); }
  // Whether the next queued request has arrived by now (false when the queue is empty).
  bool next_has_arrived() const;
  // Idles the server until the next queued request has arrived (no-op if it already has or none is left).
  void wait_for_next_arrival();
  // The next queued request, left in the queue (the queue must not be empty).
  const RequestState& peek_next() const { return requests_[queue_[next_queued_]]; }
  // Removes the next queued request and hands it to the policy.
  RequestState& take_next() { return requests_[queue_[next_queued_++]]; }
  // Puts a taken request back at the front of the queue (preemption by recompute): it is next again.
  void requeue_front(RequestState& request);

  // The forward passes a policy asks for.
  // Prefill of `request` alone, into `slot`, of its prompt and the tokens it already has, the first
  // `cached_tokens` of which are found in the KV cache: it gives the request's next token (the first, the
  // first time), and an answer that is then complete finishes there.
  void prefill(RequestState& request, int slot, int cached_tokens = 0) {
    begin_prefill(request, slot, cached_tokens);
    run_prefill_rest(request);
  }
  // One decode step over `rows`, each at its own context: every unfinished row gets its next token, and
  // rows that now hold all their tokens finish at the end of the step. Finished rows may ride along as
  // padding (a static batch), computing a token that is dropped.
  virtual void decode_step(const std::vector<RequestState*>& rows) = 0;
  // No KV cache: the whole sequence so far of `request` (prompt and answer) run again, for its next token.
  virtual void nocache_step(RequestState& request) = 0;
  // One step that runs the decode rows and the prefill chunks together (chunked prefill): every
  // unfinished row of `decode_rows` gets its next token, and every chunk advances its request's begun
  // prefill; a prefill that completes gives its request's next token.
  virtual void mixed_step(const std::vector<RequestState*>& decode_rows, const std::vector<PrefillChunk>& chunks) = 0;

  // Begins a (re)prefill of `request` in `slot` over its prompt and the tokens it already has
  // (next_context() tokens), of which the first `cached_tokens` are found in the KV cache. The prefill
  // start time is kept from the first admission. Chunks (mixed_step) or run_prefill_rest() then run it.
  void begin_prefill(RequestState& request, int slot, int cached_tokens);
  // A step that runs the rest of `request`'s begun prefill alone and gives its next token.
  virtual void run_prefill_rest(RequestState& request) = 0;

  // Records seats (and, through KvMemory, memory) into `log` from now on; nullptr (the default) records nothing.
  void record_playback(PlaybackLog* log) { log_ = log; }
  // Calls `on_finished` with finished_count() each time a request finishes (for progress); none by default.
  void report_finished(std::function<void(size_t finished)> on_finished) { on_finished_ = std::move(on_finished); }
  PlaybackLog* playback_log() const { return log_; }
  // The KV blocks of the policy's memory (paged and chunked: KvMemory attaches its block manager): which
  // blocks each request holds, the ones a real backend stores its keys and values in. nullptr without.
  void attach_kv_blocks(const KvBlockManager* blocks) { kv_blocks_ = blocks; }
  const KvBlockManager* kv_blocks() const { return kv_blocks_; }

  long long steps_run() const { return steps_run_; }
  size_t finished_count() const { return finished_count_; }
  // Every request, in workload order; index_of(state) is its position there.
  const std::vector<RequestState>& requests() const { return requests_; }
  size_t index_of(const RequestState& state) const { return static_cast<size_t>(&state - requests_.data()); }

 protected:
  // Returns once now_ms() >= ms (a simulated clock jumps there).
  virtual void wait_until(double ms) = 0;
  // Counts a step of `rows` rows (padding and prefill chunks included) that takes `step_ms`, before its
  // tokens are booked; throws an InputError once the run exceeds its bound of row-steps.
  void count_step(double step_ms, size_t rows);
  // The bookkeeping of a pass that ran `decode_rows` and `chunks` (run_prefill_rest: one chunk of the
  // whole rest) and ended at `end_ms`: tokens out, first-token and finish times.
  void complete_step(double end_ms, const std::vector<RequestState*>& decode_rows,
                     const std::vector<PrefillChunk>& chunks);
  void complete_prefill(double end_ms, RequestState& request);

 private:
  void finish_if_done(double end_ms, RequestState& request);

  std::vector<RequestState> requests_;  // workload order; never resized, so policies may keep pointers
  std::vector<size_t> queue_;           // indices into requests_, in arrival order
  size_t next_queued_ = 0;
  double last_step_ms_ = 0;
  long long steps_run_ = 0;
  long long row_steps_ = 0;  // rows summed over steps, finished rows included: the work done so far
  size_t finished_count_ = 0;
  PlaybackLog* log_ = nullptr;
  std::function<void(size_t finished)> on_finished_;
  const KvBlockManager* kv_blocks_ = nullptr;
};

}  // namespace kvlab::policy
