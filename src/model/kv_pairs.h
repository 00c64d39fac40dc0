#pragma once
// A 16-bit KV word (kv_cache.h) in and out: two numbers of format F in one 32-bit word, widened to or
// rounded from float32 with the conversions of float16.h, for scalars (ScalarLanes) and xsimd batches
// alike, so the SIMD kernels and their scalar twins share every operation.
#include "model/float16.h"
#include "model/number_format.h"

namespace kvlab {

template <NumberFormat F, typename L>
typename L::Float widen(typename L::Bits half) {
  static_assert(F != NumberFormat::f32, "a 16-bit format");
  if constexpr (F == NumberFormat::bf16)
    return from_bf16_bits<L>(half);
  else
    return from_f16_bits<L>(half);
}

template <NumberFormat F, typename L>
typename L::Bits narrow(typename L::Float value) {
  static_assert(F != NumberFormat::f32, "a 16-bit format");
  if constexpr (F == NumberFormat::bf16)
    return bf16_bits<L>(value);
  else
    return f16_bits<L>(value);
}

template <NumberFormat F, typename L>
typename L::Float low_number(typename L::Bits pair) {
  return widen<F, L>(pair & typename L::Bits(0xFFFFu));
}

template <NumberFormat F, typename L>
typename L::Float high_number(typename L::Bits pair) {
  return widen<F, L>(pair >> 16);
}

template <NumberFormat F, typename L>
typename L::Bits pair_of(typename L::Float low, typename L::Float high) {
  return narrow<F, L>(low) | (narrow<F, L>(high) << 16);
}

}  // namespace kvlab
