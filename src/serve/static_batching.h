#pragma once
// `static:B` for real: a batch takes up to B arrived requests in queue order into slots 0 .. R-1,
// prefills them one after another, then runs decode steps over all R rows until the longest answer is
// done. Finished rows stay in every step as padding, computing, until the batch ends.
#include <vector>

#include "serve/scheduler.h"

namespace kvlab::serve {

class StaticBatching : public Scheduler {
 public:
  explicit StaticBatching(int max_batch_rows) : max_batch_rows_(max_batch_rows) {}
  int slots() const override { return max_batch_rows_; }
  void serve(Engine& engine) override;

 private:
  int max_batch_rows_;
};

}  // namespace kvlab::serve
