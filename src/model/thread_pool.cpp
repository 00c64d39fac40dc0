#include "model/thread_pool.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

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

int piece_count(int n_items, int n_threads) {
  if (n_threads <= 1) return std::min(n_items, 1);
  return static_cast<int>(std::min<int64_t>(n_items, static_cast<int64_t>(kPiecesPerThread) * n_threads));
}

int share_start(int n_items, int n_pieces, int index) {
  return static_cast<int>(static_cast<int64_t>(n_items) * index / n_pieces);
}

namespace {

constexpr int kCountBits = 24;
constexpr uint64_t kCountMask = (uint64_t{1} << kCountBits) - 1;

uint64_t generation_of(uint64_t claim) { return claim >> kCountBits; }
int unclaimed_of(uint64_t claim) { return static_cast<int>(claim & kCountMask); }

}  // namespace

ThreadPool::ThreadPool(int n_threads) {
  workers_.reserve(n_threads - 1);
  for (int thread = 1; thread < n_threads; ++thread) workers_.emplace_back([this, thread] { work(thread); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_.store(true, std::memory_order_relaxed);
    const uint64_t generation = generation_of(claim_.load(std::memory_order_relaxed)) + 1;
    claim_.store(generation << kCountBits, std::memory_order_release);
  }
  start_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

void ThreadPool::run_erased(Invoke invoke, const void* task, int n_pieces) {
  if (workers_.empty() || n_pieces <= 1) {
    for (int piece = 0; piece < n_pieces; ++piece) invoke(task, piece, 0);
    return;
  }
  if (n_pieces > kMaxPieces) throw std::logic_error("ThreadPool::run: more pieces than the claim word counts");
  uint64_t generation = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    invoke_ = invoke;
    task_ = task;
    n_pieces_ = n_pieces;
    finished_.store(0, std::memory_order_relaxed);
    generation = generation_of(claim_.load(std::memory_order_relaxed)) + 1;
    claim_.store(generation << kCountBits | static_cast<uint64_t>(n_pieces), std::memory_order_release);
  }
  start_.notify_all();
  int n_pieces_seen = 0;
  const int mine = run_pieces(generation, 0, n_pieces_seen);
  // Only pieces other threads have claimed are left: wait for those, never for a thread that has not
  // claimed any.
  if (finished_.fetch_add(mine, std::memory_order_acq_rel) + mine == n_pieces) return;
  const auto all_done = [this, n_pieces] { return finished_.load(std::memory_order_acquire) == n_pieces; };
  if (spin_until(all_done)) return;
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, all_done);
}

int ThreadPool::run_pieces(uint64_t generation, int thread, int& n_pieces) {
  int ran = 0;
  uint64_t claim = claim_.load(std::memory_order_acquire);
  while (generation_of(claim) == generation && unclaimed_of(claim) > 0) {
    if (!claim_.compare_exchange_weak(claim, claim - 1, std::memory_order_acq_rel, std::memory_order_acquire)) continue;
    // This run cannot end, nor the next one publish its task, before the piece just claimed returns: what
    // run() published is this run's.
    n_pieces = n_pieces_;
    invoke_(task_, n_pieces - unclaimed_of(claim), thread);
    ++ran;
    claim -= 1;
  }
  return ran;
}

void ThreadPool::work(int thread) {
  uint64_t seen = 0;  // the last generation this thread looked at
  for (;;) {
    const auto started = [&] { return generation_of(claim_.load(std::memory_order_acquire)) != seen; };
    if (!spin_until(started)) {
      std::unique_lock<std::mutex> lock(mutex_);
      start_.wait(lock, started);
    }
    // The generation is read once, then stopping_: a generation read after the check could be the
    // destructor's, which would leave this thread waiting for a generation that never comes.
    seen = generation_of(claim_.load(std::memory_order_acquire));
    if (stopping_.load(std::memory_order_acquire)) return;
    int n_pieces = 0;  // read by run_pieces while it holds a claim: once they are counted, run() may return
    const int ran = run_pieces(seen, thread, n_pieces);
    if (ran > 0 && finished_.fetch_add(ran, std::memory_order_acq_rel) + ran == n_pieces) {
      std::lock_guard<std::mutex> lock(mutex_);
      done_.notify_one();
    }
  }
}

}  // namespace kvlab
