#pragma once
// The xsimd backend of the kernels (and of the benchmark that measures their peak): the best one the
// build's flags enable (KVLAB_ARCH, cmake/flags.cmake), at most 8 floats wide. A weight panel is
// kPanelWidth = 8 floats (packed_matrix.h), so it must be whole vectors of 4 lanes (SSE2, SSE4.1 in
// wasm, NEON) or 8 (AVX2): an AVX-512 machine runs the kernels on its AVX2+FMA half.
#if KVLAB_SIMD
#include <xsimd/xsimd.hpp>

namespace kvlab::kernels {

#if XSIMD_WITH_AVX512F
using SimdArch = xsimd::fma3<xsimd::avx2>;
#else
using SimdArch = xsimd::default_arch;
#endif
using FloatBatch = xsimd::batch<float, SimdArch>;
constexpr int kFloatLanes = static_cast<int>(FloatBatch::size);

}  // namespace kvlab::kernels
#endif
