#pragma once
// The real server: a queue of requests, slots with their own KV caches, and the real model's forward
// passes, on the real clock. Like the simulator's ServerState it is the bookkeeping every policy shares,
// and a policy (serve/scheduler.h) moves tokens only through its primitives; unlike it, time is never
// computed: it is read from the clock when each forward pass is done.
//
// Everything a run needs (caches, prompts, answers, scratch rows, the step log) is allocated before the
// clock starts; a forward pass allocates nothing.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "model/model.h"
#include "serve/run_clock.h"
#include "serve/served_request.h"
#include "serve/slot.h"
#include "serve/step_log.h"
#include "sim/request.h"

namespace kvlab::serve {

struct EngineOptions {
  // Request i's prompt is make_prompt(p_i, vocab, prompt_seed + i), i in workload order.
  uint64_t prompt_seed = 1;
  // Called with the count of finished requests, after the step that finished one, at most every 100 ms.
  std::function<void(size_t finished_requests)> progress;
};

// Positions a slot's cache needs for `workload`: the longest prompt + the longest answer - 1. A request
// alone needs p + n - 1 (its last token is never fed back), but a padding row of a static batch runs on
// to its batch's longest answer, so a long prompt may share a batch with a long answer.
int cache_positions(const std::vector<sim::Request>& workload);

// Throws InputError naming `path` when cache_positions(workload) exceeds the model's max_seq.
void check_workload_fits(const ModelConfig& config, const std::vector<sim::Request>& workload, const std::string& path);

class Engine {
 public:
  // `slots` slots (at most one per request: more could never be busy at once). The clock starts at 0 at
  // the end of construction, after a warm-up forward pass that is not logged.
  Engine(Model& model, const std::vector<sim::Request>& workload, int slots, const EngineOptions& options);

  // The queue: requests not yet taken, in arrival order (ties keep workload order).
  bool queue_empty() const { return next_queued_ == queue_.size(); }
  // Whether the next queued request has arrived by the clock now (false when the queue is empty).
  bool next_has_arrived() const;
  // Waits, without running anything, until the next queued request has arrived.
  void wait_for_next_arrival();
  ServedRequest& take_next() { return requests_[queue_[next_queued_++]]; }

  int slot_count() const { return static_cast<int>(slots_.size()); }
  Slot& slot(int index) { return slots_[static_cast<size_t>(index)]; }
  // The idle slot of lowest index, or nullptr: a freed slot is reused lowest index first.
  Slot* lowest_idle_slot();

  // The forward passes. Each reads the clock when its tokens are ready, and that is the time of every
  // first token and finish it produces.
  // Prefill of `request`'s prompt alone into idle `slot`, which gives its first token.
  void prefill(Slot& slot, ServedRequest& request);
  // One decode step over `rows` (generating or padding slots), each at its own context.
  void decode_step(const std::vector<Slot*>& rows);
  // No cache: the whole sequence so far (prompt and answer) rerun into `slot`'s cleared cache.
  void nocache_step(Slot& slot);

  double now_ms() const { return clock_.now_ms(); }
  long long steps_run() const { return static_cast<long long>(step_log_.records().size()); }
  size_t finished_count() const { return finished_count_; }
  std::vector<ServedRequest>& requests() { return requests_; }
  const StepLog& step_log() const { return step_log_; }

 private:
  // Runs rows_ through the model; wanted rows' greedy tokens go to tokens_, in row order.
  void forward();
  // Logs the step and counts the requests it finished; reports progress now and then.
  void end_step(StepKind kind, double start_ms, double end_ms, int finished);
  void warm_up();

  Model& model_;
  EngineOptions options_;
  std::vector<ServedRequest> requests_;  // workload order; never resized, so slots may keep pointers
  std::vector<size_t> queue_;            // indices into requests_, in arrival order
  size_t next_queued_ = 0;
  std::vector<Slot> slots_;
  std::vector<Row> rows_;         // the forward pass being built
  std::vector<int> tokens_;       // its greedy tokens, one per row that wants logits
  std::vector<int> contexts_;     // its sequences' contexts, for the step log
  StepLog step_log_;
  size_t finished_count_ = 0;
  double last_progress_ms_ = 0;
  RunClock clock_;
};

}  // namespace kvlab::serve
