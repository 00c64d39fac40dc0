#pragma once
// The quantized block formats a weight matrix can keep from its GGUF file, as ggml defines them
// (llama.cpp's ggml-common.h for the layouts, ggml-quants.c's dequantize_row_* for the values; the GGUF
// spec names the types). A block covers `elements` consecutive weights of one matrix row; a row is whole
// blocks, one after another. Every block starts with or holds float16 scales; the weights are small
// integers times them:
//   Q8_0  32 weights, 34 bytes: f16 d, then 32 int8 q;                         w = d * q
//   Q4_0  32 weights, 18 bytes: f16 d, then 16 bytes of nibbles; byte i holds weight i (low nibble)
//         and weight i + 16 (high nibble);                                      w = d * (q - 8)
//   Q5_0  32 weights, 22 bytes: f16 d, 4 bytes qh (a little-endian 32-bit word whose bit i is weight
//         i's fifth bit), then 16 bytes of nibbles as Q4_0's; q = nibble | bit << 4, 0..31;
//                                                                               w = d * (q - 16)
//   Q5_1  32 weights, 24 bytes: f16 d, f16 m, then qh and nibbles as Q5_0's;   w = d * q + m
//   Q4_K  256 weights, 144 bytes: f16 d, f16 dmin, 12 bytes of 6-bit scales and mins for 8 sub-blocks of
//         32 (packed as ggml's get_scale_min_k4 reads them), 128 bytes of nibbles: each 32 bytes hold
//         sub-block 2k in their low nibbles and 2k + 1 in their high nibbles;   w = d * sc * q - dmin * m
//   Q5_K  256 weights, 176 bytes: f16 d, f16 dmin, 12 bytes of scales and mins as Q4_K's, 32 bytes qh
//         (bit j of byte l: the fifth bit of sub-block j's weight l), then 128 bytes of nibbles as Q4_K's;
//         q 0..31;                                                              w = d * sc * q - dmin * m
//   Q6_K  256 weights, 210 bytes: 128 bytes ql (low 4 bits), 64 bytes qh (high 2 bits), 16 int8 scales
//         (one per 16 weights), f16 d;                                          w = d * scale * (q - 32)
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#if defined(__F16C__)
#include <immintrin.h>
#endif

#include "model/float16.h"

namespace kvlab {

enum class BlockFormat { q8_0, q4_0, q5_0, q5_1, q4_k, q5_k, q6_k };

struct BlockFormatTraits {
  BlockFormat format;
  const char* name;    // ggml's: "Q4_K"
  uint32_t ggml_type;  // its id in ggml's enum ggml_type, as GGUF files store it
  int elements;        // weights a block
  int bytes;           // bytes a block
};

// Every block format, in the order above.
const std::vector<BlockFormatTraits>& block_formats();
const BlockFormatTraits& traits(BlockFormat format);

// Q4_K's and Q5_K's 6-bit scale and min of sub-block j (0..7) from the block's 12 packed bytes (after d
// and dmin), as ggml's get_scale_min_k4: sub-blocks 0-3 keep theirs in the low 6 bits of bytes j and
// j + 4; 4-7 put their low 4 bits in byte j + 4 and their top 2 bits in the spare top bits of bytes j - 4
// and j. Inline: the kernels ask it for every 32 weights.
inline void q4_k_scale_min(int j, const uint8_t* packed, int& scale, int& min) {
  if (j < 4) {
    scale = packed[j] & 63;
    min = packed[j + 4] & 63;
  } else {
    scale = (packed[j + 4] & 0xF) | ((packed[j - 4] >> 6) << 4);
    min = (packed[j + 4] >> 4) | ((packed[j] >> 6) << 4);
  }
}

// The 32 weights (0..15) of 16 bytes of nibbles laid out as Q4_0's: byte i holds weight i in its low
// nibble and weight i + 16 in its high one. int8: the kernels' scalar twin multiplies them with int8 inputs.
inline void nibble_weights(const uint8_t* nibbles, int8_t* q) {
  for (int i = 0; i < 16; ++i) {
    q[i] = static_cast<int8_t>(nibbles[i] & 0xF);
    q[i + 16] = static_cast<int8_t>(nibbles[i] >> 4);
  }
}

// The 32 weights (0..31) of a Q5_0 or Q5_1 block from its 4 bytes of fifth bits and 16 of nibbles.
inline void q5_weights(const uint8_t* qh, const uint8_t* nibbles, int8_t* q) {
  nibble_weights(nibbles, q);
  const uint32_t fifth = qh[0] | (qh[1] << 8) | (qh[2] << 16) | (static_cast<uint32_t>(qh[3]) << 24);
  for (int i = 0; i < 32; ++i) q[i] = static_cast<int8_t>(q[i] | (((fifth >> i) & 1) << 4));
}

// Sub-block j's 32 weights of a Q4_K block (qh null: 0..15) or a Q5_K one (0..31): the low (j even) or
// high nibbles of bytes 32 * (j / 2) .. + 31 of `nibbles`, with bit j of the 32 bytes of qh as their fifth.
inline void k_sub_block_weights(int j, const uint8_t* nibbles, const uint8_t* qh, int8_t* q) {
  const uint8_t* bytes = nibbles + 32 * (j / 2);
  for (int l = 0; l < 32; ++l) {
    q[l] = static_cast<int8_t>(j % 2 == 0 ? bytes[l] & 0xF : bytes[l] >> 4);
    if (qh) q[l] = static_cast<int8_t>(q[l] | (((qh[l] >> j) & 1) << 4));
  }
}

#if !defined(__F16C__)
// Every float16 number's float32 value, indexed by its bits (65,536 floats, 256 KiB, filled once at
// start-up). Without F16C a load from it is cheaper than converting in integer code, which took a third
// of wasm's Q4_0 step (docs/log/2026-12-07-quantized-weights.md); llama.cpp keeps the same table.
extern const std::vector<float> kFloat16Values;
#endif

// The float16 number at p (little-endian), widened (exactly, either way): every block's scales are
// stored so. Inline, with F16C's one instruction where the build has it and a table load where not,
// since a Q4_0 block of 32 weights takes one.
inline float block_f16(const uint8_t* p) {
  uint16_t half;  // little-endian, as every target kvlab builds for: one load, not two bytes put together
  std::memcpy(&half, p, sizeof half);
#if defined(__F16C__)
  return _cvtsh_ss(half);
#else
  return kFloat16Values[half];
#endif
}

// One block's share of an output's running sum: acc + sum * scale, where `sum` is the block's exact
// integer sum (as a float) and `scale` the product of its weight and input scales. Fused where the build
// has FMA (natively), a multiply then an add where not (SSE2, wasm): the SIMD kernels (lane by lane) and
// the scalar twin round alike, so that an output's bits never depend on the path that computed it.
inline float add_block(float acc, float sum, float scale) {
#if defined(__FMA__)
  return std::fma(sum, scale, acc);
#else
  return acc + sum * scale;
#endif
}

// Bytes `n_weights` (whole blocks of `format`) take.
inline size_t bytes_of_weights(BlockFormat format, int64_t n_weights) {
  const BlockFormatTraits& t = traits(format);
  return static_cast<size_t>(n_weights / t.elements) * static_cast<size_t>(t.bytes);
}

// The float32 weights of `n_blocks` consecutive blocks at `blocks`, exactly as ggml dequantizes them.
// out: [n_blocks * traits(format).elements]
void dequantize_blocks(BlockFormat format, const uint8_t* blocks, int64_t n_blocks, float* out);

}  // namespace kvlab
