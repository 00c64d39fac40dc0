#include "model/thread_pool.h"

#include <algorithm>
#include <chrono>

namespace kvlab {

namespace {

// How long a waiting thread checks its flag before it sleeps. Longer than the serial work between two
// forks of a step and than the threads' shares differ by, so that a step's forks pay no sleep and wake
// (a futex call each, which costs tens of microseconds under some hypervisors); short enough that a
// pool idle between steps soon sleeps.
constexpr auto kSpinTime = std::chrono::microseconds(100);
// Checks between two readings of the clock.
constexpr int kChecksPerClockRead = 64;

template <class Ready>
bool spin_until(const Ready& ready) {
  const auto until = std::chrono::steady_clock::now() + kSpinTime;
  for (;;) {
    for (int i = 0; i < kChecksPerClockRead; ++i)
      if (ready()) return true;
    if (std::chrono::steady_clock::now() >= until) return false;
  }
}

}  // namespace

int max_threads() {
#if defined(KVLAB_WASM_MAX_THREADS)
  return KVLAB_WASM_MAX_THREADS;
#elif defined(__EMSCRIPTEN__)
  return 1;
#else
  return kMaxThreads;
#endif
}

int device_threads() {
  const unsigned offered = std::thread::hardware_concurrency();
  return std::clamp(static_cast<int>(offered), 1, max_threads());
}

int share_start(int n_items, int n_threads, int index) {
  return static_cast<int>(static_cast<int64_t>(n_items) * index / n_threads);
}

ThreadPool::ThreadPool(int n_threads) {
  workers_.reserve(n_threads - 1);
  for (int index = 1; index < n_threads; ++index) workers_.emplace_back([this, index] { work(index); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    generation_.fetch_add(1, std::memory_order_release);
  }
  start_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

void ThreadPool::run_erased(Invoke invoke, const void* task) {
  if (workers_.empty()) return invoke(task, 0);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    invoke_ = invoke;
    task_ = task;
    pending_.store(static_cast<int>(workers_.size()), std::memory_order_relaxed);
    generation_.fetch_add(1, std::memory_order_release);
  }
  start_.notify_all();
  invoke(task, 0);
  const auto all_done = [this] { return pending_.load(std::memory_order_acquire) == 0; };
  if (spin_until(all_done)) return;
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, all_done);
}

void ThreadPool::work(int index) {
  uint64_t seen = 0;
  for (;;) {
    const auto started = [&] { return generation_.load(std::memory_order_acquire) != seen; };
    if (!spin_until(started)) {
      std::unique_lock<std::mutex> lock(mutex_);
      start_.wait(lock, started);
    }
    // What run() wrote before it advanced the generation is visible here (release, then acquire), and
    // it cannot change before this worker is done: run() waits for every worker.
    if (stopping_) return;
    seen = generation_.load(std::memory_order_relaxed);
    invoke_(task_, index);
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::lock_guard<std::mutex> lock(mutex_);
      done_.notify_one();
    }
  }
}

}  // namespace kvlab
