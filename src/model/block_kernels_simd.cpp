// The quantized matmul (block_format.h) on the build's vector instructions: each block's integer
// products with its inputs in 8- or 16-bit lanes summed into 32-bit ones, then one float multiply-add
// a block into a vector of running sums, summed across at the end of the row. xsimd 8 has no widening
// integer multiply-add, so this file speaks the instruction sets directly: AVX2 (maddubs) natively,
// SSE2 (unpack and madd) in a portable build, SSE4.1 in wasm, which Emscripten lowers to SIMD128
// (i16x8.extend, i32x4.dot_i16x8); on both 128-bit paths Q4_0 unpacks its nibbles straight into 16-bit
// lanes. Rows of x are taken R at a time, so that each block's weights, once unpacked, serve R rows. The scalar twin is block_kernels_scalar.cpp. A SIMD build without SSE2
// (arm64: NEON) has no kernels of its own here yet, and multiplies blocks with the scalar twin.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
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
using Floats = __m256;

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
Floats zero_floats() { return _mm256_setzero_ps(); }
Floats add_scaled(Floats acc, float scale, Ints sums) {
  return _mm256_fmadd_ps(_mm256_set1_ps(scale), _mm256_cvtepi32_ps(sums), acc);
}
float sum_across(Floats acc) {
  const __m128 four = _mm_add_ps(_mm256_castps256_ps128(acc), _mm256_extractf128_ps(acc, 1));
  const __m128 two = _mm_add_ps(four, _mm_movehl_ps(four, four));
  return _mm_cvtss_f32(_mm_add_ss(two, _mm_shuffle_ps(two, two, 1)));
}
// Q4_0 against a block of inputs: its nibbles as they are (0..15) times x, the offset 8 taken off once
// the sums of four rows are together (sum_four). Sums count 1 each: kQ4Lanes is 1.
constexpr float kQ4Lanes = 1.0f;
struct Q4Inputs {
  Bytes32 x;
  __m128i eight_sums;  // 8 * the block's sum of x, in every lane
};
Q4Inputs q4_inputs(const InputBlock& in) { return {load32(in.q), _mm_set1_epi32(8 * in.sum)}; }
Ints dot_q4_0(const uint8_t* nibble_bytes, const Q4Inputs& in) { return dot_unsigned(nibbles(nibble_bytes), in.x); }
// Lane k: the sum of row k's lanes, less the offset's share.
__m128i sum_four(Ints s0, Ints s1, Ints s2, Ints s3, const Q4Inputs& in) {
  const __m256i pairs = _mm256_hadd_epi32(_mm256_hadd_epi32(s0, s1), _mm256_hadd_epi32(s2, s3));
  const __m128i sums = _mm_add_epi32(_mm256_castsi256_si128(pairs), _mm256_extracti128_si256(pairs, 1));
  return _mm_sub_epi32(sums, in.eight_sums);
}
__m128 multiply_add(__m128 a, __m128 b, __m128 acc) { return _mm_fmadd_ps(a, b, acc); }
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
// Q4_0 without widening bytes: each 16-bit lane k of a block's nibbles holds weights 2k, 2k + 16,
// 2k + 1 and 2k + 17 (bits 0-3, 4-7, 8-11, 12-15). With their top bits flipped, each nibble read as
// signed 4 bits is q - 8; moved to the lane's top 4 bits and the rest masked off, it is (q - 8) * 4096
// as int16, and the inputs are split into the same four orders once for all outputs of a block. The
// sums come out 4096 times too large (under 2^26: exact in float). 7 operations unpack a block, 3 of
// them shifts, where widening bytes took about 10; x86 runs 16-bit shifts and multiply-adds on the same
// two ports, and masks on a third.
constexpr float kQ4Lanes = 1.0f / 4096.0f;  // what dot_q4_0's sums are multiplied by
struct Q4Inputs {
  __m128i even_low, even_high, odd_low, odd_high;  // x[0, 2 .. 14], x[16 .. 30], x[1 .. 15], x[17 .. 31]
};
Q4Inputs q4_inputs(const InputBlock& in) {
  const Bytes32 x = load32(in.q);
  const auto even = [](__m128i v) { return _mm_srai_epi16(_mm_slli_epi16(v, 8), 8); };
  return {even(x.low), even(x.high), _mm_srai_epi16(x.low, 8), _mm_srai_epi16(x.high, 8)};
}
Ints dot_q4_0(const uint8_t* nibbles, const Q4Inputs& x) {
  const __m128i v = _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(nibbles)),
                                  _mm_set1_epi16(static_cast<short>(0x8888)));
  const __m128i top = _mm_set1_epi16(static_cast<short>(0xF000));
  const __m128i even_low = _mm_slli_epi16(v, 12), even_high = _mm_and_si128(_mm_slli_epi16(v, 8), top);
  const __m128i odd_low = _mm_and_si128(_mm_slli_epi16(v, 4), top), odd_high = _mm_and_si128(v, top);
  return _mm_add_epi32(_mm_add_epi32(_mm_madd_epi16(even_low, x.even_low), _mm_madd_epi16(even_high, x.even_high)),
                       _mm_add_epi32(_mm_madd_epi16(odd_low, x.odd_low), _mm_madd_epi16(odd_high, x.odd_high)));
}
// Lane k: the sum of row k's lanes.
__m128i sum_four(Ints s0, Ints s1, Ints s2, Ints s3, const Q4Inputs&) {
  const __m128i s01 = _mm_add_epi32(_mm_unpacklo_epi32(s0, s1), _mm_unpackhi_epi32(s0, s1));
  const __m128i s23 = _mm_add_epi32(_mm_unpacklo_epi32(s2, s3), _mm_unpackhi_epi32(s2, s3));
  return _mm_add_epi32(_mm_unpacklo_epi64(s01, s23), _mm_unpackhi_epi64(s01, s23));
}
__m128 multiply_add(__m128 a, __m128 b, __m128 acc) { return _mm_add_ps(_mm_mul_ps(a, b), acc); }
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

// One output's running sums against R rows of x: a vector per row, and Q4_K's min terms, added outside
// the vectors. x[r] points at row r's input blocks.
template <int R>
struct Sums {
  Floats acc[R];
  float extra[R];
};

// Each format's block `b` of one matrix row (at `block`) against the R rows' inputs for it.
template <int R>
void block_q8_0(Sums<R>& s, const uint8_t* block, const InputBlock* const* x, int b) {
  const float d = block_f16(block);
  const Bytes32 w = load32(block + 2);
  for (int r = 0; r < R; ++r) s.acc[r] = add_scaled(s.acc[r], d * x[r][b].scale, dot_signed(w, load32(x[r][b].q)));
}

// A block of weights d * q + m with q unsigned (as maddubs takes them): against inputs s * x it sums to
// s * (d * sum(q x) + m * sum(x)), the second from the inputs' sum, in a scalar beside the vectors. Q4_0's
// m is -8 d, Q5_0's -16 d; a K-quant sub-block's d is d * scale and m is -dmin * min.
template <int R>
void scaled_plus_min(Sums<R>& s, Bytes32 q, float d, float m, const InputBlock* const* x, int b) {
  for (int r = 0; r < R; ++r) {
    const InputBlock& in = x[r][b];
    s.acc[r] = add_scaled(s.acc[r], d * in.scale, dot_unsigned(q, load32(in.q)));
    s.extra[r] += m * in.scale * static_cast<float>(in.sum);
  }
}

template <int R>
void block_q4_0(Sums<R>& s, const uint8_t* block, const InputBlock* const* x, int b) {
  const float d = block_f16(block);
#if defined(__AVX2__)
  scaled_plus_min<R>(s, nibbles(block + 2), d, -8.0f * d, x, b);
#else
  for (int r = 0; r < R; ++r)  // xs / 4096 is exact (for scales above 2^-114, not 0)
    s.acc[r] = add_scaled(s.acc[r], d * (x[r][b].scale * kQ4Lanes), dot_q4_0(block + 2, q4_inputs(x[r][b])));
#endif
}

// The 128-bit paths widen both operands to 16 bits, signed or not, so there q - 16 costs one subtraction
// where the min term cost scalar work for every block (6% of wasm's Q4_0 step, when Q4_0 went so).
template <int R>
void block_q5_0(Sums<R>& s, const uint8_t* block, const InputBlock* const* x, int b) {
  const float d = block_f16(block);
  const Bytes32 q = bytes_or(nibbles(block + 6), fifth_bits(block + 2));
#if defined(__AVX2__)
  scaled_plus_min<R>(s, q, d, -16.0f * d, x, b);
#else
  const Bytes32 w = minus(q, 16);
  for (int r = 0; r < R; ++r) s.acc[r] = add_scaled(s.acc[r], d * x[r][b].scale, dot_signed(w, load32(x[r][b].q)));
#endif
}

template <int R>
void block_q5_1(Sums<R>& s, const uint8_t* block, const InputBlock* const* x, int b) {
  scaled_plus_min<R>(s, bytes_or(nibbles(block + 8), fifth_bits(block + 4)), block_f16(block), block_f16(block + 2), x,
                     b);
}

// Sub-block j of a Q4_K or Q5_K block, its weights q unpacked: d * scale_j * q - dmin * min_j.
template <int R>
void k_sub_block(Sums<R>& s, Bytes32 q, float d, float dmin, const uint8_t* packed, const InputBlock* const* x, int j) {
  int scale, min;
  q4_k_scale_min(j, packed, scale, min);
  scaled_plus_min<R>(s, q, d * static_cast<float>(scale), -(dmin * static_cast<float>(min)), x, j);
}

// Sub-blocks 2 pair and 2 pair + 1 of a Q4_K or Q5_K block: the low and high nibbles of the pair's 32
// bytes q, or-ed with their fifth bits (Q5_K; zero for Q4_K, where the or folds away).
template <int R>
void k_pair(Sums<R>& s, Bytes32 q, Bytes32 fifth_low, Bytes32 fifth_high, float d, float dmin, const uint8_t* packed,
            const InputBlock* const* x, int pair) {
  k_sub_block<R>(s, bytes_or(nibbles_at<0>(q), fifth_low), d, dmin, packed, x, 2 * pair);
  k_sub_block<R>(s, bytes_or(nibbles_at<4>(q), fifth_high), d, dmin, packed, x, 2 * pair + 1);
}

template <int R, bool FifthBits>
void block_k_with_mins(Sums<R>& s, const uint8_t* block, const InputBlock* const* x, int b) {
  const float d = block_f16(block), dmin = block_f16(block + 2);
  const InputBlock* blocks[R];  // the block's 8 input blocks of each row
  for (int r = 0; r < R; ++r) blocks[r] = x[r] + 8 * b;
  if constexpr (FifthBits) {  // written out: the fifth bits' shifts are immediates
    const Bytes32 qh = load32(block + 16);
    const uint8_t* q = block + 48;
    k_pair<R>(s, load32(q), high_bits_at<0, 1>(qh), high_bits_at<1, 1>(qh), d, dmin, block + 4, blocks, 0);
    k_pair<R>(s, load32(q + 32), high_bits_at<2, 1>(qh), high_bits_at<3, 1>(qh), d, dmin, block + 4, blocks, 1);
    k_pair<R>(s, load32(q + 64), high_bits_at<4, 1>(qh), high_bits_at<5, 1>(qh), d, dmin, block + 4, blocks, 2);
    k_pair<R>(s, load32(q + 96), high_bits_at<6, 1>(qh), high_bits_at<7, 1>(qh), d, dmin, block + 4, blocks, 3);
  } else {  // a loop, not written out: written out, Q4_K's step took 12% longer (docs/results.md)
    for (int pair = 0; pair < 4; ++pair)
      k_pair<R>(s, load32(block + 16 + 32 * pair), Bytes32{}, Bytes32{}, d, dmin, block + 4, blocks, pair);
  }
}

// Group G (0..3) of a Q6_K half: 32 weights from ql's first or second 32 bytes (G % 2), their low or
// high nibbles (G / 2), and bits 2G, 2G + 1 of qh, less 32.
template <int R, int G>
void q6_k_group(Sums<R>& s, const Bytes32 (&ql)[2], Bytes32 qh, const int8_t* scales, float d,
                const InputBlock* const* x) {
  const Bytes32 w = minus(bytes_or(nibbles_at<4 * (G / 2)>(ql[G % 2]), high_bits_at<2 * G, 3>(qh)), 32);
  for (int r = 0; r < R; ++r) {
    const InputBlock& in = x[r][G];
    s.acc[r] = add_scaled(s.acc[r], d * in.scale, dot_signed_halves(w, load32(in.q), scales[2 * G], scales[2 * G + 1]));
  }
}

template <int R>
void block_q6_k(Sums<R>& s, const uint8_t* block, const InputBlock* const* x, int b) {
  const float d = block_f16(block + 208);
  for (int half = 0; half < 2; ++half) {
    const Bytes32 ql[2] = {load32(block + 64 * half), load32(block + 64 * half + 32)};
    const Bytes32 qh = load32(block + 128 + 32 * half);
    const int8_t* scales = reinterpret_cast<const int8_t*>(block + 192 + 8 * half);
    const InputBlock* groups[R];  // the half's 4 input blocks of each row
    for (int r = 0; r < R; ++r) groups[r] = x[r] + 8 * b + 4 * half;
    q6_k_group<R, 0>(s, ql, qh, scales, d, groups);
    q6_k_group<R, 1>(s, ql, qh, scales, d, groups);
    q6_k_group<R, 2>(s, ql, qh, scales, d, groups);
    q6_k_group<R, 3>(s, ql, qh, scales, d, groups);
  }
}

// A quantized matrix's rows of blocks as the tiles walk them, worked out once a call rather than for
// every few outputs.
struct BlockRows {
  BlockFormat format;
  const uint8_t* first;  // row 0's first block
  size_t row_bytes;
  int block_bytes;
  int n_blocks;  // blocks a row
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

// Matrix rows o .. o + O - 1 against R rows of x, block by block: O x R running sums, each waiting only
// on itself, so that one row of x still keeps O multiply-adds in flight; each block of x loaded serves O
// outputs and each unpacked weight block R rows. out: row r's output o at out[r * stride + o].
template <int O, int R, void (*Block)(Sums<R>&, const uint8_t*, const InputBlock* const*, int)>
void tile(float* out, size_t stride, const BlockRows& w, int o, const InputBlock* const* x) {
  Sums<R> s[O];
  for (int k = 0; k < O; ++k)
    for (int r = 0; r < R; ++r) {
      s[k].acc[r] = zero_floats();
      s[k].extra[r] = 0.0f;
    }
  const uint8_t* first_row = w.row(o);
  for (int b = 0; b < w.n_blocks; ++b) {
    prefetch_ahead(w, first_row, O, b);
    // Written out: as a loop, Emscripten kept the sums in memory, loaded and stored for every block.
#if defined(__clang__)
#pragma clang loop unroll(full)
#endif
    for (int k = 0; k < O; ++k) Block(s[k], first_row + k * w.row_bytes + static_cast<size_t>(b) * w.block_bytes, x, b);
  }
  for (int k = 0; k < O; ++k)
    for (int r = 0; r < R; ++r) out[r * stride + o + k] = sum_across(s[k].acc[r]) + s[k].extra[r];
}

// The float16 numbers at p, p + stride, p + 2 stride and p + 3 stride: with F16C, one conversion.
__m128 four_f16(const uint8_t* p, size_t stride) {
#if defined(__F16C__)
  uint16_t halves[4];
  for (int k = 0; k < 4; ++k) std::memcpy(&halves[k], p + k * stride, sizeof halves[k]);
  return _mm_cvtph_ps(_mm_setr_epi16(static_cast<short>(halves[0]), static_cast<short>(halves[1]),
                                     static_cast<short>(halves[2]), static_cast<short>(halves[3]), 0, 0, 0, 0));
#else
  return _mm_setr_ps(block_f16(p), block_f16(p + stride), block_f16(p + 2 * stride), block_f16(p + 3 * stride));
#endif
}

// Q4_0's matrix rows o .. o + 3 against one row of x: each block's four integer sums gathered into one
// vector, lane k row k, so that the block's scales, conversion, multiply and add are done once for the
// four rows rather than once for each (they were most of a block's instructions natively).
void q4_0_four_outputs(float* out, const BlockRows& w, int o, const InputBlock* x, const Q4Inputs* unpacked) {
  __m128 acc = _mm_setzero_ps();
  const uint8_t* first_row = w.row(o);
  const size_t rb = w.row_bytes;
  for (int b = 0; b < w.n_blocks; ++b) {
    const uint8_t* block = first_row + static_cast<size_t>(b) * w.block_bytes;
    prefetch_ahead(w, first_row, 4, b);
    const Q4Inputs& in = unpacked[b];
    const __m128i sums = sum_four(dot_q4_0(block + 2, in), dot_q4_0(block + rb + 2, in),
                                  dot_q4_0(block + 2 * rb + 2, in), dot_q4_0(block + 3 * rb + 2, in), in);
    const __m128 d = four_f16(block, rb);
    acc = multiply_add(_mm_mul_ps(d, _mm_set1_ps(x[b].scale * kQ4Lanes)), _mm_cvtepi32_ps(sums), acc);
  }
  _mm_storeu_ps(out + o, acc);
}

// Outputs first .. end - 1 for R rows of x: 4 outputs at a time with one row, fewer with more rows,
// whose sums are already independent of each other.
template <int R, void (*Block)(Sums<R>&, const uint8_t*, const InputBlock* const*, int)>
void outputs(float* out, size_t stride, const BlockRows& w, int first, int end, const InputBlock* const* x) {
  constexpr int O = R == 1 ? 4 : R == 2 ? 2 : 1;
  int o = first;
  for (; o + O <= end; o += O) tile<O, R, Block>(out, stride, w, o, x);
  for (; o < end; ++o) tile<1, R, Block>(out, stride, w, o, x);
}

template <int R>
void outputs_of_format(float* out, size_t stride, const BlockRows& w, int first, int end, const InputBlock* const* x) {
  switch (w.format) {
    case BlockFormat::q8_0: outputs<R, block_q8_0<R> >(out, stride, w, first, end, x); break;
    case BlockFormat::q4_0: outputs<R, block_q4_0<R> >(out, stride, w, first, end, x); break;
    case BlockFormat::q5_0: outputs<R, block_q5_0<R> >(out, stride, w, first, end, x); break;
    case BlockFormat::q5_1: outputs<R, block_q5_1<R> >(out, stride, w, first, end, x); break;
    case BlockFormat::q4_k: outputs<R, block_k_with_mins<R, false> >(out, stride, w, first, end, x); break;
    case BlockFormat::q5_k: outputs<R, block_k_with_mins<R, true> >(out, stride, w, first, end, x); break;
    case BlockFormat::q6_k: outputs<R, block_q6_k<R> >(out, stride, w, first, end, x); break;
  }
}

constexpr int kBlockRows = 4;  // rows of x each unpacked block serves

// Q4_0 against one row of x: four matrix rows at a time, the row's blocks unpacked once for all of them
// (on the 128-bit paths 6 shifts a block, done once a call rather than once every four rows).
void q4_0_one_row(float* out, const InputBlock* x, const BlockRows& w, int first, int end) {
  std::vector<Q4Inputs> unpacked(static_cast<size_t>(w.n_blocks));
  for (int b = 0; b < w.n_blocks; ++b) unpacked[b] = q4_inputs(x[b]);
  int o = first;
  for (; o + 4 <= end; o += 4) q4_0_four_outputs(out, w, o, x, unpacked.data());
  const InputBlock* const rows[1] = {x};
  for (; o < end; ++o) tile<1, 1, block_q4_0<1> >(out, 0, w, o, rows);
}

}  // namespace

void matmul_blocks(float* out, const InputBlock* x, const PackedMatrix& w, int n_rows, int first_panel, int end_panel) {
  const size_t x_blocks = static_cast<size_t>(w.n_in / kInputBlockWidth);
  const int first = first_panel * kPanelWidth, end = std::min(end_panel * kPanelWidth, w.n_out);
  const size_t stride = static_cast<size_t>(w.n_out);
  const BlockFormatTraits& t = traits(*w.blocks);
  const BlockRows rows_of_w{*w.blocks, w.block_row(0), w.row_bytes(), t.bytes, w.n_in / t.elements};
  if (n_rows == 1 && *w.blocks == BlockFormat::q4_0) return q4_0_one_row(out, x, rows_of_w, first, end);
  // Groups of outputs outer, blocks of rows inner: a group's weight rows stay in L1 while every block of
  // rows uses them, so each weight comes from memory once per step however many rows there are.
  constexpr int kOutputGroup = 4;
  for (int o = first; o < end; o += kOutputGroup) {
    const int group_end = std::min(o + kOutputGroup, end);
    for (int r = 0; r < n_rows; r += kBlockRows) {
      const InputBlock* rows[kBlockRows];
      const int count = std::min(kBlockRows, n_rows - r);
      for (int k = 0; k < count; ++k) rows[k] = x + (r + k) * x_blocks;
      float* dst = out + r * stride;
      switch (count) {
        case 4: outputs_of_format<4>(dst, stride, rows_of_w, o, group_end, rows); break;
        case 3: outputs_of_format<3>(dst, stride, rows_of_w, o, group_end, rows); break;
        case 2: outputs_of_format<2>(dst, stride, rows_of_w, o, group_end, rows); break;
        default: outputs_of_format<1>(dst, stride, rows_of_w, o, group_end, rows); break;
      }
    }
  }
}

}  // namespace kvlab::kernels
#endif
