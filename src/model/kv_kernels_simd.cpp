// The 16-bit KV kernels (kernel_declarations.inc) in xsimd batches: a vector of 32-bit words holds the
// same lanes of both halves of a head, widened to float32 (bfloat16: a shift or a mask; IEEE half:
// shifts and masks, a multiplication by 2^112, one compare and select for infinity and NaN) and summed
// with fused multiply-adds; rounding back to 16 bits likewise (float16.h: integer rounding, compares
// and selects, one float addition for subnormals). The scalar tail uses the same
// conversions on one word at a time (kv_pairs.h).
#include <cstddef>

#include "model/kernels.h"
#include "model/kv_pairs.h"
#include "model/simd_arch.h"

namespace kvlab::kernels {

#if KVLAB_SIMD

namespace {

using Batch = FloatBatch;
using PairBatch = xsimd::batch<uint32_t, SimdArch>;
using SignedBatch = xsimd::batch<int32_t, SimdArch>;

// The conversions' view of a batch: bits, signed compares (every operand is below 2^31, where signed
// and unsigned agree, and SSE and wasm SIMD128 compare 32-bit lanes signed only), selects.
struct BatchLanes {
  using Bits = PairBatch;
  using Float = Batch;
  using Mask = xsimd::batch_bool<int32_t, SimdArch>;
  static Bits bits(Float value) { return xsimd::bitwise_cast<Bits>(value); }
  static Float value(Bits bits) { return xsimd::bitwise_cast<Float>(bits); }
  static Mask less(Bits a, Bits b) { return xsimd::bitwise_cast<SignedBatch>(a) < xsimd::bitwise_cast<SignedBatch>(b); }
  static Bits pick(Mask condition, Bits if_true, Bits if_false) {
    return xsimd::bitwise_cast<Bits>(xsimd::select(condition, xsimd::bitwise_cast<SignedBatch>(if_true),
                                                   xsimd::bitwise_cast<SignedBatch>(if_false)));
  }
};

}  // namespace

template <NumberFormat F>
float dot_pairs(const float* q, const uint32_t* k_pairs, int head_dim) {
  const int half = head_dim / 2;
  Batch low_sum(0.0f), high_sum(0.0f);
  int j = 0;
  for (; j + kFloatLanes <= half; j += kFloatLanes) {
    const PairBatch pair = PairBatch::load_unaligned(k_pairs + j);
    low_sum = xsimd::fma(Batch::load_unaligned(q + j), low_number<F, BatchLanes>(pair), low_sum);
    high_sum = xsimd::fma(Batch::load_unaligned(q + half + j), high_number<F, BatchLanes>(pair), high_sum);
  }
  float sum = xsimd::hadd(low_sum + high_sum);
  for (; j < half; ++j)
    sum += q[j] * low_number<F, ScalarLanes>(k_pairs[j]) + q[half + j] * high_number<F, ScalarLanes>(k_pairs[j]);
  return sum;
}

template <NumberFormat F>
void axpy_pairs(float* y, float a, const uint32_t* v_pairs, int head_dim) {
  const int half = head_dim / 2;
  const Batch av(a);
  int j = 0;
  for (; j + kFloatLanes <= half; j += kFloatLanes) {
    const PairBatch pair = PairBatch::load_unaligned(v_pairs + j);
    xsimd::fma(av, low_number<F, BatchLanes>(pair), Batch::load_unaligned(y + j)).store_unaligned(y + j);
    xsimd::fma(av, high_number<F, BatchLanes>(pair), Batch::load_unaligned(y + half + j)).store_unaligned(y + half + j);
  }
  for (; j < half; ++j) {
    y[j] += a * low_number<F, ScalarLanes>(v_pairs[j]);
    y[half + j] += a * high_number<F, ScalarLanes>(v_pairs[j]);
  }
}

#include "model/kv_kernel_instances.inc"

namespace {

template <NumberFormat F>
void store_heads(uint32_t* pairs, const float* x, int n_heads, int head_dim) {
  const int half = head_dim / 2;
  for (int h = 0; h < n_heads; ++h) {
    const float* head = x + static_cast<size_t>(h) * head_dim;
    uint32_t* out = pairs + static_cast<size_t>(h) * half;
    int j = 0;
    for (; j + kFloatLanes <= half; j += kFloatLanes)
      pair_of<F, BatchLanes>(Batch::load_unaligned(head + j), Batch::load_unaligned(head + half + j))
          .store_unaligned(out + j);
    for (; j < half; ++j) out[j] = pair_of<F, ScalarLanes>(head[j], head[half + j]);
  }
}

}  // namespace

void store_pairs(uint32_t* pairs, const float* x, int n_heads, int head_dim, NumberFormat format) {
  if (format == NumberFormat::bf16)
    store_heads<NumberFormat::bf16>(pairs, x, n_heads, head_dim);
  else
    store_heads<NumberFormat::f16>(pairs, x, n_heads, head_dim);
}

#endif

}  // namespace kvlab::kernels
