#include "model/block_format.h"

namespace kvlab {

#if !defined(__F16C__)
const std::vector<float> kFloat16Values = [] {
  std::vector<float> values(1 << 16);
  for (uint32_t half = 0; half < values.size(); ++half) values[half] = from_f16(static_cast<uint16_t>(half));
  return values;
}();
#endif

namespace {

void dequantize_q8_0(const uint8_t* b, float* out) {
  const float d = block_f16(b);
  for (int i = 0; i < 32; ++i) out[i] = d * static_cast<float>(static_cast<int8_t>(b[2 + i]));
}

void dequantize_q4_0(const uint8_t* b, float* out) {
  const float d = block_f16(b);
  int8_t q[32];
  nibble_weights(b + 2, q);
  for (int i = 0; i < 32; ++i) out[i] = d * static_cast<float>(q[i] - 8);
}

void dequantize_q5_0(const uint8_t* b, float* out) {
  const float d = block_f16(b);
  int8_t q[32];
  q5_weights(b + 2, b + 6, q);
  for (int i = 0; i < 32; ++i) out[i] = d * static_cast<float>(q[i] - 16);
}

void dequantize_q5_1(const uint8_t* b, float* out) {
  const float d = block_f16(b), m = block_f16(b + 2);
  int8_t q[32];
  q5_weights(b + 4, b + 8, q);
  for (int i = 0; i < 32; ++i) out[i] = d * static_cast<float>(q[i]) + m;
}

// Q4_K and Q5_K (qh null for Q4_K): sub-block j is d * scale_j * q - dmin * min_j.
void dequantize_k_with_mins(const uint8_t* b, const uint8_t* qh, const uint8_t* nibbles, float* out) {
  const float d = block_f16(b), dmin = block_f16(b + 2);
  for (int j = 0; j < 8; ++j, out += 32) {
    int scale, min;
    q4_k_scale_min(j, b + 4, scale, min);
    const float d_scale = d * static_cast<float>(scale), d_min = dmin * static_cast<float>(min);
    int8_t q[32];
    k_sub_block_weights(j, nibbles, qh, q);
    for (int l = 0; l < 32; ++l) out[l] = d_scale * static_cast<float>(q[l]) - d_min;
  }
}

void dequantize_q4_k(const uint8_t* b, float* out) { dequantize_k_with_mins(b, nullptr, b + 16, out); }
void dequantize_q5_k(const uint8_t* b, float* out) { dequantize_k_with_mins(b, b + 16, b + 48, out); }

void dequantize_q6_k(const uint8_t* b, float* out) {
  const uint8_t* ql = b;
  const uint8_t* qh = b + 128;
  const int8_t* scales = reinterpret_cast<const int8_t*>(b + 192);
  const float d = block_f16(b + 208);
  for (int half = 0; half < 2; ++half, ql += 64, qh += 32, scales += 8, out += 128) {
    for (int l = 0; l < 32; ++l) {
      const int is = l / 16;
      const int q1 = ((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
      const int q2 = ((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
      const int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
      const int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
      out[l] = d * static_cast<float>(scales[is]) * static_cast<float>(q1);
      out[l + 32] = d * static_cast<float>(scales[is + 2]) * static_cast<float>(q2);
      out[l + 64] = d * static_cast<float>(scales[is + 4]) * static_cast<float>(q3);
      out[l + 96] = d * static_cast<float>(scales[is + 6]) * static_cast<float>(q4);
    }
  }
}

}  // namespace

const std::vector<BlockFormatTraits>& block_formats() {
  static const std::vector<BlockFormatTraits> formats = {
      {BlockFormat::q8_0, "Q8_0", 8, 32, 34},    {BlockFormat::q4_0, "Q4_0", 2, 32, 18},
      {BlockFormat::q5_0, "Q5_0", 6, 32, 22},    {BlockFormat::q5_1, "Q5_1", 7, 32, 24},
      {BlockFormat::q4_k, "Q4_K", 12, 256, 144}, {BlockFormat::q5_k, "Q5_K", 13, 256, 176},
      {BlockFormat::q6_k, "Q6_K", 14, 256, 210}};
  return formats;
}

const BlockFormatTraits& traits(BlockFormat format) { return block_formats()[static_cast<size_t>(format)]; }

void dequantize_blocks(BlockFormat format, const uint8_t* blocks, int64_t n_blocks, float* out) {
  const BlockFormatTraits& t = traits(format);
  void (*one_block)(const uint8_t*, float*) = nullptr;
  switch (format) {
    case BlockFormat::q8_0: one_block = dequantize_q8_0; break;
    case BlockFormat::q4_0: one_block = dequantize_q4_0; break;
    case BlockFormat::q5_0: one_block = dequantize_q5_0; break;
    case BlockFormat::q5_1: one_block = dequantize_q5_1; break;
    case BlockFormat::q4_k: one_block = dequantize_q4_k; break;
    case BlockFormat::q5_k: one_block = dequantize_q5_k; break;
    case BlockFormat::q6_k: one_block = dequantize_q6_k; break;
  }
  for (int64_t i = 0; i < n_blocks; ++i) one_block(blocks + i * t.bytes, out + i * t.elements);
}

}  // namespace kvlab
