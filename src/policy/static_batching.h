#pragma once
// `static:B`: a batch takes up to B arrived requests into slots 0 .. R-1, prefills them one after
// another, then decodes until its longest answer is done; finished rows stay in every step as padding,
// computing, until the batch ends. The next batch waits for the last step.
#include "policy/scheduler.h"

namespace kvlab::policy {

class StaticBatching : public Scheduler {
 public:
  explicit StaticBatching(int max_batch_rows) : max_batch_rows_(max_batch_rows) {}
  int slots() const override { return max_batch_rows_; }
  void serve(ServerState& server) override;

 private:
  int max_batch_rows_;
};

}  // namespace kvlab::policy
