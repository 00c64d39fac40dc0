#pragma once
// One attention algorithm for both kernel sets: `Ops` supplies softmax and the grouped dot_queries and
// axpy_queries (the SIMD kernels or their scalar twins) and their 16-bit forms dot_pairs_queries and
// axpy_pairs_queries, so the twins differ only in those primitives. The query heads that share a KV
// head are attended together, so each key and value is read, and widened from 16 bits, once for them.
// Keys and values are read through the sequence's block table, a block's run of positions at a time; a
// contiguous cache is one block, so its loop is the plain one. The KV format is decided once per call:
// each format has its own loop.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "model/kernels.h"
#include "model/kv_cache.h"

namespace kvlab::kernels {

// How a KV head's numbers are read in each format, for a pass's n_queries query heads at once: Word is
// what the pool holds, kNumbersPerWord of them.
template <typename Ops>
struct F32Heads {
  using Word = float;
  static constexpr int kNumbersPerWord = 1;
  static void dot(float* sums, const float* q, const float* k, int n_queries, int head_dim) {
    Ops::dot_queries(sums, q, k, n_queries, head_dim);
  }
  static void axpy(float* y, const float* a, const float* v, int n_queries, int head_dim) {
    Ops::axpy_queries(y, a, v, n_queries, head_dim);
  }
};

template <typename Ops, KvFormat F>
struct PairHeads {
  using Word = uint32_t;
  static constexpr int kNumbersPerWord = 2;
  static void dot(float* sums, const float* q, const uint32_t* k, int n_queries, int head_dim) {
    Ops::template dot_pairs_queries<F>(sums, q, k, n_queries, head_dim);
  }
  static void axpy(float* y, const float* a, const uint32_t* v, int n_queries, int head_dim) {
    Ops::template axpy_pairs_queries<F>(y, a, v, n_queries, head_dim);
  }
};

// One pass: query heads q [n_queries, head_dim] (n_queries <= kMaxGroupQueries) of the KV head whose
// numbers start at keys and values within each position; out likewise. Each position's key and value
// is read once for the pass, and each head's scores (a row of `context` in scores) and output are
// summed in the order a pass of one head sums them.
template <typename Ops, typename Heads>
void attend_queries(float* out, const float* q, const typename Heads::Word* keys, const typename Heads::Word* values,
                    const KvLayerView& kv, int context, int n_queries, int n_kv_heads, int head_dim, float* scores) {
  const int position_words = n_kv_heads * head_dim / Heads::kNumbersPerWord;
  const float inv_sqrt = 1.0f / std::sqrt(static_cast<float>(head_dim));
  const size_t block_words = static_cast<size_t>(kv.block_tokens) * position_words;
  float sums[kMaxGroupQueries];
  for (int start = 0, b = 0; start < context; start += kv.block_tokens, ++b) {
    const auto* block_keys = keys + static_cast<size_t>(kv.block_table[b]) * block_words;
    const int n = std::min(kv.block_tokens, context - start);
    for (int t = 0; t < n; ++t) {
      Heads::dot(sums, q, block_keys + static_cast<size_t>(t) * position_words, n_queries, head_dim);
      for (int g = 0; g < n_queries; ++g) scores[static_cast<size_t>(g) * context + start + t] = sums[g] * inv_sqrt;
    }
  }
  for (int g = 0; g < n_queries; ++g) Ops::softmax(scores + static_cast<size_t>(g) * context, context);
  std::fill_n(out, static_cast<size_t>(n_queries) * head_dim, 0.0f);
  float weights[kMaxGroupQueries];
  for (int start = 0, b = 0; start < context; start += kv.block_tokens, ++b) {
    const auto* block_values = values + static_cast<size_t>(kv.block_table[b]) * block_words;
    const int n = std::min(kv.block_tokens, context - start);
    for (int t = 0; t < n; ++t) {
      for (int g = 0; g < n_queries; ++g) weights[g] = scores[static_cast<size_t>(g) * context + start + t];
      Heads::axpy(out, weights, block_values + static_cast<size_t>(t) * position_words, n_queries, head_dim);
    }
  }
}

// keys, values: the layer's [n_blocks, block_tokens, kv_dim / kNumbersPerWord] words. Query head h reads
// KV head h / group; a KV head's group is taken in passes of at most kMaxGroupQueries heads.
template <typename Ops, typename Heads>
void attend(float* out, const float* q, const typename Heads::Word* keys, const typename Heads::Word* values,
            const KvLayerView& kv, int context, int n_heads, int n_kv_heads, int head_dim, float* scores) {
  const int head_words = head_dim / Heads::kNumbersPerWord;
  const int group = n_heads / n_kv_heads;
  for (int kv_head = 0; kv_head < n_kv_heads; ++kv_head) {
    const size_t kv_offset = static_cast<size_t>(kv_head) * head_words;
    const int end = (kv_head + 1) * group;
    for (int first = kv_head * group; first < end; first += kMaxGroupQueries) {
      const size_t at = static_cast<size_t>(first) * head_dim;
      attend_queries<Ops, Heads>(out + at, q + at, keys + kv_offset, values + kv_offset, kv, context,
                                 std::min(kMaxGroupQueries, end - first), n_kv_heads, head_dim, scores);
    }
  }
}

template <typename Ops>
void attention_over(float* out, const float* q, const KvLayerView& kv, int context, int n_heads, int n_kv_heads,
                    int head_dim, float* scores) {
  switch (kv.format) {
    case KvFormat::f32:
      return attend<Ops, F32Heads<Ops>>(out, q, kv.keys, kv.values, kv, context, n_heads, n_kv_heads, head_dim, scores);
    case KvFormat::bf16:
      return attend<Ops, PairHeads<Ops, KvFormat::bf16>>(out, q, kv.key_pairs, kv.value_pairs, kv, context, n_heads,
                                                          n_kv_heads, head_dim, scores);
    case KvFormat::f16:
      return attend<Ops, PairHeads<Ops, KvFormat::f16>>(out, q, kv.key_pairs, kv.value_pairs, kv, context, n_heads,
                                                         n_kv_heads, head_dim, scores);
  }
}

}  // namespace kvlab::kernels
