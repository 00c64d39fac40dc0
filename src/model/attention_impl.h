#pragma once
// One attention algorithm for both kernel sets: `Ops` supplies dot, axpy and softmax (the SIMD
// kernels or their scalar twins), so the twins differ only in those primitives. Keys and values are
// read through the sequence's block table, a block's run of positions at a time; a contiguous cache is
// one block, so its loop is the plain one.
#include <algorithm>
#include <cmath>
#include <cstddef>

#include "model/kv_cache.h"

namespace kvlab::kernels {

template <typename Ops>
void attention_over(float* out, const float* q, const KvLayerView& kv, int context, int n_heads, int n_kv_heads,
                    int head_dim, float* scores) {
  const int kv_dim = n_kv_heads * head_dim;
  const int group = n_heads / n_kv_heads;
  const float inv_sqrt = 1.0f / std::sqrt(static_cast<float>(head_dim));
  const size_t block_floats = static_cast<size_t>(kv.block_tokens) * kv_dim;
  for (int h = 0; h < n_heads; ++h) {
    const float* q_head = q + static_cast<size_t>(h) * head_dim;
    const size_t kv_offset = static_cast<size_t>(h / group) * head_dim;
    for (int start = 0, b = 0; start < context; start += kv.block_tokens, ++b) {
      const float* keys = kv.keys + static_cast<size_t>(kv.block_table[b]) * block_floats + kv_offset;
      const int n = std::min(kv.block_tokens, context - start);
      for (int t = 0; t < n; ++t)
        scores[start + t] = Ops::dot(q_head, keys + static_cast<size_t>(t) * kv_dim, head_dim) * inv_sqrt;
    }
    Ops::softmax(scores, context);
    float* out_head = out + static_cast<size_t>(h) * head_dim;
    for (int i = 0; i < head_dim; ++i) out_head[i] = 0.0f;
    for (int start = 0, b = 0; start < context; start += kv.block_tokens, ++b) {
      const float* values = kv.values + static_cast<size_t>(kv.block_table[b]) * block_floats + kv_offset;
      const int n = std::min(kv.block_tokens, context - start);
      for (int t = 0; t < n; ++t) Ops::axpy(out_head, scores[start + t], values + static_cast<size_t>(t) * kv_dim, head_dim);
    }
  }
}

}  // namespace kvlab::kernels
