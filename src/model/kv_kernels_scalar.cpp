// The scalar twins of the 16-bit KV kernels: one word at a time, with the same conversions as the SIMD
// kernels (kv_pairs.h), summed in order of j.
#include <cstddef>

#include "model/kernels.h"
#include "model/kv_pairs.h"

namespace kvlab::kernels::scalar {

template <NumberFormat F>
float dot_pairs(const float* q, const uint32_t* k_pairs, int head_dim) {
  const int half = head_dim / 2;
  float sum = 0.0f;
  for (int j = 0; j < half; ++j)
    sum += q[j] * low_number<F, ScalarLanes>(k_pairs[j]) + q[half + j] * high_number<F, ScalarLanes>(k_pairs[j]);
  return sum;
}

template <NumberFormat F>
void axpy_pairs(float* y, float a, const uint32_t* v_pairs, int head_dim) {
  const int half = head_dim / 2;
  for (int j = 0; j < half; ++j) {
    y[j] += a * low_number<F, ScalarLanes>(v_pairs[j]);
    y[half + j] += a * high_number<F, ScalarLanes>(v_pairs[j]);
  }
}

#include "model/kv_kernel_instances.inc"

void store_pairs(uint32_t* pairs, const float* x, int n_heads, int head_dim, NumberFormat format) {
  const int half = head_dim / 2;
  for (int h = 0; h < n_heads; ++h) {
    const float* head = x + static_cast<size_t>(h) * head_dim;
    uint32_t* out = pairs + static_cast<size_t>(h) * half;
    for (int j = 0; j < half; ++j)
      out[j] = format == NumberFormat::bf16 ? pair_of<NumberFormat::bf16, ScalarLanes>(head[j], head[half + j])
                                            : pair_of<NumberFormat::f16, ScalarLanes>(head[j], head[half + j]);
  }
}

}  // namespace kvlab::kernels::scalar
