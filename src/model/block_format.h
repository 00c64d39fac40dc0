#pragma once
// The quantized block formats a weight matrix can keep from its GGUF file, as ggml defines them
// (llama.cpp's ggml-common.h; the GGUF spec names the types). A block covers `elements` consecutive
// weights of one matrix row; a row is whole blocks, one after another. Every block starts with or holds
// float16 scales; the weights are small integers times them:
//   Q8_0  32 weights, 34 bytes: f16 d, then 32 int8 q;                         w = d * q
//   Q4_0  32 weights, 18 bytes: f16 d, then 16 bytes of nibbles; byte i holds weight i (low nibble)
//         and weight i + 16 (high nibble);                                      w = d * (q - 8)
//   Q4_K  256 weights, 144 bytes: f16 d, f16 dmin, 12 bytes of 6-bit scales and mins for 8 sub-blocks of
//         32 (packed as ggml's get_scale_min_k4 reads them), 128 bytes of nibbles: each 32 bytes hold
//         sub-block 2k in their low nibbles and 2k + 1 in their high nibbles;   w = d * sc * q - dmin * m
//   Q6_K  256 weights, 210 bytes: 128 bytes ql (low 4 bits), 64 bytes qh (high 2 bits), 16 int8 scales
//         (one per 16 weights), f16 d;                                          w = d * scale * (q - 32)
#include <cstddef>
#include <cstdint>
#include <vector>

#if defined(__F16C__)
#include <immintrin.h>
#endif

#include "model/float16.h"

namespace kvlab {

enum class BlockFormat { q8_0, q4_0, q4_k, q6_k };

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

// Q4_K's 6-bit scale and min of sub-block j (0..7) from the block's 12 packed bytes (after d and dmin),
// as ggml's get_scale_min_k4: sub-blocks 0-3 keep theirs in the low 6 bits of bytes j and j + 4; 4-7 put
// their low 4 bits in byte j + 4 and their top 2 bits in the spare top bits of bytes j - 4 and j. Inline:
// the kernels ask it for every 32 weights.
inline void q4_k_scale_min(int j, const uint8_t* packed, int& scale, int& min) {
  if (j < 4) {
    scale = packed[j] & 63;
    min = packed[j + 4] & 63;
  } else {
    scale = (packed[j + 4] & 0xF) | ((packed[j - 4] >> 6) << 4);
    min = (packed[j + 4] >> 4) | ((packed[j] >> 6) << 4);
  }
}

// The float16 number at p (little-endian), widened (exactly, either way): every block's scales are
// stored so. Inline, with F16C's one instruction where the build has it, since a Q4_0 block of 32
// weights takes one.
inline float block_f16(const uint8_t* p) {
  const uint16_t half = static_cast<uint16_t>(p[0] | (p[1] << 8));
#if defined(__F16C__)
  return _cvtsh_ss(half);
#else
  return from_f16(half);
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
