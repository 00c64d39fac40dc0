#pragma once
// The xsimd backend of the kernels (and of the benchmark that measures their peak): the best one the
// build's flags enable (KVLAB_ARCH, cmake/flags.cmake), at most 8 floats wide. A weight panel is
// kPanelWidth = 8 floats (packed_matrix.h), so it must be whole vectors of 4 lanes (SSE2, SSE4.1 in
// wasm, NEON) or 8 (AVX2): an AVX-512 machine runs the kernels on its AVX2+FMA half.
#if KVLAB_SIMD
#include <type_traits>

#include <xsimd/xsimd.hpp>

#include "model/kernels.h"

namespace kvlab::kernels {

#if XSIMD_WITH_AVX512F
using SimdArch = xsimd::fma3<xsimd::avx2>;
#else
using SimdArch = xsimd::default_arch;
#endif
using FloatBatch = xsimd::batch<float, SimdArch>;

// Calls f(std::integral_constant<int, G>()) with G = n_queries (1 .. kMaxGroupQueries, kernels.h), so a
// grouped kernel's G accumulators are an array of fixed size the compiler keeps in registers.
template <int G = kMaxGroupQueries, typename Fn>
void with_queries(int n_queries, Fn&& f) {
  if constexpr (G > 1) {
    if (n_queries < G) return with_queries<G - 1>(n_queries, f);
  }
  f(std::integral_constant<int, G>());
}

}  // namespace kvlab::kernels
#endif
