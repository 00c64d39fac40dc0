#pragma once
// The model's numeric kernels. `kvlab::kernels` is what the forward pass calls: xsimd batches with
// scalar tails, or, in a KVLAB_SIMD=OFF build, the scalar twins themselves. `kvlab::kernels::scalar`
// holds the plain-loop twins that the tests compare against. The signatures and their shapes are in
// kernel_declarations.inc.

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

// Name of the instruction set the kernels were built for ("fma3+avx2", "wasm simd128", "scalar").
const char* instruction_set();

}  // namespace kvlab::kernels
