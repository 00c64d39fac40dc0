// The quantized matmul (block_format.h) on the build's vector instructions, batch-invariant: every
// output is one float lane, which each block (of 32 inputs) updates once, in block order, with its exact
// integer sum times (weight scale x input scale) (add_block's arithmetic, as the scalar twin), whatever
// the number of rows, the thread or the path. Four outputs go together: each block's integer products
// with its inputs in 8- or 16-bit lanes summed into 32-bit ones, the four outputs' sums gathered into one
// vector (lane k: output k), then one float multiply-add a block for the four. A tile is four outputs
// against up to kTileRows rows of x: each weight block, unpacked once, serves every row of the tile.
// xsimd 8 has no widening integer multiply-add, so this file speaks the instruction sets directly: AVX2
// (maddubs, or AVX-512 VNNI's dpbusd) natively, SSE2 (unpack and madd) in a portable build, SSE4.1 in
// wasm, which Emscripten lowers to SIMD128 (i16x8.extend, i32x4.dot_i16x8); on both 128-bit paths Q4_0
// unpacks its nibbles straight into 16-bit lanes. The scalar twin is block_kernels_scalar.cpp. A SIMD
// build without SSE2 (arm64: NEON) has no kernels of its own here yet, and multiplies blocks with the
// scalar twin.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "model/kernels.h"

#if KVLAB_SIMD && !defined(__SSE2__)
namespace kvlab::kernels {

void matmul_blocks(float* out, const InputBlock* x, const PackedMatrix& w, int n_rows, int first_panel, int end_panel) {
  scalar::matmul_blocks(out, x, w, n_rows, first_panel, end_panel);
}

}  // namespace kvlab::kernels
#elif KVLAB_SIMD
#include <immintrin.h>

namespace kvlab::kernels {

namespace {

#if defined(__AVX2__)
// 32 weights or inputs as int8, in one register.
struct Bytes32 {
  __m256i v;
};
using Ints = __m256i;  // 8 int32 partial sums of a block

Bytes32 load32(const void* p) { return {_mm256_loadu_si256(static_cast<const __m256i*>(p))}; }
// The 16 bytes at p as 32 nibbles: the low nibbles first, then the high ones.
Bytes32 nibbles(const uint8_t* p) {
  const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m256i both = _mm256_set_m128i(_mm_srli_epi16(bytes, 4), bytes);
  return {_mm256_and_si256(both, _mm256_set1_epi8(0x0F))};
}
// 32 bytes' nibbles at bit Shift (0 or 4). The shifts are immediates: a shift by a register's count
// costs more.
template <int Shift>
Bytes32 nibbles_at(Bytes32 b) {
  return {_mm256_and_si256(_mm256_srli_epi16(b.v, Shift), _mm256_set1_epi8(0x0F))};
}
// The bits of each byte at Shift (Mask: 3 for Q6_K's two high bits, 1 for Q5_K's fifth), moved to bit 4.
template <int Shift, int Mask>
Bytes32 high_bits_at(Bytes32 b) {
  const __m256i bits = _mm256_and_si256(_mm256_srli_epi16(b.v, Shift), _mm256_set1_epi8(Mask));
  return {_mm256_slli_epi16(bits, 4)};
}
// A Q5_0 or Q5_1 block's 32-bit qh as 32 bytes, byte i 16 where bit i is set and 0 where not: the fifth
// bits, ready to be or-ed onto the nibbles. Each byte takes the byte of the word its bit is in (the word
// broadcast, then shuffled within each 128-bit half), keeps that bit alone, and is all ones where it is set.
Bytes32 fifth_bits(const uint8_t* qh) {
  uint32_t word;
  std::memcpy(&word, qh, sizeof word);
  const __m256i spread = _mm256_shuffle_epi8(_mm256_set1_epi32(static_cast<int>(word)),
                                             _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,  //
                                                              2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3));
  const __m256i bit = _mm256_set1_epi64x(0x8040201008040201);  // byte i: 1 << (i % 8)
  return {_mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(spread, bit), bit), _mm256_set1_epi8(16))};
}
Bytes32 bytes_or(Bytes32 a, Bytes32 b) { return {_mm256_or_si256(a.v, b.v)}; }
Bytes32 minus(Bytes32 a, int k) { return {_mm256_sub_epi8(a.v, _mm256_set1_epi8(static_cast<char>(k)))}; }

// Unsigned weights (0..127) times signed inputs: pairs into int16 (no overflow for 6-bit weights),
// then pairs of those into int32; with AVX-512 VNNI, fours into int32 at once. Lane k holds elements
// 4k .. 4k + 3.
Ints dot_unsigned(Bytes32 w, Bytes32 x) {
#if defined(__AVX512VNNI__) && defined(__AVX512VL__)
  return _mm256_dpbusd_epi32(_mm256_setzero_si256(), w.v, x.v);
#else
  return _mm256_madd_epi16(_mm256_maddubs_epi16(w.v, x.v), _mm256_set1_epi16(1));
#endif
}
// Signed weights: maddubs needs one unsigned operand, so |w| meets x with w's sign.
Ints dot_signed(Bytes32 w, Bytes32 x) {
  return dot_unsigned({_mm256_sign_epi8(w.v, w.v)}, {_mm256_sign_epi8(x.v, w.v)});
}
// The partial sums with elements 0..15 times `low` and 16..31 times `high`.
Ints scaled_halves(Ints sums, int low, int high) {
  return _mm256_mullo_epi32(sums, _mm256_setr_epi32(low, low, low, low, high, high, high, high));
}
// Lane k: the sum of s_k's lanes.
__m128i sum_four(Ints s0, Ints s1, Ints s2, Ints s3) {
  const __m256i pairs = _mm256_hadd_epi32(_mm256_hadd_epi32(s0, s1), _mm256_hadd_epi32(s2, s3));
  return _mm_add_epi32(_mm256_castsi256_si128(pairs), _mm256_extracti128_si256(pairs, 1));
}
// Weights q - offset (Q4_0's 8, Q5_0's 16) against inputs x: q as it is (unsigned, as maddubs takes it),
// offset * sum(x) taken off the four outputs' sums at once.
struct OffsetWeights {
  Bytes32 q;
};
OffsetWeights less_offset(Bytes32 q, int) { return {q}; }
Ints dot_offset(const OffsetWeights& w, Bytes32 x) { return dot_unsigned(w.q, x); }
__m128i offset_sums(__m128i sums, int offset, const InputBlock& in) {
  return _mm_sub_epi32(sums, _mm_set1_epi32(offset * in.sum));
}
// Q4_0 reads its inputs as they are; its sums count 1 each.
using Q4Input = InputBlock;
using Q4Weights = OffsetWeights;
constexpr float kQ4Lanes = 1.0f;
Q4Weights q4_weights(const uint8_t* nibble_bytes) { return {nibbles(nibble_bytes)}; }
Ints dot_q4_0(const Q4Weights& w, const Q4Input& in) { return dot_offset(w, load32(in.q)); }
__m128i q4_sums(__m128i sums, const Q4Input& in) { return offset_sums(sums, 8, in); }
#else
// 32 weights or inputs as int8, in two registers: elements 0..15, then 16..31.
struct Bytes32 {
  __m128i low, high;
};
using Ints = __m128i;  // 4 int32 partial sums of a block

Bytes32 load32(const void* p) {
  const __m128i* v = static_cast<const __m128i*>(p);
  return {_mm_loadu_si128(v), _mm_loadu_si128(v + 1)};
}
Bytes32 nibbles(const uint8_t* p) {
  const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i mask = _mm_set1_epi8(0x0F);
  return {_mm_and_si128(bytes, mask), _mm_and_si128(_mm_srli_epi16(bytes, 4), mask)};
}
template <int Shift>
__m128i nibbles_at(__m128i b) {
  return _mm_and_si128(_mm_srli_epi16(b, Shift), _mm_set1_epi8(0x0F));
}
template <int Shift>
Bytes32 nibbles_at(Bytes32 b) {
  return {nibbles_at<Shift>(b.low), nibbles_at<Shift>(b.high)};
}
template <int Shift, int Mask>
__m128i high_bits_at(__m128i b) {
  return _mm_slli_epi16(_mm_and_si128(_mm_srli_epi16(b, Shift), _mm_set1_epi8(Mask)), 4);
}
template <int Shift, int Mask>
Bytes32 high_bits_at(Bytes32 b) {
  return {high_bits_at<Shift, Mask>(b.low), high_bits_at<Shift, Mask>(b.high)};
}
// As the AVX2 one, without a byte shuffle (SSSE3's, which the portable build lacks): the word's bytes
// doubled, doubled again and again by unpacking, so that each half's 16 bytes hold two of them 8 times.
Bytes32 fifth_bits(const uint8_t* qh) {
  uint32_t word;
  std::memcpy(&word, qh, sizeof word);
  const __m128i v = _mm_cvtsi32_si128(static_cast<int>(word));
  const __m128i twice = _mm_unpacklo_epi8(v, v);            // bytes 0 0 1 1 2 2 3 3
  const __m128i fours = _mm_unpacklo_epi16(twice, twice);   // 0 x4, 1 x4, 2 x4, 3 x4
  const __m128i bit = _mm_set1_epi64x(0x8040201008040201);  // byte i: 1 << (i % 8)
  const auto set = [&](__m128i bytes) {
    return _mm_and_si128(_mm_cmpeq_epi8(_mm_and_si128(bytes, bit), bit), _mm_set1_epi8(16));
  };
  return {set(_mm_unpacklo_epi32(fours, fours)), set(_mm_unpackhi_epi32(fours, fours))};
}
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
// 16 weights times 16 inputs (int8 each) into 4 int32 lanes, each lane the sum of four products. (wasm's
// i16x8.extmul, one instruction for the products, gained nothing measurable under V8:
// docs/log/2026-12-07-quantized-weights.md.)
__m128i dot16(__m128i w, __m128i x) {
  return _mm_add_epi32(_mm_madd_epi16(widen_low(w), widen_low(x)), _mm_madd_epi16(widen_high(w), widen_high(x)));
}
Ints dot_signed(Bytes32 w, Bytes32 x) { return _mm_add_epi32(dot16(w.low, x.low), dot16(w.high, x.high)); }
// Nibbles are below 128, so their int8 reading is their value.
Ints dot_unsigned(Bytes32 w, Bytes32 x) { return dot_signed(w, x); }
// The block's sums with elements 0..15 times `low` and 16..31 times `high`: each half's four lanes times
// its scale, with SSE4.1's 32-bit multiply (one wasm instruction); SSE2 has none, so it scales the
// weights in 16 bits first (a 6-bit weight times an int8 scale fits).
Ints dot_scaled_halves(Bytes32 w, Bytes32 x, int low, int high) {
#if defined(__SSE4_1__)
  return _mm_add_epi32(_mm_mullo_epi32(dot16(w.low, x.low), _mm_set1_epi32(low)),
                       _mm_mullo_epi32(dot16(w.high, x.high), _mm_set1_epi32(high)));
#else
  const auto scaled_dot16 = [](__m128i weights, __m128i inputs, int scale) {
    const __m128i s16 = _mm_set1_epi16(static_cast<short>(scale));
    return _mm_add_epi32(_mm_madd_epi16(_mm_mullo_epi16(widen_low(weights), s16), widen_low(inputs)),
                         _mm_madd_epi16(_mm_mullo_epi16(widen_high(weights), s16), widen_high(inputs)));
  };
  return _mm_add_epi32(scaled_dot16(w.low, x.low, low), scaled_dot16(w.high, x.high, high));
#endif
}
// Lane k: the sum of s_k's lanes.
__m128i sum_four(Ints s0, Ints s1, Ints s2, Ints s3) {
  const __m128i s01 = _mm_add_epi32(_mm_unpacklo_epi32(s0, s1), _mm_unpackhi_epi32(s0, s1));
  const __m128i s23 = _mm_add_epi32(_mm_unpacklo_epi32(s2, s3), _mm_unpackhi_epi32(s2, s3));
  return _mm_add_epi32(_mm_unpacklo_epi64(s01, s23), _mm_unpackhi_epi64(s01, s23));
}
// Weights q - offset (Q4_0's 8, Q5_0's 16): both operands are widened to 16 bits, signed or not, so the
// subtraction costs one instruction a block where a min term cost scalar work for every row.
struct OffsetWeights {
  Bytes32 w;
};
OffsetWeights less_offset(Bytes32 q, int offset) { return {minus(q, offset)}; }
Ints dot_offset(const OffsetWeights& w, Bytes32 x) { return dot_signed(w.w, x); }
__m128i offset_sums(__m128i sums, int, const InputBlock&) { return sums; }
// Q4_0 without widening bytes: each 16-bit lane k of a block's nibbles holds weights 2k, 2k + 16,
// 2k + 1 and 2k + 17 (bits 0-3, 4-7, 8-11, 12-15). With their top bits flipped, each nibble read as
// signed 4 bits is q - 8; moved to the lane's top 4 bits and the rest masked off, it is (q - 8) * 4096
// as int16, and the inputs are split into the same four orders once a call (Q4Input). The sums come out
// 4096 times too large (under 2^27: exact in float, and a power of two off, so that the lane rounds as
// add_block does with the true sum). 7 operations unpack a block, 3 of them shifts, where widening bytes
// took about 10; x86 runs 16-bit shifts and multiply-adds on the same two ports, and masks on a third.
constexpr float kQ4Lanes = 1.0f / 4096.0f;  // what dot_q4_0's sums are multiplied by
struct Q4Input {
  __m128i even_low, even_high, odd_low, odd_high;  // x[0, 2 .. 14], x[16 .. 30], x[1 .. 15], x[17 .. 31]
  float scale;
};
Q4Input q4_input(const InputBlock& in) {
  const Bytes32 x = load32(in.q);
  const auto even = [](__m128i v) { return _mm_srai_epi16(_mm_slli_epi16(v, 8), 8); };
  return {even(x.low), even(x.high), _mm_srai_epi16(x.low, 8), _mm_srai_epi16(x.high, 8), in.scale};
}
struct Q4Weights {
  __m128i even_low, even_high, odd_low, odd_high;
};
Q4Weights q4_weights(const uint8_t* nibbles) {
  const __m128i v = _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(nibbles)),
                                  _mm_set1_epi16(static_cast<short>(0x8888)));
  const __m128i top = _mm_set1_epi16(static_cast<short>(0xF000));
  return {_mm_slli_epi16(v, 12), _mm_and_si128(_mm_slli_epi16(v, 8), top), _mm_and_si128(_mm_slli_epi16(v, 4), top),
          _mm_and_si128(v, top)};
}
Ints dot_q4_0(const Q4Weights& w, const Q4Input& x) {
  return _mm_add_epi32(_mm_add_epi32(_mm_madd_epi16(w.even_low, x.even_low), _mm_madd_epi16(w.even_high, x.even_high)),
                       _mm_add_epi32(_mm_madd_epi16(w.odd_low, x.odd_low), _mm_madd_epi16(w.odd_high, x.odd_high)));
}
__m128i q4_sums(__m128i sums, const Q4Input&) { return sums; }
#endif

// One block's integer sums with elements 0..15 weighted by `low` and 16..31 by `high`.
Ints dot_signed_halves(Bytes32 w, Bytes32 x, int low, int high) {
#if defined(__AVX2__)
  return scaled_halves(dot_signed(w, x), low, high);
#else
  return dot_scaled_halves(w, x, low, high);
#endif
}

// acc + sums * (scales * x_scale) lane by lane, each lane rounded as add_block rounds (block_format.h).
__m128 add_blocks(__m128 acc, __m128 sums, __m128 scales, float x_scale) {
  const __m128 scale = _mm_mul_ps(scales, _mm_set1_ps(x_scale));
#if defined(__FMA__)
  return _mm_fmadd_ps(sums, scale, acc);
#else
  return _mm_add_ps(acc, _mm_mul_ps(sums, scale));
#endif
}

// Block b of four outputs (matrix rows), one pointer each.
struct FourBlocks {
  const uint8_t* p[4];
};

// The four blocks' float16 numbers at `offset`: with F16C, one conversion.
__m128 four_f16(const FourBlocks& w, int offset) {
#if defined(__F16C__)
  uint16_t halves[4];
  for (int k = 0; k < 4; ++k) std::memcpy(&halves[k], w.p[k] + offset, sizeof halves[k]);
  return _mm_cvtph_ps(_mm_setr_epi16(static_cast<short>(halves[0]), static_cast<short>(halves[1]),
                                     static_cast<short>(halves[2]), static_cast<short>(halves[3]), 0, 0, 0, 0));
#else
  return _mm_setr_ps(block_f16(w.p[0] + offset), block_f16(w.p[1] + offset), block_f16(w.p[2] + offset),
                     block_f16(w.p[3] + offset));
#endif
}

// Lane k: dot(w[k], x), output k's integer sum.
template <class W, class X, class Dot>
__m128i gather(const W (&w)[4], const X& x, Dot dot) {
  return sum_four(dot(w[0], x), dot(w[1], x), dot(w[2], x), dot(w[3], x));
}

// Each format's block b of four outputs against R rows of inputs (x[r]: row r's input blocks, of the
// format's Input type), added into acc[r] (lane k: output k). Input is InputBlock, or what `prepare`
// makes of one once a call.
struct Q8_0 {
  using Input = InputBlock;
  template <int R>
  static void block(__m128 (&acc)[R], const FourBlocks& w, const Input* const* x, int b) {
    const __m128 d = four_f16(w, 0);
    Bytes32 q[4];
    for (int k = 0; k < 4; ++k) q[k] = load32(w.p[k] + 2);
    for (int r = 0; r < R; ++r) {
      const InputBlock& in = x[r][b];
      acc[r] = add_blocks(acc[r], _mm_cvtepi32_ps(gather(q, load32(in.q), dot_signed)), d, in.scale);
    }
  }
};

struct Q4_0 {
  using Input = Q4Input;
#if !defined(__AVX2__)
  static Input prepare(const InputBlock& in) { return q4_input(in); }
#endif
  template <int R>
  static void block(__m128 (&acc)[R], const FourBlocks& w, const Input* const* x, int b) {
    const __m128 d = four_f16(w, 0);
    Q4Weights q[4];
    for (int k = 0; k < 4; ++k) q[k] = q4_weights(w.p[k] + 2);
    for (int r = 0; r < R; ++r) {
      const Q4Input& in = x[r][b];  // xs / 4096 is exact (for scales above 2^-114, not 0)
      acc[r] = add_blocks(acc[r], _mm_cvtepi32_ps(q4_sums(gather(q, in, dot_q4_0), in)), d, in.scale * kQ4Lanes);
    }
  }
};

struct Q5_0 {
  using Input = InputBlock;
  template <int R>
  static void block(__m128 (&acc)[R], const FourBlocks& w, const Input* const* x, int b) {
    const __m128 d = four_f16(w, 0);
    OffsetWeights q[4];
    for (int k = 0; k < 4; ++k) q[k] = less_offset(bytes_or(nibbles(w.p[k] + 6), fifth_bits(w.p[k] + 2)), 16);
    for (int r = 0; r < R; ++r) {
      const InputBlock& in = x[r][b];
      const __m128i sums = offset_sums(gather(q, load32(in.q), dot_offset), 16, in);
      acc[r] = add_blocks(acc[r], _mm_cvtepi32_ps(sums), d, in.scale);
    }
  }
};

// w = d * q + m: against inputs s * x, d s sum(q x) and then m s sum(x), as the scalar twin.
struct Q5_1 {
  using Input = InputBlock;
  template <int R>
  static void block(__m128 (&acc)[R], const FourBlocks& w, const Input* const* x, int b) {
    const __m128 d = four_f16(w, 0), m = four_f16(w, 2);
    Bytes32 q[4];
    for (int k = 0; k < 4; ++k) q[k] = bytes_or(nibbles(w.p[k] + 8), fifth_bits(w.p[k] + 4));
    for (int r = 0; r < R; ++r) {
      const InputBlock& in = x[r][b];
      acc[r] = add_blocks(acc[r], _mm_cvtepi32_ps(gather(q, load32(in.q), dot_unsigned)), d, in.scale);
      acc[r] = add_blocks(acc[r], _mm_set1_ps(static_cast<float>(in.sum)), m, in.scale);
    }
  }
};

// Q4_K, or Q5_K with FifthBits: sub-block J's weights d * scale_J * q - dmin * min_J. Against inputs s * x
// it adds d s (scale_J sum(q x)) and then (-dmin) s (min_J sum(x)); both integers are under 2^23, so
// their products taken in float are exact.
template <bool FifthBits>
struct KWithMins {
  using Input = InputBlock;
  template <int R, int J>
  static void sub_block(__m128 (&acc)[R], const FourBlocks& w, __m128 d, __m128 neg_dmin, const Input* const* x,
                        int u) {
    int scale[4], min[4];
    Bytes32 q[4];
    for (int k = 0; k < 4; ++k) {
      q4_k_scale_min(J, w.p[k] + 4, scale[k], min[k]);
      q[k] = nibbles_at<4 * (J % 2)>(load32(w.p[k] + (FifthBits ? 48 : 16) + 32 * (J / 2)));
      if constexpr (FifthBits) q[k] = bytes_or(q[k], high_bits_at<J, 1>(load32(w.p[k] + 16)));
    }
    const __m128 scales = _mm_cvtepi32_ps(_mm_setr_epi32(scale[0], scale[1], scale[2], scale[3]));
    const __m128 mins = _mm_cvtepi32_ps(_mm_setr_epi32(min[0], min[1], min[2], min[3]));
    for (int r = 0; r < R; ++r) {
      const InputBlock& in = x[r][u];
      const __m128 sums = _mm_mul_ps(_mm_cvtepi32_ps(gather(q, load32(in.q), dot_unsigned)), scales);
      acc[r] = add_blocks(acc[r], sums, d, in.scale);
      acc[r] = add_blocks(acc[r], _mm_mul_ps(mins, _mm_set1_ps(static_cast<float>(in.sum))), neg_dmin, in.scale);
    }
  }
  template <int R>
  static void block(__m128 (&acc)[R], const FourBlocks& w, const Input* const* x, int b) {
    const __m128 d = four_f16(w, 0), neg_dmin = _mm_xor_ps(four_f16(w, 2), _mm_set1_ps(-0.0f));
    const int u = 8 * b;  // the block's first input block
    sub_block<R, 0>(acc, w, d, neg_dmin, x, u);
    sub_block<R, 1>(acc, w, d, neg_dmin, x, u + 1);
    sub_block<R, 2>(acc, w, d, neg_dmin, x, u + 2);
    sub_block<R, 3>(acc, w, d, neg_dmin, x, u + 3);
    sub_block<R, 4>(acc, w, d, neg_dmin, x, u + 4);
    sub_block<R, 5>(acc, w, d, neg_dmin, x, u + 5);
    sub_block<R, 6>(acc, w, d, neg_dmin, x, u + 6);
    sub_block<R, 7>(acc, w, d, neg_dmin, x, u + 7);
  }
};

// Group G (0..3) of a Q6_K half: 32 weights from ql's first or second 32 bytes (G % 2), their low or
// high nibbles (G / 2), and bits 2G, 2G + 1 of qh, less 32; the integer sum of the first 16 products
// times scales[2G], of the last 16 times scales[2G + 1].
struct Q6_K {
  using Input = InputBlock;
  template <int R, int Half, int G>
  static void group(__m128 (&acc)[R], const FourBlocks& w, __m128 d, const Input* const* x, int u) {
    Bytes32 q[4];
    int low[4], high[4];
    for (int k = 0; k < 4; ++k) {
      const uint8_t* block = w.p[k];
      const Bytes32 ql = load32(block + 64 * Half + 32 * (G % 2)), qh = load32(block + 128 + 32 * Half);
      q[k] = minus(bytes_or(nibbles_at<4 * (G / 2)>(ql), high_bits_at<2 * G, 3>(qh)), 32);
      const int8_t* scales = reinterpret_cast<const int8_t*>(block + 192 + 8 * Half);
      low[k] = scales[2 * G];
      high[k] = scales[2 * G + 1];
    }
    for (int r = 0; r < R; ++r) {
      const InputBlock& in = x[r][u];
      const Bytes32 xv = load32(in.q);
      const __m128i sums =
          sum_four(dot_signed_halves(q[0], xv, low[0], high[0]), dot_signed_halves(q[1], xv, low[1], high[1]),
                   dot_signed_halves(q[2], xv, low[2], high[2]), dot_signed_halves(q[3], xv, low[3], high[3]));
      acc[r] = add_blocks(acc[r], _mm_cvtepi32_ps(sums), d, in.scale);
    }
  }
  template <int R>
  static void block(__m128 (&acc)[R], const FourBlocks& w, const Input* const* x, int b) {
    const __m128 d = four_f16(w, 208);
    const int u = 8 * b;
    group<R, 0, 0>(acc, w, d, x, u);
    group<R, 0, 1>(acc, w, d, x, u + 1);
    group<R, 0, 2>(acc, w, d, x, u + 2);
    group<R, 0, 3>(acc, w, d, x, u + 3);
    group<R, 1, 0>(acc, w, d, x, u + 4);
    group<R, 1, 1>(acc, w, d, x, u + 5);
    group<R, 1, 2>(acc, w, d, x, u + 6);
    group<R, 1, 3>(acc, w, d, x, u + 7);
  }
};

// A quantized matrix's rows of blocks as the tiles walk them, worked out once a call rather than for
// every few outputs.
struct BlockRows {
  BlockFormat format;
  const uint8_t* first;  // row 0's first block
  size_t row_bytes;
  int block_bytes;
  int n_blocks;        // blocks a row
  int inputs_a_block;  // input blocks (of 32) a block covers: 1, or 8 for the K-quants
  int n_out;
  const uint8_t* row(int o) const { return first + static_cast<size_t>(o) * row_bytes; }
};

// At block b of a tile of O rows from `first_row`: asks for block b's share of the bytes that the tile
// two on will read (its O rows lie together, 2 O rows on). A one-row step reads its rows a few at a
// time, a few hundred bytes each, too short for the hardware prefetcher to run ahead of: without this,
// the Qwen2.5-0.5B-shaped Q4_0 file's one-row step read 5 GB/s and took 54 ms, with it 8.6 GB/s and 32.
// The address is worked out as an integer: past the matrix's last rows it is only a hint, never read.
void prefetch_ahead(const BlockRows& w, const uint8_t* first_row, int O, int b) {
  const size_t share = static_cast<size_t>(O) * static_cast<size_t>(w.block_bytes);
  const uintptr_t from = reinterpret_cast<uintptr_t>(first_row) + 2 * static_cast<size_t>(O) * w.row_bytes + b * share;
  for (size_t offset = 0; offset < share; offset += 64)
    _mm_prefetch(reinterpret_cast<const char*>(from + offset), _MM_HINT_T0);
}

// Outputs o .. o + 3 against R rows of x, block by block: R running sums of four lanes, each lane one
// output's. Past `end` (a call's last outputs) a lane repeats output end - 1, so that a tail's outputs
// take exactly the arithmetic of a whole group's; only outputs below `end` are stored. out: row r's
// output o at out[r * stride + o].
template <class F, int R>
void tile(float* out, size_t stride, const BlockRows& w, int o, int end, const typename F::Input* const* x) {
  const uint8_t* rows[4];
  for (int k = 0; k < 4; ++k) rows[k] = w.row(std::min(o + k, end - 1));
  __m128 acc[R];
  for (int r = 0; r < R; ++r) acc[r] = _mm_setzero_ps();
  for (int b = 0; b < w.n_blocks; ++b) {
    prefetch_ahead(w, rows[0], 4, b);
    const size_t at = static_cast<size_t>(b) * w.block_bytes;
    F::template block<R>(acc, FourBlocks{{rows[0] + at, rows[1] + at, rows[2] + at, rows[3] + at}}, x, b);
  }
  for (int r = 0; r < R; ++r) {
    float* dst = out + r * stride + o;
    if (end - o >= 4) {
      _mm_storeu_ps(dst, acc[r]);
    } else {
      float lanes[4];
      _mm_storeu_ps(lanes, acc[r]);
      for (int k = 0; k < end - o; ++k) dst[k] = lanes[k];
    }
  }
}

// Rows of x each unpacked weight block serves.
constexpr int kTileRows = 4;

// Calls tile(std::integral_constant<int, count>{}) for a count of 1 .. R rows.
template <int R, class Tile>
void with_rows(int count, const Tile& tile) {
  if constexpr (R > 1) {
    if (count < R) return with_rows<R - 1>(count, tile);
  }
  tile(std::integral_constant<int, R>{});
}

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VNNI__) && defined(__FMA__)
// Q4_0 and Q8_0 with AVX-512: sixteen outputs a vector, lane k output k, whose integer sums need no
// gathering. Each block's weights are turned on their side once a tile (4 x 4 transposes of 32-bit
// words: word j of every output in one vector), so that each row of x meets them in eight dpbusd, its
// words broadcast, each adding 4 products to all sixteen outputs at once: a row costs about 20
// instructions a block for sixteen outputs, where gathering four outputs' sums cost about as many for four.
constexpr int kWideOutputs = 16, kWideTileRows = 8;

// words[j]: word j of the 16 bytes at `bytes` + k rb in lane k (four 128-bit loads a vector, transposed
// 4 x 4 within each 128-bit lane).
void sixteen_words(__m512i (&words)[4], const uint8_t* bytes, size_t rb) {
  const auto load16 = [](const uint8_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); };
  __m512i z[4];  // z[m]'s 128-bit lane L: the bytes at 4L + m
  for (int m = 0; m < 4; ++m) {
    const uint8_t* p = bytes + m * rb;
    z[m] = _mm512_inserti32x4(
        _mm512_inserti32x4(_mm512_inserti32x4(_mm512_castsi128_si512(load16(p)), load16(p + 4 * rb), 1),
                           load16(p + 8 * rb), 2),
        load16(p + 12 * rb), 3);
  }
  const __m512i t0 = _mm512_unpacklo_epi32(z[0], z[1]), t1 = _mm512_unpackhi_epi32(z[0], z[1]);
  const __m512i t2 = _mm512_unpacklo_epi32(z[2], z[3]), t3 = _mm512_unpackhi_epi32(z[2], z[3]);
  words[0] = _mm512_unpacklo_epi64(t0, t2);
  words[1] = _mm512_unpackhi_epi64(t0, t2);
  words[2] = _mm512_unpacklo_epi64(t1, t3);
  words[3] = _mm512_unpackhi_epi64(t1, t3);
}

// A block's weights for sixteen outputs: q[j] holds weights 4j .. 4j + 3 of each; `offsets` what the
// sums carry beyond the true ones that does not depend on x (0 for Q4_0, whose offset goes with sum(x)).
struct SixteenBlocks {
  __m512i q[8];
  __m512i offsets;
};

// Q4_0: the nibbles as they are (unsigned, dpbusd's first operand), 8 sum(x) taken off each row's sums.
struct WideQ4_0 {
  static void unpack(SixteenBlocks& w, const uint8_t* block, size_t rb) {
    __m512i words[4];
    sixteen_words(words, block + 2, rb);
    const __m512i low_nibbles = _mm512_set1_epi8(0x0F);
    for (int j = 0; j < 4; ++j) {  // byte i holds weights i and i + 16
      w.q[j] = _mm512_and_si512(words[j], low_nibbles);
      w.q[j + 4] = _mm512_and_si512(_mm512_srli_epi16(words[j], 4), low_nibbles);
    }
    w.offsets = _mm512_setzero_si512();
  }
  static __m512i dot(__m512i acc, __m512i q, int32_t x_word) {
    return _mm512_dpbusd_epi32(acc, q, _mm512_set1_epi32(x_word));
  }
  static int row_offset(const InputBlock& in) { return 8 * in.sum; }
};

// Q8_0: signed weights meet x + 128 (x's sign bit flipped: unsigned, dpbusd's first operand), and
// 128 sum(q), worked out once a block, is taken off.
struct WideQ8_0 {
  static void unpack(SixteenBlocks& w, const uint8_t* block, size_t rb) {
    __m512i words[4];
    sixteen_words(words, block + 2, rb);
    for (int j = 0; j < 4; ++j) w.q[j] = words[j];
    sixteen_words(words, block + 18, rb);
    for (int j = 0; j < 4; ++j) w.q[j + 4] = words[j];
    w.offsets = _mm512_setzero_si512();
    for (int j = 0; j < 8; ++j)
      w.offsets = _mm512_dpbusd_epi32(w.offsets, _mm512_set1_epi8(static_cast<char>(0x80)), w.q[j]);
  }
  static __m512i dot(__m512i acc, __m512i q, int32_t x_word) {
    return _mm512_dpbusd_epi32(acc,
                               _mm512_set1_epi32(static_cast<int32_t>(static_cast<uint32_t>(x_word) ^ 0x80808080u)), q);
  }
  static int row_offset(const InputBlock&) { return 0; }
};

template <class Wide, int R>
void sixteen_outputs(float* out, size_t stride, const BlockRows& w, int o, const InputBlock* const* x) {
  const uint8_t* first_row = w.row(o);
  const size_t rb = w.row_bytes;
  // Each output's block start from output o's: the float16 scale d is the low half of the word there.
  const __m512i starts = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                            _mm512_set1_epi32(static_cast<int>(rb)));
  __m512 acc[R];
  for (int r = 0; r < R; ++r) acc[r] = _mm512_setzero_ps();
  for (int b = 0; b < w.n_blocks; ++b) {
    prefetch_ahead(w, first_row, kWideOutputs, b);
    const uint8_t* block = first_row + static_cast<size_t>(b) * w.block_bytes;
    const __m512 d = _mm512_cvtph_ps(_mm512_cvtepi32_epi16(_mm512_i32gather_epi32(starts, block, 1)));
    SixteenBlocks weights;
    Wide::unpack(weights, block, rb);
    for (int r = 0; r < R; ++r) {
      const InputBlock& in = x[r][b];
      int32_t xw[8];
      std::memcpy(xw, in.q, sizeof xw);
      __m512i even = _mm512_setzero_si512(), odd = _mm512_setzero_si512();  // two chains of dpbusd, not one
      for (int j = 0; j < 8; j += 2) {
        even = Wide::dot(even, weights.q[j], xw[j]);
        odd = Wide::dot(odd, weights.q[j + 1], xw[j + 1]);
      }
      const __m512i sums = _mm512_sub_epi32(_mm512_sub_epi32(_mm512_add_epi32(even, odd), weights.offsets),
                                            _mm512_set1_epi32(Wide::row_offset(in)));
      acc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(sums), _mm512_mul_ps(d, _mm512_set1_ps(in.scale)), acc[r]);
    }
  }
  for (int r = 0; r < R; ++r) _mm512_storeu_ps(out + r * stride + o, acc[r]);
}

// Outputs o .. in groups of sixteen up to `end` for every row; returns where they stop.
template <class Wide>
int sixteen_output_groups(float* out, const InputBlock* x, const BlockRows& w, int n_rows, int o, int end) {
  const size_t x_blocks = static_cast<size_t>(w.n_blocks);
  const size_t stride = static_cast<size_t>(w.n_out);
  for (; o + kWideOutputs <= end; o += kWideOutputs)
    for (int r = 0; r < n_rows; r += kWideTileRows) {
      const InputBlock* rows[kWideTileRows];
      const int count = std::min(kWideTileRows, n_rows - r);
      for (int k = 0; k < count; ++k) rows[k] = x + (r + k) * x_blocks;
      with_rows<kWideTileRows>(count, [&](auto tile_rows) {
        sixteen_outputs<Wide, decltype(tile_rows)::value>(out + r * stride, stride, w, o, rows);
      });
    }
  return o;
}
#endif

template <class F>
void matmul_format(float* out, const InputBlock* x, const BlockRows& w, int n_rows, int first, int end) {
  using Input = typename F::Input;
  const size_t x_blocks = static_cast<size_t>(w.n_blocks) * w.inputs_a_block;
  const size_t stride = static_cast<size_t>(w.n_out);
  const Input* inputs;
  std::vector<Input> prepared;
  if constexpr (std::is_same_v<Input, InputBlock>) {
    inputs = x;
  } else {
    prepared.resize(static_cast<size_t>(n_rows) * x_blocks);
    for (size_t i = 0; i < prepared.size(); ++i) prepared[i] = F::prepare(x[i]);
    inputs = prepared.data();
  }
  // Groups of outputs outer, tiles of rows inner: a group's weight rows stay in L1 while every tile of
  // rows uses them, so each weight comes from memory once per step however many rows there are.
  int o = first;
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VNNI__) && defined(__FMA__)
  if constexpr (std::is_same_v<F, Q4_0>) o = sixteen_output_groups<WideQ4_0>(out, x, w, n_rows, o, end);
  if constexpr (std::is_same_v<F, Q8_0>) o = sixteen_output_groups<WideQ8_0>(out, x, w, n_rows, o, end);
#endif
  for (; o < end; o += 4)
    for (int r = 0; r < n_rows; r += kTileRows) {
      const Input* rows[kTileRows];
      const int count = std::min(kTileRows, n_rows - r);
      for (int k = 0; k < count; ++k) rows[k] = inputs + (r + k) * x_blocks;
      with_rows<kTileRows>(count, [&](auto tile_rows) {
        tile<F, decltype(tile_rows)::value>(out + r * stride, stride, w, o, end, rows);
      });
    }
}

}  // namespace

void matmul_blocks(float* out, const InputBlock* x, const PackedMatrix& w, int n_rows, int first_panel, int end_panel) {
  const int first = first_panel * kPanelWidth, end = std::min(end_panel * kPanelWidth, w.n_out);
  const BlockFormatTraits& t = traits(*w.blocks);
  const BlockRows rows{
      *w.blocks, w.block_row(0), w.row_bytes(), t.bytes, w.n_in / t.elements, t.elements / kInputBlockWidth, w.n_out};
  if (first >= end) return;
  switch (rows.format) {
    case BlockFormat::q8_0: return matmul_format<Q8_0>(out, x, rows, n_rows, first, end);
    case BlockFormat::q4_0: return matmul_format<Q4_0>(out, x, rows, n_rows, first, end);
    case BlockFormat::q5_0: return matmul_format<Q5_0>(out, x, rows, n_rows, first, end);
    case BlockFormat::q5_1: return matmul_format<Q5_1>(out, x, rows, n_rows, first, end);
    case BlockFormat::q4_k: return matmul_format<KWithMins<false> >(out, x, rows, n_rows, first, end);
    case BlockFormat::q5_k: return matmul_format<KWithMins<true> >(out, x, rows, n_rows, first, end);
    case BlockFormat::q6_k: return matmul_format<Q6_K>(out, x, rows, n_rows, first, end);
  }
}

}  // namespace kvlab::kernels
#endif
