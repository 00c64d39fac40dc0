#pragma once
// `continuous:B`: B slots, rebuilt every iteration. Arrived requests are admitted into free slots one at a
// time (their prefill runs alone, decode paused); then one decode step runs over every active row, and
// rows that are done leave at once, freeing their slot.
//
// The KV-memory policies reserve:B and paged:B (kv_batching.h) are this loop with a memory: the hooks
// below are where they admit, price a prefill, make room and free memory. Here they model no memory.
#include <vector>

#include "policy/scheduler.h"
#include "policy/slot_pool.h"

namespace kvlab::policy {

class ContinuousBatching : public Scheduler {
 public:
  explicit ContinuousBatching(int slots) : slots_(slots) {}
  int slots() const override { return slots_; }
  void serve(ServerState& server) override;

 protected:
  // Whether memory admits `next` now; if it does, the memory is taken for it and it is admitted at once.
  virtual bool take_memory(const RequestState& /*next*/) { return true; }
  // The admitted request's prefill, alone.
  virtual void prefill(ServerState& server, RequestState& request, int slot) { server.prefill(request, slot); }
  // Before a decode step over `active` (admission order): may preempt rows, taking them out of `active`
  // and giving their slots back.
  virtual void make_room(std::vector<RequestState*>& /*active*/, SlotPool& /*slots*/) {}
  // After the decode step, before the rows that are done leave.
  virtual void after_decode_step(const std::vector<RequestState*>& /*active*/) {}
  // A request that is done leaves.
  virtual void leave(const RequestState& /*request*/) {}

 private:
  int slots_;
};

}  // namespace kvlab::policy
