// The quantized matmul's scalar twin: each block's integer products with its inputs in plain loops,
// one float multiply-add a block (add_block), blocks in order: the SIMD kernels' arithmetic, bit for bit. The block layouts are in block_format.h.
#include <algorithm>
#include <cstddef>

#include "model/kernels.h"

namespace kvlab::kernels::scalar {

namespace {

int dot32(const int8_t* w, const int8_t* x) {
  int sum = 0;
  for (int i = 0; i < kInputBlockWidth; ++i) sum += w[i] * x[i];
  return sum;
}

// Each format's matrix row (n_blocks blocks at `row`) against one row of inputs x, from its first block.
// Every block of 32 inputs adds its exact integer sum times (weight scale x input scale) to one running
// sum (add_block), in block order: the SIMD kernels do the same in each output's lane.
float row_q8_0(const uint8_t* row, const InputBlock* x, int n_blocks) {
  float sum = 0.0f;
  for (int b = 0; b < n_blocks; ++b, row += 34)
    sum = add_block(sum, static_cast<float>(dot32(reinterpret_cast<const int8_t*>(row + 2), x[b].q)),
                    block_f16(row) * x[b].scale);
  return sum;
}

// Q4_0 and Q5_0: w = d * (q - 8) with four-bit q, d * (q - 16) with five-bit q.
template <BlockFormat Format>
float row_less_offset(const uint8_t* row, const InputBlock* x, int n_blocks) {
  constexpr bool five_bits = Format == BlockFormat::q5_0;
  const int block_bytes = traits(Format).bytes;
  float sum = 0.0f;
  for (int b = 0; b < n_blocks; ++b, row += block_bytes) {
    int8_t w[32];
    if (five_bits)
      q5_weights(row + 2, row + 6, w);
    else
      nibble_weights(row + 2, w);
    for (int8_t& q : w) q = static_cast<int8_t>(q - (five_bits ? 16 : 8));
    sum = add_block(sum, static_cast<float>(dot32(w, x[b].q)), block_f16(row) * x[b].scale);
  }
  return sum;
}

// w = d * q + m, so against inputs s * x a block sums to d s sum(q x) + m s sum(x): two terms, in that order.
float row_q5_1(const uint8_t* row, const InputBlock* x, int n_blocks) {
  float sum = 0.0f;
  for (int b = 0; b < n_blocks; ++b, row += 24) {
    int8_t q[32];
    q5_weights(row + 4, row + 8, q);
    sum = add_block(sum, static_cast<float>(dot32(q, x[b].q)), block_f16(row) * x[b].scale);
    sum = add_block(sum, static_cast<float>(x[b].sum), block_f16(row + 2) * x[b].scale);
  }
  return sum;
}

// Q4_K, or Q5_K with FifthBits: sub-block j of 32 weights is d * scale_j * q - dmin * min_j, so against
// inputs s * x it sums to d s (scale_j sum(q x)) + (-dmin) s (min_j sum(x)), both integers exact.
template <bool FifthBits>
float row_k_with_mins(const uint8_t* row, const InputBlock* x, int n_blocks) {
  const int block_bytes = traits(FifthBits ? BlockFormat::q5_k : BlockFormat::q4_k).bytes;
  float sum = 0.0f;
  for (int s = 0; s < n_blocks; ++s, row += block_bytes, x += 8) {
    const float d = block_f16(row), dmin = block_f16(row + 2);
    const uint8_t* qh = FifthBits ? row + 16 : nullptr;
    const uint8_t* nibbles = FifthBits ? row + 48 : row + 16;
    for (int j = 0; j < 8; ++j) {
      int scale, min;
      q4_k_scale_min(j, row + 4, scale, min);
      int8_t w[32];
      k_sub_block_weights(j, nibbles, qh, w);
      sum = add_block(sum, static_cast<float>(scale * dot32(w, x[j].q)), d * x[j].scale);
      sum = add_block(sum, static_cast<float>(min * x[j].sum), -dmin * x[j].scale);
    }
  }
  return sum;
}

// Group g (0..3) of a 128-weight half: weight l from ql[l + 32 * (g % 2)]'s low (g < 2) or high
// nibble and bits 2g, 2g + 1 of qh[l], minus 32; scales[2g] for l < 16, scales[2g + 1] for the rest.
float row_q6_k(const uint8_t* row, const InputBlock* x, int n_blocks) {
  float sum = 0.0f;
  for (int s = 0; s < n_blocks; ++s, row += 210) {
    const float d = block_f16(row + 208);
    for (int half = 0; half < 2; ++half) {
      const uint8_t* ql = row + 64 * half;
      const uint8_t* qh = row + 128 + 32 * half;
      const int8_t* scales = reinterpret_cast<const int8_t*>(row + 192 + 8 * half);
      for (int g = 0; g < 4; ++g, ++x) {
        int8_t w[32];
        for (int l = 0; l < 32; ++l)
          w[l] = static_cast<int8_t>(
              (((ql[l + 32 * (g % 2)] >> (4 * (g / 2))) & 0xF) | (((qh[l] >> (2 * g)) & 3) << 4)) - 32);
        int low = 0, high = 0;
        for (int l = 0; l < 16; ++l) low += w[l] * x->q[l];
        for (int l = 16; l < 32; ++l) high += w[l] * x->q[l];
        sum = add_block(sum, static_cast<float>(scales[2 * g] * low + scales[2 * g + 1] * high), d * x->scale);
      }
    }
  }
  return sum;
}

}  // namespace

void matmul_blocks(float* out, const InputBlock* x, const PackedMatrix& w, int n_rows, int first_panel, int end_panel) {
  const int n_blocks = w.n_in / traits(*w.blocks).elements;
  const int x_blocks = w.n_in / kInputBlockWidth;  // input blocks a row of x has
  float (*row_dot)(const uint8_t*, const InputBlock*, int) = nullptr;
  switch (*w.blocks) {
    case BlockFormat::q8_0: row_dot = row_q8_0; break;
    case BlockFormat::q4_0: row_dot = row_less_offset<BlockFormat::q4_0>; break;
    case BlockFormat::q5_0: row_dot = row_less_offset<BlockFormat::q5_0>; break;
    case BlockFormat::q5_1: row_dot = row_q5_1; break;
    case BlockFormat::q4_k: row_dot = row_k_with_mins<false>; break;
    case BlockFormat::q5_k: row_dot = row_k_with_mins<true>; break;
    case BlockFormat::q6_k: row_dot = row_q6_k; break;
  }
  const int end_output = std::min(end_panel * kPanelWidth, w.n_out);
  for (int r = 0; r < n_rows; ++r)
    for (int o = first_panel * kPanelWidth; o < end_output; ++o)
      out[static_cast<size_t>(r) * w.n_out + o] =
          row_dot(w.block_row(o), x + static_cast<size_t>(r) * x_blocks, n_blocks);
}

}  // namespace kvlab::kernels::scalar
