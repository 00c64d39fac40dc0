#pragma once
// A quantized matmul's inputs: each row of activations x [n_rows, n_in] cut into blocks of 32 and
// rounded to int8 with a float scale a block, as llama.cpp's vec_dot functions take them (Q8_0 and Q8_K
// activations). A weight block then meets its inputs in integer multiply-adds, and floats appear once
// a block. Both the SIMD kernels and their scalar twins read the same blocks: they are made once, here,
// for both, so that any difference between them is in the sums alone.
#include <cstdint>
#include <vector>

#include <xsimd/memory/xsimd_aligned_allocator.hpp>

namespace kvlab {

constexpr int kInputBlockWidth = 32;

struct InputBlock {
  float scale;                 // x[i] is about scale * q[i]
  int32_t sum;                 // sum of q: Q4_K's mins multiply it
  int8_t q[kInputBlockWidth];  // in -127 .. 127
};

using InputBlockBuffer = std::vector<InputBlock, xsimd::aligned_allocator<InputBlock, 64>>;

// x [n_rows, n_in] (n_in a multiple of 32) into blocks [n_rows, n_in / 32]: a block's scale is its
// largest magnitude / 127, each q its value / scale rounded to nearest, ties to even (0 for a block of
// zeros; a NaN or an infinity, 0).
void quantize_inputs(InputBlock* blocks, const float* x, int n_rows, int n_in);

}  // namespace kvlab
