#pragma once
// The slots of a batching server, numbered 0 .. count - 1. A freed slot is reused lowest index first, so
// that the timeline packs rows at the top.
#include <functional>
#include <queue>
#include <vector>

namespace kvlab::policy {

class SlotPool {
 public:
  explicit SlotPool(int count) {
    std::vector<int> storage;
    storage.reserve(static_cast<size_t>(count));  // never grows past it: no allocation while serving
    free_ = Queue(std::greater<int>(), std::move(storage));
    for (int slot = 0; slot < count; ++slot) free_.push(slot);
  }

  bool empty() const { return free_.empty(); }
  int take() {
    int slot = free_.top();
    free_.pop();
    return slot;
  }
  void give_back(int slot) { free_.push(slot); }

 private:
  using Queue = std::priority_queue<int, std::vector<int>, std::greater<int>>;
  Queue free_;
};

}  // namespace kvlab::policy
