// The quantized matmul (block_format.h) on the build's vector instructions: each block's integer
// products with its inputs in 8- or 16-bit lanes summed into 32-bit ones, then one float multiply-add
// a block into a vector of running sums, summed across at the end of the row. xsimd 8 has no widening
// integer multiply-add, so this file speaks the instruction sets directly: AVX2 (maddubs) natively,
// SSE2 (unpack and madd) in a portable build, SSE4.1 in wasm, which Emscripten lowers to SIMD128
// (i16x8.extend, i32x4.dot_i16x8). Rows of x are taken R at a time, so that each block's weights,
// once unpacked, serve R rows. The scalar twin is block_kernels_scalar.cpp.
#include <algorithm>
#include <cstddef>

#include "model/kernels.h"

#if KVLAB_SIMD
#include <immintrin.h>

namespace kvlab::kernels {

namespace {

#if defined(__AVX2__)
// 32 weights or inputs as int8, in one register.
struct Bytes32 {
  __m256i v;
};
using Ints = __m256i;  // 8 int32 partial sums of a block
using Floats = __m256;

Bytes32 load32(const void* p) { return {_mm256_loadu_si256(static_cast<const __m256i*>(p))}; }
// The 16 bytes at p as 32 nibbles: the low nibbles first, then the high ones.
Bytes32 nibbles(const uint8_t* p) {
  const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m256i both = _mm256_set_m128i(_mm_srli_epi16(bytes, 4), bytes);
  return {_mm256_and_si256(both, _mm256_set1_epi8(0x0F))};
}
// 32 bytes' nibbles at bit `shift` (0 or 4).
Bytes32 nibbles_at(Bytes32 b, int shift) {
  return {_mm256_and_si256(_mm256_srl_epi16(b.v, _mm_cvtsi32_si128(shift)), _mm256_set1_epi8(0x0F))};
}
// Two bits at `shift`, moved to bits 4 and 5.
Bytes32 high_pair_at(Bytes32 b, int shift) {
  const __m256i bits = _mm256_and_si256(_mm256_srl_epi16(b.v, _mm_cvtsi32_si128(shift)), _mm256_set1_epi8(3));
  return {_mm256_slli_epi16(bits, 4)};
}
Bytes32 bytes_or(Bytes32 a, Bytes32 b) { return {_mm256_or_si256(a.v, b.v)}; }
Bytes32 minus(Bytes32 a, int k) { return {_mm256_sub_epi8(a.v, _mm256_set1_epi8(static_cast<char>(k)))}; }

// Unsigned weights (0..127) times signed inputs: pairs into int16 (no overflow for 6-bit weights),
// then pairs of those into int32. Lane k holds elements 4k .. 4k + 3.
Ints dot_unsigned(Bytes32 w, Bytes32 x) {
  return _mm256_madd_epi16(_mm256_maddubs_epi16(w.v, x.v), _mm256_set1_epi16(1));
}
// Signed weights: maddubs needs one unsigned operand, so |w| meets x with w's sign.
Ints dot_signed(Bytes32 w, Bytes32 x) {
  return dot_unsigned({_mm256_sign_epi8(w.v, w.v)}, {_mm256_sign_epi8(x.v, w.v)});
}
// The partial sums with elements 0..15 times `low` and 16..31 times `high`.
Ints scaled_halves(Ints sums, int low, int high) {
  return _mm256_mullo_epi32(sums, _mm256_setr_epi32(low, low, low, low, high, high, high, high));
}
Floats zero_floats() { return _mm256_setzero_ps(); }
Floats add_scaled(Floats acc, float scale, Ints sums) {
  return _mm256_fmadd_ps(_mm256_set1_ps(scale), _mm256_cvtepi32_ps(sums), acc);
}
float sum_across(Floats acc) {
  const __m128 four = _mm_add_ps(_mm256_castps256_ps128(acc), _mm256_extractf128_ps(acc, 1));
  const __m128 two = _mm_add_ps(four, _mm_movehl_ps(four, four));
  return _mm_cvtss_f32(_mm_add_ss(two, _mm_shuffle_ps(two, two, 1)));
}
#else
// 32 weights or inputs as int8, in two registers: elements 0..15, then 16..31.
struct Bytes32 {
  __m128i low, high;
};
using Ints = __m128i;  // 4 int32 partial sums of a block
using Floats = __m128;

Bytes32 load32(const void* p) {
  const __m128i* v = static_cast<const __m128i*>(p);
  return {_mm_loadu_si128(v), _mm_loadu_si128(v + 1)};
}
Bytes32 nibbles(const uint8_t* p) {
  const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i mask = _mm_set1_epi8(0x0F);
  return {_mm_and_si128(bytes, mask), _mm_and_si128(_mm_srli_epi16(bytes, 4), mask)};
}
__m128i nibbles_at(__m128i b, int shift) {
  return _mm_and_si128(_mm_srl_epi16(b, _mm_cvtsi32_si128(shift)), _mm_set1_epi8(0x0F));
}
Bytes32 nibbles_at(Bytes32 b, int shift) { return {nibbles_at(b.low, shift), nibbles_at(b.high, shift)}; }
__m128i high_pair_at(__m128i b, int shift) {
  return _mm_slli_epi16(_mm_and_si128(_mm_srl_epi16(b, _mm_cvtsi32_si128(shift)), _mm_set1_epi8(3)), 4);
}
Bytes32 high_pair_at(Bytes32 b, int shift) { return {high_pair_at(b.low, shift), high_pair_at(b.high, shift)}; }
Bytes32 bytes_or(Bytes32 a, Bytes32 b) { return {_mm_or_si128(a.low, b.low), _mm_or_si128(a.high, b.high)}; }
Bytes32 minus(Bytes32 a, int k) {
  const __m128i kv = _mm_set1_epi8(static_cast<char>(k));
  return {_mm_sub_epi8(a.low, kv), _mm_sub_epi8(a.high, kv)};
}

// Sign-extends the low or high 8 bytes to int16 (SSE4.1's pmovsxbw where there is one: one wasm op).
__m128i widen_low(__m128i v) {
#if defined(__SSE4_1__)
  return _mm_cvtepi8_epi16(v);
#else
  return _mm_srai_epi16(_mm_unpacklo_epi8(v, v), 8);
#endif
}
__m128i widen_high(__m128i v) {
#if defined(__SSE4_1__)
  return _mm_cvtepi8_epi16(_mm_srli_si128(v, 8));
#else
  return _mm_srai_epi16(_mm_unpackhi_epi8(v, v), 8);
#endif
}
// 16 weights times 16 inputs (int8 each), optionally times an int16 scale, into 4 int32 lanes.
__m128i dot16(__m128i w, __m128i x, __m128i scale) {
  return _mm_add_epi32(_mm_madd_epi16(_mm_mullo_epi16(widen_low(w), scale), widen_low(x)),
                       _mm_madd_epi16(_mm_mullo_epi16(widen_high(w), scale), widen_high(x)));
}
__m128i dot16(__m128i w, __m128i x) {
  return _mm_add_epi32(_mm_madd_epi16(widen_low(w), widen_low(x)), _mm_madd_epi16(widen_high(w), widen_high(x)));
}
Ints dot_signed(Bytes32 w, Bytes32 x) { return _mm_add_epi32(dot16(w.low, x.low), dot16(w.high, x.high)); }
// Nibbles are below 128, so their int8 reading is their value.
Ints dot_unsigned(Bytes32 w, Bytes32 x) { return dot_signed(w, x); }
// The block's sums with elements 0..15 times `low` and 16..31 times `high` (scaled in 16 bits: a 6-bit
// weight times an int8 scale fits).
Ints dot_scaled_halves(Bytes32 w, Bytes32 x, int low, int high) {
  return _mm_add_epi32(dot16(w.low, x.low, _mm_set1_epi16(static_cast<short>(low))),
                       dot16(w.high, x.high, _mm_set1_epi16(static_cast<short>(high))));
}
Floats zero_floats() { return _mm_setzero_ps(); }
Floats add_scaled(Floats acc, float scale, Ints sums) {
  return _mm_add_ps(acc, _mm_mul_ps(_mm_set1_ps(scale), _mm_cvtepi32_ps(sums)));
}
float sum_across(Floats acc) {
  const __m128 two = _mm_add_ps(acc, _mm_movehl_ps(acc, acc));
  return _mm_cvtss_f32(_mm_add_ss(two, _mm_shuffle_ps(two, two, 1)));
}
#endif

// One block's integer sums with elements 0..15 weighted by `low` and 16..31 by `high`.
Ints dot_signed_halves(Bytes32 w, Bytes32 x, int low, int high) {
#if defined(__AVX2__)
  return scaled_halves(dot_signed(w, x), low, high);
#else
  return dot_scaled_halves(w, x, low, high);
#endif
}

// R rows of x, each with its running sums. x[r] points at row r's blocks.
template <int R>
struct RowSums {
  Floats acc[R];
  float extra[R] = {};  // terms added outside the vectors (Q4_K's mins)
  RowSums() {
    for (int r = 0; r < R; ++r) acc[r] = zero_floats();
  }
};

template <int R>
void rows_q8_0(RowSums<R>& s, const uint8_t* row, const InputBlock* const* x, int n_blocks) {
  for (int b = 0; b < n_blocks; ++b, row += 34) {
    const float d = block_f16(row);
    const Bytes32 w = load32(row + 2);
    for (int r = 0; r < R; ++r) s.acc[r] = add_scaled(s.acc[r], d * x[r][b].scale, dot_signed(w, load32(x[r][b].q)));
  }
}

template <int R>
void rows_q4_0(RowSums<R>& s, const uint8_t* row, const InputBlock* const* x, int n_blocks) {
  for (int b = 0; b < n_blocks; ++b, row += 18) {
    const float d = block_f16(row);
    const Bytes32 w = minus(nibbles(row + 2), 8);
    for (int r = 0; r < R; ++r) s.acc[r] = add_scaled(s.acc[r], d * x[r][b].scale, dot_signed(w, load32(x[r][b].q)));
  }
}

template <int R>
void rows_q4_k(RowSums<R>& s, const uint8_t* row, const InputBlock* const* x, int n_blocks) {
  for (int b = 0; b < n_blocks; ++b, row += 144) {
    const float d = block_f16(row), dmin = block_f16(row + 2);
    for (int pair = 0; pair < 4; ++pair) {
      const Bytes32 q = load32(row + 16 + 32 * pair);
      for (int half = 0; half < 2; ++half) {
        const int j = 2 * pair + half;
        int scale, min;
        q4_k_scale_min(j, row + 4, scale, min);
        const Bytes32 w = nibbles_at(q, 4 * half);
        const float d_scale = d * static_cast<float>(scale), d_min = dmin * static_cast<float>(min);
        for (int r = 0; r < R; ++r) {
          const InputBlock& in = x[r][8 * b + j];
          s.acc[r] = add_scaled(s.acc[r], in.scale * d_scale, dot_unsigned(w, load32(in.q)));
          s.extra[r] -= in.scale * d_min * static_cast<float>(in.sum);
        }
      }
    }
  }
}

template <int R>
void rows_q6_k(RowSums<R>& s, const uint8_t* row, const InputBlock* const* x, int n_blocks) {
  for (int b = 0; b < n_blocks; ++b, row += 210) {
    const float d = block_f16(row + 208);
    for (int half = 0; half < 2; ++half) {
      const Bytes32 ql[2] = {load32(row + 64 * half), load32(row + 64 * half + 32)};
      const Bytes32 qh = load32(row + 128 + 32 * half);
      const int8_t* scales = reinterpret_cast<const int8_t*>(row + 192 + 8 * half);
      for (int g = 0; g < 4; ++g) {
        const Bytes32 w = minus(bytes_or(nibbles_at(ql[g % 2], 4 * (g / 2)), high_pair_at(qh, 2 * g)), 32);
        for (int r = 0; r < R; ++r) {
          const InputBlock& in = x[r][8 * b + 4 * half + g];
          s.acc[r] =
              add_scaled(s.acc[r], d * in.scale, dot_signed_halves(w, load32(in.q), scales[2 * g], scales[2 * g + 1]));
        }
      }
    }
  }
}

template <int R>
void rows_block(float* out, size_t out_stride, const uint8_t* row, BlockFormat format, const InputBlock* const* x,
                int n_blocks) {
  RowSums<R> s;
  switch (format) {
    case BlockFormat::q8_0: rows_q8_0(s, row, x, n_blocks); break;
    case BlockFormat::q4_0: rows_q4_0(s, row, x, n_blocks); break;
    case BlockFormat::q4_k: rows_q4_k(s, row, x, n_blocks); break;
    case BlockFormat::q6_k: rows_q6_k(s, row, x, n_blocks); break;
  }
  for (int r = 0; r < R; ++r) out[static_cast<size_t>(r) * out_stride] = sum_across(s.acc[r]) + s.extra[r];
}

constexpr int kBlockRows = 4;  // rows of x each unpacked block serves

}  // namespace

void matmul_blocks(float* out, const InputBlock* x, const PackedMatrix& w, int n_rows, int first_panel, int end_panel) {
  const int n_blocks = w.n_in / traits(*w.blocks).elements;
  const size_t x_blocks = static_cast<size_t>(w.n_in / kInputBlockWidth);
  const int end_output = std::min(end_panel * kPanelWidth, w.n_out);
  const size_t stride = static_cast<size_t>(w.n_out);
  for (int o = first_panel * kPanelWidth; o < end_output; ++o) {
    const uint8_t* row = w.block_row(o);
    int r = 0;
    for (; r < n_rows; r += kBlockRows) {
      const InputBlock* rows[kBlockRows];
      const int count = std::min(kBlockRows, n_rows - r);
      for (int k = 0; k < count; ++k) rows[k] = x + (r + k) * x_blocks;
      float* dst = out + r * stride + o;
      switch (count) {
        case 4: rows_block<4>(dst, stride, row, *w.blocks, rows, n_blocks); break;
        case 3: rows_block<3>(dst, stride, row, *w.blocks, rows, n_blocks); break;
        case 2: rows_block<2>(dst, stride, row, *w.blocks, rows, n_blocks); break;
        default: rows_block<1>(dst, stride, row, *w.blocks, rows, n_blocks); break;
      }
    }
  }
}

}  // namespace kvlab::kernels
#endif
