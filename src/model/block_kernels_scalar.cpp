// The quantized matmul's scalar twin: each block's integer products with its inputs in plain loops,
// one float multiply-add a block, blocks in order. The block layouts are in block_format.h.
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

// Row `row` of a Q8_0 or Q4_0 matrix (blocks of 32) against one row of inputs x [n_blocks].
float row_q8_0(const uint8_t* row, const InputBlock* x, int n_blocks) {
  float sum = 0.0f;
  for (int b = 0; b < n_blocks; ++b, row += 34)
    sum += block_f16(row) * x[b].scale * static_cast<float>(dot32(reinterpret_cast<const int8_t*>(row + 2), x[b].q));
  return sum;
}

float row_q4_0(const uint8_t* row, const InputBlock* x, int n_blocks) {
  float sum = 0.0f;
  for (int b = 0; b < n_blocks; ++b, row += 18) {
    int8_t w[32];
    for (int i = 0; i < 16; ++i) {
      w[i] = static_cast<int8_t>((row[2 + i] & 0xF) - 8);
      w[i + 16] = static_cast<int8_t>((row[2 + i] >> 4) - 8);
    }
    sum += block_f16(row) * x[b].scale * static_cast<float>(dot32(w, x[b].q));
  }
  return sum;
}

// Sub-block j of 32 weights is d * scale_j * q - dmin * min_j, so against inputs s * x it sums to
// s * (d * scale_j * sum(q x) - dmin * min_j * sum(x)).
float row_q4_k(const uint8_t* row, const InputBlock* x, int n_blocks) {
  float sum = 0.0f;
  for (int s = 0; s < n_blocks; ++s, row += 144, x += 8) {
    const float d = block_f16(row), dmin = block_f16(row + 2);
    for (int j = 0; j < 8; ++j) {
      int scale, min;
      q4_k_scale_min(j, row + 4, scale, min);
      const uint8_t* q = row + 16 + (j / 2) * 32;
      int8_t w[32];
      for (int i = 0; i < 32; ++i) w[i] = static_cast<int8_t>(j % 2 == 0 ? q[i] & 0xF : q[i] >> 4);
      sum += x[j].scale * (d * static_cast<float>(scale) * static_cast<float>(dot32(w, x[j].q)) -
                           dmin * static_cast<float>(min) * static_cast<float>(x[j].sum));
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
        sum += d * x->scale * static_cast<float>(scales[2 * g] * low + scales[2 * g + 1] * high);
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
    case BlockFormat::q4_0: row_dot = row_q4_0; break;
    case BlockFormat::q4_k: row_dot = row_q4_k; break;
    case BlockFormat::q6_k: row_dot = row_q6_k; break;
  }
  const int end_output = std::min(end_panel * kPanelWidth, w.n_out);
  for (int r = 0; r < n_rows; ++r)
    for (int o = first_panel * kPanelWidth; o < end_output; ++o)
      out[static_cast<size_t>(r) * w.n_out + o] =
          row_dot(w.block_row(o), x + static_cast<size_t>(r) * x_blocks, n_blocks);
}

}  // namespace kvlab::kernels::scalar
