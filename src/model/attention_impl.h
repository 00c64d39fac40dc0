#pragma once
// One attention algorithm for both kernel sets: `Ops` supplies dot, axpy and softmax (the SIMD
// kernels or their scalar twins), so the twins differ only in those primitives.
#include <cmath>
#include <cstddef>

namespace kvlab::kernels {

template <typename Ops>
void attention_over(float* out, const float* q, const float* keys, const float* values, int context, int n_heads,
                    int n_kv_heads, int head_dim, float* scores) {
  const int kv_dim = n_kv_heads * head_dim;
  const int group = n_heads / n_kv_heads;
  const float inv_sqrt = 1.0f / std::sqrt(static_cast<float>(head_dim));
  for (int h = 0; h < n_heads; ++h) {
    const float* q_head = q + static_cast<size_t>(h) * head_dim;
    const size_t kv_offset = static_cast<size_t>(h / group) * head_dim;
    for (int t = 0; t < context; ++t)
      scores[t] = Ops::dot(q_head, keys + static_cast<size_t>(t) * kv_dim + kv_offset, head_dim) * inv_sqrt;
    Ops::softmax(scores, context);
    float* out_head = out + static_cast<size_t>(h) * head_dim;
    for (int i = 0; i < head_dim; ++i) out_head[i] = 0.0f;
    for (int t = 0; t < context; ++t)
      Ops::axpy(out_head, scores[t], values + static_cast<size_t>(t) * kv_dim + kv_offset, head_dim);
  }
}

}  // namespace kvlab::kernels
