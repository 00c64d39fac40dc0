#pragma once
// The forward pass's threads: started once with the pool and reused by every step. run() is one fork
// and one join over a list of pieces: the threads claim the pieces one at a time from a shared counter
// until none is left, so a thread the OS has not run leaves its pieces to the others instead of holding
// the step up. The caller (thread 0) works too, and then waits only for the pieces other threads have
// claimed. A waiting thread spins briefly before it sleeps, so a step's many forks stay cheap while the
// threads are busy and an idle pool costs nothing.
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
// natively; in the threaded wasm module its limit KVLAB_WASM_MAX_THREADS; 1 in a wasm module without
// threads.
int max_threads();

// The threads this device offers (std::thread::hardware_concurrency), within 1 .. max_threads().
int device_threads();

// Pieces per thread a fork is split into: enough that a thread which falls behind (the OS runs
// something else on its core) holds the others up by one small piece at most, few enough that the
// claims (one atomic compare-and-swap each) cost next to nothing (docs/threads.md, "Pieces").
constexpr int kPiecesPerThread = 8;

// How many pieces a fork of n_items equal items is split into on n_threads: 1 on one thread (a fork
// of one piece runs on the caller without waking the pool), else kPiecesPerThread a thread, at most
// n_items.
int piece_count(int n_items, int n_threads);

// Where piece `index` of `n_pieces` starts in n_items items split into contiguous pieces (equal to
// within one item); piece index ends where piece index + 1 starts.
int share_start(int n_items, int n_pieces, int index);

// Where piece `index` of `n_pieces` starts in n_groups * group_size items, group g's items costing
// cost(g) > 0 each: contiguous pieces of equal cost, to within one item's cost. Attention splits by it:
// in a prefill the later rows attend to more positions, and pieces of equal count would differ by far
// more than a piece.
template <class Cost>
int share_start_by_cost(int n_groups, int group_size, const Cost& cost, int n_pieces, int index) {
  int64_t total = 0;
  for (int g = 0; g < n_groups; ++g) total += static_cast<int64_t>(group_size) * cost(g);
  const int64_t target = total * index / n_pieces;
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
  // The most pieces one run() takes (the claim word's count field).
  static constexpr int kMaxPieces = (1 << 24) - 1;

  // n_threads in 1 .. max_threads() (callers check their inputs); n_threads - 1 threads are started.
  explicit ThreadPool(int n_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  // Runs task(piece, thread) once for each piece 0 .. n_pieces - 1 (at most kMaxPieces), on whichever
  // thread claims it: `thread` (0 .. size() - 1, the caller 0) only picks that thread's scratch, and
  // nothing a piece computes may depend on it. Returns when every piece has returned.
  template <class Task>
  void run(int n_pieces, const Task& task) {
    run_erased([](const void* t, int piece, int thread) { (*static_cast<const Task*>(t))(piece, thread); }, &task,
               n_pieces);
  }

 private:
  using Invoke = void (*)(const void* task, int piece, int thread);
  void run_erased(Invoke invoke, const void* task, int n_pieces);
  // Claims and runs pieces of run `generation` until none is left or that run is over; returns how many,
  // and that run's n_pieces in `n_pieces` if it claimed any.
  int run_pieces(uint64_t generation, int thread, int& n_pieces);
  void work(int thread);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable start_;
  std::condition_variable done_;
  // The run's generation (one more per run(), the upper 40 bits) and its pieces not yet claimed (the
  // lower 24), in one word: a claim is a compare-and-swap of the whole word, so a thread that wakes
  // after its run is over, or took the generation from an older one, claims nothing.
  alignas(64) std::atomic<uint64_t> claim_{0};
  alignas(64) std::atomic<int> finished_{0};  // this run's pieces that have returned
  // What run() publishes before it advances the generation, and keeps until every piece has returned.
  Invoke invoke_ = nullptr;
  const void* task_ = nullptr;
  int n_pieces_ = 0;
  std::atomic<bool> stopping_{false};
};

}  // namespace kvlab
