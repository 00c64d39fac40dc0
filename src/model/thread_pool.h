#pragma once
// The forward pass's threads: started once with the pool and reused by every step. run() is one
// fork and one join: each thread (the caller is thread 0) runs the task once with its index, and run()
// returns when all have returned. A waiting thread spins briefly before it sleeps, so a step's many
// forks stay cheap while the threads are busy and an idle pool costs nothing.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace kvlab {

// The most threads a model runs on natively.
constexpr int kMaxThreads = 64;

// The most threads a model runs on in this build (the `threads` setting's upper end): kMaxThreads
// natively; in the threaded wasm module its limit KVLAB_WASM_MAX_THREADS (its workers are started with
// the module: src/wasm/CMakeLists.txt); 1 in a wasm module without threads.
int max_threads();

// The threads this device offers (std::thread::hardware_concurrency), within 1 .. max_threads().
int device_threads();

// Where thread `index` of `n_threads` starts in n_items items split into contiguous shares (equal to
// within one item); thread index's share ends where thread index + 1's starts.
int share_start(int n_items, int n_threads, int index);

// Where thread `index` of `n_threads` starts in n_groups * group_size items, group g's items costing
// cost(g) > 0 each: contiguous shares of equal cost, to within one item's cost. Attention splits by it:
// in a prefill the later rows attend to more positions, and shares of equal count would leave the last
// thread most of the work.
template <class Cost>
int share_start_by_cost(int n_groups, int group_size, const Cost& cost, int n_threads, int index) {
  int64_t total = 0;
  for (int g = 0; g < n_groups; ++g) total += static_cast<int64_t>(group_size) * cost(g);
  const int64_t target = total * index / n_threads;
  int64_t before = 0;  // the cost of the groups before g
  for (int g = 0; g < n_groups; ++g) {
    const int64_t item_cost = cost(g);
    // The first item whose preceding items cost at least the target, if it is in this group.
    if (before + (group_size - 1) * item_cost >= target)
      return g * group_size + static_cast<int>(std::max<int64_t>(0, (target - before + item_cost - 1) / item_cost));
    before += group_size * item_cost;
  }
  return n_groups * group_size;
}

class ThreadPool {
 public:
  // n_threads in 1 .. max_threads() (callers check their inputs); n_threads - 1 threads are started.
  explicit ThreadPool(int n_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  // Runs task(index) for index 0 .. size() - 1 at once, index 0 on the calling thread.
  template <class Task>
  void run(const Task& task) {
    run_erased([](const void* t, int index) { (*static_cast<const Task*>(t))(index); }, &task);
  }

 private:
  using Invoke = void (*)(const void* task, int index);
  void run_erased(Invoke invoke, const void* task);
  void work(int index);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable start_;
  std::condition_variable done_;
  std::atomic<uint64_t> generation_{0};  // one more per run(); a worker runs each generation once
  std::atomic<int> pending_{0};          // workers still running this generation's task
  Invoke invoke_ = nullptr;
  const void* task_ = nullptr;
  bool stopping_ = false;
};

}  // namespace kvlab
