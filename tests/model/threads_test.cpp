// The forward pass on several threads computes every output as one thread does: logits equal bit for
// bit and tokens equal for 1, 2, 3 and 4 threads, for a prefill, decode steps and a batched step, on a
// random preset (float32 and bfloat16 weights, 16-bit KV) and on models read from files (f32, Q8_0,
// Q4_0). The pool runs each piece of a fork exactly once, fork after fork, and the caller runs the
// pieces a thread that falls behind does not claim.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "model/config.h"
#include "model/generate.h"
#include "model/model.h"
#include "model/thread_pool.h"
#include "model_file_writers.h"
#include "model_files/model_file.h"

namespace kvlab {
namespace {

TEST(ThreadPool, EveryPieceRunsOnceInEachFork) {
  for (int n_threads : {1, 2, 3, 4, 7}) {
    ThreadPool pool(n_threads);
    ASSERT_EQ(pool.size(), n_threads);
    // Forks of different sizes one after the other, each with a task of its own: a thread that takes
    // its generation from one fork and claims in the next would run the wrong task or a piece twice.
    constexpr int kForks = 2000;
    std::vector<std::atomic<int>> runs(static_cast<size_t>(kForks) * 64);
    std::atomic<int> bad_thread{0};
    for (int fork = 0; fork < kForks; ++fork) {
      const int n_pieces = fork % 64;
      pool.run(n_pieces, [&, fork](int piece, int thread) {
        runs[static_cast<size_t>(fork) * 64 + piece].fetch_add(1);
        if (thread < 0 || thread >= n_threads) bad_thread.fetch_add(1);
      });
    }
    for (int fork = 0; fork < kForks; ++fork)
      for (int piece = 0; piece < 64; ++piece)
        ASSERT_EQ(runs[static_cast<size_t>(fork) * 64 + piece].load(), piece < fork % 64 ? 1 : 0)
            << n_threads << " threads, fork " << fork << ", piece " << piece;
    EXPECT_EQ(bad_thread.load(), 0);
  }
}

TEST(ThreadPool, APoolEndsWhenItsWorkersWakeLate) {
  // A worker woken by a fork whose pieces the caller has already run, and then by the destructor, must
  // see the destructor's word: once it read the generation after its check for stopping, and a busy
  // core made that window wide enough for `kvlab bench --thread-scaling` to hang in ~ThreadPool. Many
  // short lifetimes of more workers than cores make the window likely (the old order hung here in 1 of 3
  // runs); a regression hangs, and ctest's timeout fails it.
  std::atomic<int> ran{0};
  for (int lifetime = 0; lifetime < 3000; ++lifetime) {
    ThreadPool pool(8);  // more workers than cores: some are always descheduled mid-wake
    pool.run(2, [&](int, int) { ran.fetch_add(1); });
  }
  EXPECT_EQ(ran.load(), 6000);
}

TEST(ThreadPool, CallerRunsThePiecesNoOtherThreadClaims) {
  // The caller's first piece waits until the worker has claimed one, and the worker's first piece waits
  // until every other piece has run: only a caller that keeps claiming while a claimed piece is in
  // flight ends the fork (with fixed shares, or a caller that waited for the worker before claiming
  // more, it would never end). The waits are bounded only so that a regression fails instead of hanging.
  ThreadPool pool(2);
  constexpr int kPieces = 40;
  const auto wait_until = [](const auto& done) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!done())
      if (std::chrono::steady_clock::now() > until) return false;
    return true;
  };
  for (int fork = 0; fork < 20; ++fork) {
    std::atomic<int> by_caller{0}, by_worker{0};
    std::atomic<bool> waited_out{false};
    pool.run(kPieces, [&](int, int thread) {
      const bool ok = thread == 0 ? by_caller.fetch_add(1) > 0 || wait_until([&] { return by_worker.load() > 0; })
                                  : (by_worker.fetch_add(1),
                                     wait_until([&] { return by_caller.load() + by_worker.load() == kPieces; }));
      if (!ok) waited_out = true;
    });
    ASSERT_FALSE(waited_out.load()) << "fork " << fork;
    EXPECT_EQ(by_caller.load(), kPieces - 1) << "fork " << fork;
    EXPECT_EQ(by_worker.load(), 1) << "fork " << fork;
  }
}

TEST(ThreadPool, PieceCountsSplitForksOnMoreThreadsOnly) {
  EXPECT_EQ(piece_count(0, 1), 0);
  EXPECT_EQ(piece_count(500, 1), 1);
  EXPECT_EQ(piece_count(500, 2), 2 * kPiecesPerThread);
  EXPECT_EQ(piece_count(5, 2), 5);
  EXPECT_EQ(piece_count(0, 4), 0);
}

TEST(ThreadPool, SharesCoverTheItemsOnceInOrder) {
  for (int n_items : {0, 1, 5, 36, 1000})
    for (int n_pieces : {1, 2, 3, 4, 64}) {
      EXPECT_EQ(share_start(n_items, n_pieces, 0), 0);
      EXPECT_EQ(share_start(n_items, n_pieces, n_pieces), n_items);
      for (int index = 0; index < n_pieces; ++index) {
        const int size = share_start(n_items, n_pieces, index + 1) - share_start(n_items, n_pieces, index);
        EXPECT_GE(size, n_items / n_pieces);
        EXPECT_LE(size, n_items / n_pieces + 1);
      }
    }
}

TEST(ThreadPool, SharesByCostCoverTheItemsOnceWithEqualCost) {
  // A 128-token prefill on one head: row r costs r + 1, 8,256 in all. Rows 0..90 cost 4,186, the
  // first sum to reach half (4,128), so the second thread starts at row 91 (not 64, as by count).
  const auto prefill_cost = [](int r) { return r + 1; };
  EXPECT_EQ(share_start_by_cost(128, 1, prefill_cost, 2, 1), 91);
  for (int n_groups : {0, 1, 3, 16, 128})
    for (int group_size : {1, 6, 8})
      for (int n_threads : {1, 2, 3, 4, 64}) {
        const int n_items = n_groups * group_size;
        const auto cost = [](int g) { return 1 + (g * 37) % 11; };  // 1 .. 11, uneven
        const auto item_cost = [&](int item) { return cost(item / group_size); };
        int64_t total = 0;
        for (int item = 0; item < n_items; ++item) total += item_cost(item);
        EXPECT_EQ(share_start_by_cost(n_groups, group_size, cost, n_threads, 0), 0);
        EXPECT_EQ(share_start_by_cost(n_groups, group_size, cost, n_threads, n_threads), n_items);
        for (int index = 0; index < n_threads; ++index) {
          const int first = share_start_by_cost(n_groups, group_size, cost, n_threads, index);
          const int end = share_start_by_cost(n_groups, group_size, cost, n_threads, index + 1);
          ASSERT_LE(first, end);
          int64_t share_cost = 0;
          for (int item = first; item < end; ++item) share_cost += item_cost(item);
          EXPECT_LE(std::abs(share_cost - total / n_threads), 11 + 1) << n_groups << " " << group_size << " " << index;
        }
      }
}

TEST(ThreadPool, DeviceThreadsWithinTheLimit) {
  EXPECT_GE(device_threads(), 1);
  EXPECT_LE(device_threads(), max_threads());
  EXPECT_EQ(max_threads(), kMaxThreads);
}

struct Run {
  std::vector<int> tokens;
  std::vector<float> logits;
};

// A cached generation (a prompt prefill, then one-row steps) and a batched step over three sequences
// of different lengths, on `n_threads` threads.
Run generate_on(Model& model, int n_threads) {
  model.set_threads(n_threads);
  EXPECT_EQ(model.threads(), n_threads);
  const ModelConfig& c = model.config();
  Run run;
  KvCache cache(c, 40);
  const std::vector<int> prompt = make_prompt(19, c.vocab, 11);
  run.tokens = generate_with_cache(model, cache, prompt, 8, &run.logits);

  std::vector<KvCache> caches;
  for (int s = 0; s < 3; ++s) caches.emplace_back(c, 16);
  std::vector<DecodeSlot> slots;
  for (int s = 0; s < 3; ++s) {
    const std::vector<int> p = make_prompt(3 + 4 * s, c.vocab, 20 + s);
    slots.push_back({&caches[s], prefill(model, caches[s], p.data(), static_cast<int>(p.size()), 0)});
  }
  std::vector<float> batch_logits;
  decode_batch(model, slots, &batch_logits);
  run.logits.insert(run.logits.end(), batch_logits.begin(), batch_logits.end());
  for (const DecodeSlot& slot : slots) run.tokens.push_back(slot.next_input);
  return run;
}

void expect_same_for_any_thread_count(Model& model) {
  const Run one = generate_on(model, 1);
  for (int n_threads : {2, 3, 4}) {
    const Run many = generate_on(model, n_threads);
    EXPECT_EQ(many.tokens, one.tokens) << n_threads << " threads";
    ASSERT_EQ(many.logits.size(), one.logits.size());
    EXPECT_EQ(std::memcmp(many.logits.data(), one.logits.data(), one.logits.size() * sizeof(float)), 0)
        << n_threads << " threads: logits differ";
  }
  const Run again = generate_on(model, 1);
  EXPECT_EQ(std::memcmp(again.logits.data(), one.logits.data(), one.logits.size() * sizeof(float)), 0);
}

TEST(Threads, RandomPresetSameBitsForAnyThreadCount) {
  Model model(model_presets()[0].config);
  expect_same_for_any_thread_count(model);
}

TEST(Threads, Bf16WeightsAnd16BitCacheSameBitsForAnyThreadCount) {
  ModelConfig config = model_presets()[0].config;
  config.weights = NumberFormat::bf16;
  config.kv = NumberFormat::bf16;
  Model model(config);
  expect_same_for_any_thread_count(model);
}

TEST(Threads, QuantizedModelFilesSameBitsForAnyThreadCount) {
  for (const uint32_t ggml_type : {8u, 2u}) {  // Q8_0, Q4_0: their products split by whole blocks
    test::GgufOptions options;
    options.matrix_type = ggml_type;
    const test::FileWeights weights = test::tiny_weights(test::tiny_config(), 5);
    ModelFile file = test::read_gguf_copy(test::gguf_bytes(weights, test::tiny_vocabulary(), options));
    Model model(pack_weights(std::move(file.tensors)));
    SCOPED_TRACE(ggml_type);
    expect_same_for_any_thread_count(model);
  }
}

TEST(Threads, ModelFileSameBitsForAnyThreadCount) {
  const test::FileWeights weights = test::tiny_weights(test::tiny_config(), 5);
  const std::string checkpoint = test::llama2c_checkpoint_bytes(weights);
  const std::string tokenizer = test::llama2c_tokenizer_bytes(test::tiny_vocabulary());
  ModelFile file = read_llama2c_files(reinterpret_cast<const uint8_t*>(checkpoint.data()), checkpoint.size(),
                                      reinterpret_cast<const uint8_t*>(tokenizer.data()), tokenizer.size());
  Model model(pack_weights(std::move(file.tensors)));
  expect_same_for_any_thread_count(model);
}

}  // namespace
}  // namespace kvlab
