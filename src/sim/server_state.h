#pragma once
// The bookkeeping every policy shares (in the manner of Vidur's simulator): one server's clock, the
// queue in arrival order, each request's progress, and the count of steps run. A policy decides what
// runs next; it moves time and tokens only through the primitives below, so that prefills, token steps,
// first-token and finish times mean the same under every policy.
#include <cstddef>
#include <vector>

#include "sim/request.h"
#include "sim/step_table.h"

namespace kvlab::sim {

class ServerState {
 public:
  ServerState(const StepTable& steps, const std::vector<Request>& workload);

  const StepTable& steps() const { return steps_; }
  double now_ms() const { return clock_ms_; }

  // The queue: requests not yet taken, in arrival order (ties keep workload order).
  bool queue_empty() const { return next_queued_ == queue_.size(); }
  // Whether the next queued request has arrived by now (false when the queue is empty).
  bool next_has_arrived() const;
  // Idles the server until the next queued request has arrived (no-op if it already has).
  void wait_for_next_arrival();
  // Removes the next queued request and hands it to the policy.
  RequestState& take_next();

  // Prefill of `request` alone, occupying `slot`: its first token is ready at the end, and an answer
  // of one token finishes there.
  void run_prefill(RequestState& request, int slot);
  // One forward step costing `cost_ms` over `rows`: each unfinished row gets its next token, and rows
  // that now hold all their tokens finish at the end of the step. Finished rows may ride along (padding).
  void run_token_step(double cost_ms, const std::vector<RequestState*>& rows);

  long long steps_run() const { return steps_run_; }
  size_t finished_count() const { return finished_count_; }
  // Every request, in workload order.
  const std::vector<RequestState>& requests() const { return requests_; }

 private:
  void finish_if_done(RequestState& request);

  const StepTable& steps_;
  std::vector<RequestState> requests_;  // workload order; never resized, so policies may keep pointers
  std::vector<size_t> queue_;           // indices into requests_, in arrival order
  size_t next_queued_ = 0;
  double clock_ms_ = 0;
  long long steps_run_ = 0;
  long long row_steps_ = 0;  // rows summed over steps, finished rows included: the work done so far
  size_t finished_count_ = 0;
};

}  // namespace kvlab::sim
