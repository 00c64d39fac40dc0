#pragma once
// kvlab's own quantizer: float32 rows into ggml's blocks (block_format.h), so that the tests write
// quantized GGUF files without downloading one and the benchmark times a preset's weights in every block
// format. It picks each block's scales as ggml's reference
// quantizers do (llama.cpp's ggml-quants.c, quantize_row_*_ref), without their searches for a better fit:
//   Q8_0  d = amax / 127;                      q = round(x / d)
//   Q4_0  d = max / -8 (max: the value of largest magnitude, so it becomes q = -8, which four bits
//         hold, where +8 would not);           q = round(x / d) + 8, at most 15
//   Q5_0  d = max / -16 (as Q4_0's, for q = -16);  q = round(x / d) + 16, at most 31
//   Q5_1  d = (largest x - smallest x) / 31, m = smallest x;
//                                              q = round((x - m) / d), 0..31
//   Q4_K  per sub-block of 32: min m = -min(0, smallest x), scale (largest x + m) / 15; then
//         d = largest scale / 63 and dmin = largest m / 63, each sub-block's as 6-bit multiples of them;
//         q = round((x + dmin * m6) / (d * s6)), 0..15
//   Q5_K  as Q4_K, with scale (largest x + m) / 31 and q 0..31
//   Q6_K  per sub-block of 16: scale = max / -32 (max as Q4_0's); d = largest-magnitude scale / -128
//         (so that sub-block's int8 scale is -128), each sub-block's an int8 multiple of d;
//         q = round(x / (d * scale8)) + 32, 0..63
// Rounding is to nearest. Unlike ggml, every step divides by the scale as stored (f16, or its 6- or
// 8-bit multiple), not by the unrounded one, so a weight is within half a step of what it dequantizes
// to wherever it is not clipped. Scales must fit in f16 (|weights| up to about 65504 * 127 for Q8_0).
#include <cstdint>

#include "model/block_format.h"
#include "model/weight_tensors.h"

namespace kvlab {

// Writes the blocks of `n` weights (a multiple of traits(format).elements) at `x`.
// out: [n / traits(format).elements * traits(format).bytes]
void quantize_blocks(BlockFormat format, const float* x, int64_t n, uint8_t* out);

// The format a matrix of rows of `row_length` weights is quantized in: `wanted`, unless it is a K-quant
// whose 256-weight blocks do not divide the row. llama.cpp's quantizer then falls back, tensor by tensor,
// to a format of 32-weight blocks (src/llama-quant.cpp, llama_tensor_get_type's
// convert_incompatible_tensor: Q4_K to Q5_0, Q5_K to Q5_1, Q6_K to Q8_0), as kvlab's does. Where those
// do not divide the row either, llama.cpp writes F16; kvlab's quantizer has no such fallback and throws
// std::invalid_argument naming the row length, as it does for any other format that does not divide it.
BlockFormat block_format_for_rows(BlockFormat wanted, int64_t row_length);

// Which of a model's weight matrices one is: a mix of formats picks each one's by it.
enum class MatrixRole { wq, wk, wv, wo, w_gate, w_up, w_down, token_embedding, classifier };

// The format llama.cpp's Q4_K_M mix gives a matrix (src/llama-quant.cpp, llama_tensor_get_type for
// LLAMA_FTYPE_MOSTLY_Q4_K_M; the mix of most small models' downloads): Q4_K, but Q6_K for the classifier
// (the token embedding when the classifier shares it) and for wv and w_down in the layers llama.cpp's
// use_more_bits picks (the first and last eighth of the n_layers, and every third between), each as
// block_format_for_rows then gives it for rows of `row_length`.
BlockFormat q4_k_m_format(MatrixRole role, int layer, int n_layers, int64_t row_length);

// The matrix's float32 values: its values, or its blocks dequantized.
FloatBuffer widened(const MatrixTensor& m);

// `tensors` with every weight matrix and the token embedding in `format`'s blocks (block_format_for_rows
// of each); the norms stay float32. Matrices already in blocks are widened and quantized again.
WeightTensors quantize_matrices(WeightTensors tensors, BlockFormat format);

}  // namespace kvlab
