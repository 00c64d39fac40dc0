#pragma once
// One attention algorithm for both kernel sets: `Ops` supplies dot, axpy and softmax (the SIMD
// kernels or their scalar twins) and their 16-bit forms dot_pairs and axpy_pairs, so the twins differ
// only in those primitives. Keys and values are read through the sequence's block table, a block's run
// of positions at a time; a contiguous cache is one block, so its loop is the plain one. The KV format
// is decided once per call: each format has its own loop.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "model/kv_cache.h"

namespace kvlab::kernels {

// How a head's numbers are read in each format: Word is what the pool holds, kNumbersPerWord of them.
template <typename Ops>
struct F32Heads {
  using Word = float;
  static constexpr int kNumbersPerWord = 1;
  static float dot(const float* q, const float* k, int head_dim) { return Ops::dot(q, k, head_dim); }
  static void axpy(float* y, float a, const float* v, int head_dim) { Ops::axpy(y, a, v, head_dim); }
};

template <typename Ops, NumberFormat F>
struct PairHeads {
  using Word = uint32_t;
  static constexpr int kNumbersPerWord = 2;
  static float dot(const float* q, const uint32_t* k, int head_dim) {
    return Ops::template dot_pairs<F>(q, k, head_dim);
  }
  static void axpy(float* y, float a, const uint32_t* v, int head_dim) {
    Ops::template axpy_pairs<F>(y, a, v, head_dim);
  }
};

// keys, values: the layer's [n_blocks, block_tokens, kv_dim / kNumbersPerWord] words.
template <typename Ops, typename Heads>
void attend(float* out, const float* q, const typename Heads::Word* keys, const typename Heads::Word* values,
            const KvLayerView& kv, int context, int n_heads, int n_kv_heads, int head_dim, int first_head, int end_head,
            float* scores) {
  const int position_words = n_kv_heads * head_dim / Heads::kNumbersPerWord;
  const int head_words = head_dim / Heads::kNumbersPerWord;
  const int group = n_heads / n_kv_heads;
  const float inv_sqrt = 1.0f / std::sqrt(static_cast<float>(head_dim));
  const size_t block_words = static_cast<size_t>(kv.block_tokens) * position_words;
  for (int h = first_head; h < end_head; ++h) {
    const float* q_head = q + static_cast<size_t>(h) * head_dim;
    const size_t kv_offset = static_cast<size_t>(h / group) * head_words;
    for (int start = 0, b = 0; start < context; start += kv.block_tokens, ++b) {
      const auto* block_keys = keys + static_cast<size_t>(kv.block_table[b]) * block_words + kv_offset;
      const int n = std::min(kv.block_tokens, context - start);
      for (int t = 0; t < n; ++t)
        scores[start + t] =
            Heads::dot(q_head, block_keys + static_cast<size_t>(t) * position_words, head_dim) * inv_sqrt;
    }
    Ops::softmax(scores, context);
    float* out_head = out + static_cast<size_t>(h) * head_dim;
    for (int i = 0; i < head_dim; ++i) out_head[i] = 0.0f;
    for (int start = 0, b = 0; start < context; start += kv.block_tokens, ++b) {
      const auto* block_values = values + static_cast<size_t>(kv.block_table[b]) * block_words + kv_offset;
      const int n = std::min(kv.block_tokens, context - start);
      for (int t = 0; t < n; ++t)
        Heads::axpy(out_head, scores[start + t], block_values + static_cast<size_t>(t) * position_words, head_dim);
    }
  }
}

// Query heads first_head .. end_head - 1.
template <typename Ops>
void attention_over(float* out, const float* q, const KvLayerView& kv, int context, int n_heads, int n_kv_heads,
                    int head_dim, int first_head, int end_head, float* scores) {
  switch (kv.format) {
    case NumberFormat::f32:
      return attend<Ops, F32Heads<Ops>>(out, q, kv.keys, kv.values, kv, context, n_heads, n_kv_heads, head_dim,
                                        first_head, end_head, scores);
    case NumberFormat::bf16:
      return attend<Ops, PairHeads<Ops, NumberFormat::bf16>>(out, q, kv.key_pairs, kv.value_pairs, kv, context, n_heads,
                                                             n_kv_heads, head_dim, first_head, end_head, scores);
    case NumberFormat::f16:
      return attend<Ops, PairHeads<Ops, NumberFormat::f16>>(out, q, kv.key_pairs, kv.value_pairs, kv, context, n_heads,
                                                            n_kv_heads, head_dim, first_head, end_head, scores);
  }
}

}  // namespace kvlab::kernels
