// The scalar twins of the 16-bit KV kernels: one word at a time, with the same conversions as the SIMD
// kernels (kv_pairs.h), summed in order of j; the grouped forms widen each word once for every query.
#include <cstddef>

#include "model/kernels.h"
#include "model/kv_pairs.h"

namespace kvlab::kernels::scalar {

template <KvFormat F>
void dot_pairs_queries(float* sums, const float* q, const uint32_t* k_pairs, int n_queries, int head_dim) {
  const int half = head_dim / 2;
  for (int g = 0; g < n_queries; ++g) sums[g] = 0.0f;
  for (int j = 0; j < half; ++j) {
    const float low = low_number<F, ScalarLanes>(k_pairs[j]), high = high_number<F, ScalarLanes>(k_pairs[j]);
    for (int g = 0; g < n_queries; ++g) {
      const float* q_head = q + static_cast<size_t>(g) * head_dim;
      sums[g] += q_head[j] * low + q_head[half + j] * high;
    }
  }
}

template <KvFormat F>
void axpy_pairs_queries(float* y, const float* a, const uint32_t* v_pairs, int n_queries, int head_dim) {
  const int half = head_dim / 2;
  for (int j = 0; j < half; ++j) {
    const float low = low_number<F, ScalarLanes>(v_pairs[j]), high = high_number<F, ScalarLanes>(v_pairs[j]);
    for (int g = 0; g < n_queries; ++g) {
      float* y_head = y + static_cast<size_t>(g) * head_dim;
      y_head[j] += a[g] * low;
      y_head[half + j] += a[g] * high;
    }
  }
}

template <KvFormat F>
float dot_pairs(const float* q, const uint32_t* k_pairs, int head_dim) {
  float sum;
  dot_pairs_queries<F>(&sum, q, k_pairs, 1, head_dim);
  return sum;
}

template <KvFormat F>
void axpy_pairs(float* y, float a, const uint32_t* v_pairs, int head_dim) {
  axpy_pairs_queries<F>(y, &a, v_pairs, 1, head_dim);
}

#include "model/kv_kernel_instances.inc"

void store_pairs(uint32_t* pairs, const float* x, int n_heads, int head_dim, KvFormat format) {
  const int half = head_dim / 2;
  for (int h = 0; h < n_heads; ++h) {
    const float* head = x + static_cast<size_t>(h) * head_dim;
    uint32_t* out = pairs + static_cast<size_t>(h) * half;
    for (int j = 0; j < half; ++j)
      out[j] = format == KvFormat::bf16 ? pair_of<KvFormat::bf16, ScalarLanes>(head[j], head[half + j])
                                        : pair_of<KvFormat::f16, ScalarLanes>(head[j], head[half + j]);
  }
}

}  // namespace kvlab::kernels::scalar
