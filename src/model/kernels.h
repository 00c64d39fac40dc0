#pragma once
// The model's numeric kernels. `kvlab::kernels` is what the forward pass calls: xsimd batches with
// scalar tails, or, in a KVLAB_SIMD=OFF build, the scalar twins themselves. `kvlab::kernels::scalar`
// holds the plain-loop twins that the tests compare against. The signatures and their shapes are in
// kernel_declarations.inc.

#include "model/input_blocks.h"
#include "model/kv_cache.h"
#include "model/packed_matrix.h"

namespace kvlab::kernels {

namespace scalar {
#include "model/kernel_declarations.inc"
}  // namespace scalar

#if KVLAB_SIMD
#include "model/kernel_declarations.inc"
#else
using namespace scalar;
#endif

// Index of the largest value (the first one on ties).
int argmax(const float* x, int n);

// Panels the one-row matmul reads side by side: the stripes pack() stores panels in (packed_matrix.h).
// 8 with AVX2's 8 lanes, 4 with 4 lanes (SSE, wasm SIMD128, NEON); 1 in the scalar build.
int one_row_panels();

// Name of the instruction set the kernels were built for (xsimd's: "fma3+avx2", "sse2", "arm64+neon";
// or "wasm simd128", "scalar").
const char* instruction_set();

// The build's KVLAB_ARCH setting: "native", "portable" or "avx2"; "wasm" in the WebAssembly builds.
const char* arch_setting();

}  // namespace kvlab::kernels
