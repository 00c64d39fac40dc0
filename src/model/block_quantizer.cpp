#include "model/block_quantizer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "model/float16.h"

namespace kvlab {

namespace {

// The scale as the block stores it: rounded to f16, little-endian at `at`.
float store_f16(float scale, uint8_t* at) {
  const uint16_t bits = to_f16(scale);
  at[0] = static_cast<uint8_t>(bits);
  at[1] = static_cast<uint8_t>(bits >> 8);
  return from_f16(bits);
}

// x / step rounded to nearest and clipped to [lo, hi]; 0 when the step is 0 (every weight of the block
// or sub-block is then what 0 dequantizes to).
int nearest(float x, float step, int lo, int hi) {
  if (step == 0.0f) return 0;
  return static_cast<int>(std::clamp<long>(std::lround(x / step), lo, hi));
}

// The value of largest magnitude among n (the first, if several), with its sign: ggml's `max` of
// Q4_0 and of Q6_K's sub-blocks.
float signed_max(const float* x, int n) {
  float max = 0.0f;
  for (int i = 0; i < n; ++i)
    if (std::fabs(x[i]) > std::fabs(max)) max = x[i];
  return max;
}

void quantize_q8_0(const float* x, uint8_t* b) {
  float amax = 0.0f;
  for (int i = 0; i < 32; ++i) amax = std::max(amax, std::fabs(x[i]));
  const float d = store_f16(amax / 127.0f, b);
  for (int i = 0; i < 32; ++i) b[2 + i] = static_cast<uint8_t>(static_cast<int8_t>(nearest(x[i], d, -127, 127)));
}

void quantize_q4_0(const float* x, uint8_t* b) {
  const float d = store_f16(signed_max(x, 32) / -8.0f, b);
  for (int i = 0; i < 16; ++i) {
    const int low = nearest(x[i], d, -8, 7) + 8, high = nearest(x[i + 16], d, -8, 7) + 8;
    b[2 + i] = static_cast<uint8_t>(low | (high << 4));
  }
}

// Q5_0's and Q5_1's 32 weights (0..31) as 4 bytes of fifth bits (bit i of the little-endian word: weight
// i's) and then 16 of nibbles (byte i: weight i low, weight i + 16 high), at `out`.
void pack_q5(const int* q, uint8_t* out) {
  uint32_t fifth = 0;
  for (int i = 0; i < 32; ++i) fifth |= static_cast<uint32_t>(q[i] >> 4) << i;
  for (int k = 0; k < 4; ++k) out[k] = static_cast<uint8_t>(fifth >> (8 * k));
  for (int i = 0; i < 16; ++i) out[4 + i] = static_cast<uint8_t>((q[i] & 0xF) | ((q[i + 16] & 0xF) << 4));
}

void quantize_q5_0(const float* x, uint8_t* b) {
  const float d = store_f16(signed_max(x, 32) / -16.0f, b);
  int q[32];
  for (int i = 0; i < 32; ++i) q[i] = nearest(x[i], d, -16, 15) + 16;
  pack_q5(q, b + 2);
}

void quantize_q5_1(const float* x, uint8_t* b) {
  const auto [smallest, largest] = std::minmax_element(x, x + 32);
  const float d = store_f16((*largest - *smallest) / 31.0f, b), m = store_f16(*smallest, b + 2);
  int q[32];
  for (int i = 0; i < 32; ++i) q[i] = nearest(x[i] - m, d, 0, 31);
  pack_q5(q, b + 4);
}

// Q4_K (top 15, qh null) or Q5_K (top 31): the scales and mins after d and dmin, qh's fifth bits (bit j
// of byte l: sub-block j's weight l) and the nibbles (each 32 bytes: sub-block 2k low, 2k + 1 high).
void quantize_k_with_mins(const float* x, uint8_t* b, int top, uint8_t* qh, uint8_t* nibbles) {
  float scales[8], mins[8], max_scale = 0.0f, max_min = 0.0f;
  for (int j = 0; j < 8; ++j) {
    const float* sub = x + 32 * j;
    // The lowest weight is -min (ggml keeps min at most 0: a sub-block of positive weights starts at 0).
    const float lowest = std::min(0.0f, *std::min_element(sub, sub + 32));
    const float highest = *std::max_element(sub, sub + 32);
    scales[j] = (highest - lowest) / static_cast<float>(top);
    mins[j] = -lowest;
    max_scale = std::max(max_scale, scales[j]);
    max_min = std::max(max_min, mins[j]);
  }
  const float d = store_f16(max_scale / 63.0f, b), dmin = store_f16(max_min / 63.0f, b + 2);
  uint8_t* packed = b + 4;
  std::memset(packed, 0, 12);
  int weights[256];
  for (int j = 0; j < 8; ++j) {
    const int scale = nearest(scales[j], d, 0, 63), min = nearest(mins[j], dmin, 0, 63);
    // The inverse of ggml's get_scale_min_k4 (block_format.h's q4_k_scale_min).
    if (j < 4) {
      packed[j] = static_cast<uint8_t>(scale);
      packed[j + 4] = static_cast<uint8_t>(min);
    } else {
      packed[j + 4] = static_cast<uint8_t>((scale & 0xF) | ((min & 0xF) << 4));
      packed[j - 4] |= static_cast<uint8_t>((scale >> 4) << 6);
      packed[j] |= static_cast<uint8_t>((min >> 4) << 6);
    }
    const float step = d * static_cast<float>(scale), offset = dmin * static_cast<float>(min);
    for (int l = 0; l < 32; ++l) weights[32 * j + l] = nearest(x[32 * j + l] + offset, step, 0, top);
  }
  if (qh) std::memset(qh, 0, 32);
  for (int pair = 0; pair < 4; ++pair)
    for (int l = 0; l < 32; ++l) {
      const int low = weights[64 * pair + l], high = weights[64 * pair + 32 + l];
      nibbles[32 * pair + l] = static_cast<uint8_t>((low & 0xF) | ((high & 0xF) << 4));
      if (qh) qh[l] = static_cast<uint8_t>(qh[l] | ((low >> 4) << (2 * pair)) | ((high >> 4) << (2 * pair + 1)));
    }
}

void quantize_q4_k(const float* x, uint8_t* b) { quantize_k_with_mins(x, b, 15, nullptr, b + 16); }
void quantize_q5_k(const float* x, uint8_t* b) { quantize_k_with_mins(x, b, 31, b + 16, b + 48); }

void quantize_q6_k(const float* x, uint8_t* b) {
  float scales[16], max_scale = 0.0f;
  for (int j = 0; j < 16; ++j) {
    scales[j] = signed_max(x + 16 * j, 16) / -32.0f;
    if (std::fabs(scales[j]) > std::fabs(max_scale)) max_scale = scales[j];
  }
  const float d = store_f16(max_scale == 0.0f ? 0.0f : max_scale / -128.0f, b + 208);
  int weights[256];  // 0..63, 32 meaning 0
  for (int j = 0; j < 16; ++j) {
    const int scale = nearest(scales[j], d, -128, 127);
    b[192 + j] = static_cast<uint8_t>(static_cast<int8_t>(scale));
    const float step = d * static_cast<float>(scale);
    for (int l = 0; l < 16; ++l) weights[16 * j + l] = nearest(x[16 * j + l], step, -32, 31) + 32;
  }
  // Each half of 128 weights: 64 bytes of ql (weights l and l + 64 in byte l, l + 32 and l + 96 in byte
  // l + 32) and 32 of qh (the top two bits of weights l, l + 32, l + 64, l + 96 in byte l, lowest first).
  for (int half = 0; half < 2; ++half) {
    const int* w = weights + 128 * half;
    uint8_t* ql = b + 64 * half;
    uint8_t* qh = b + 128 + 32 * half;
    for (int l = 0; l < 32; ++l) {
      ql[l] = static_cast<uint8_t>((w[l] & 0xF) | ((w[l + 64] & 0xF) << 4));
      ql[l + 32] = static_cast<uint8_t>((w[l + 32] & 0xF) | ((w[l + 96] & 0xF) << 4));
      qh[l] = static_cast<uint8_t>((w[l] >> 4) | ((w[l + 32] >> 4) << 2) | ((w[l + 64] >> 4) << 4) |
                                   ((w[l + 96] >> 4) << 6));
    }
  }
}

}  // namespace

void quantize_blocks(BlockFormat format, const float* x, int64_t n, uint8_t* out) {
  const BlockFormatTraits& t = traits(format);
  if (n % t.elements != 0)
    throw std::invalid_argument(std::to_string(n) + " weights are not whole " + t.name + " blocks of " +
                                std::to_string(t.elements));
  void (*one_block)(const float*, uint8_t*) = nullptr;
  switch (format) {
    case BlockFormat::q8_0: one_block = quantize_q8_0; break;
    case BlockFormat::q4_0: one_block = quantize_q4_0; break;
    case BlockFormat::q5_0: one_block = quantize_q5_0; break;
    case BlockFormat::q5_1: one_block = quantize_q5_1; break;
    case BlockFormat::q4_k: one_block = quantize_q4_k; break;
    case BlockFormat::q5_k: one_block = quantize_q5_k; break;
    case BlockFormat::q6_k: one_block = quantize_q6_k; break;
  }
  for (int64_t i = 0; i < n / t.elements; ++i) one_block(x + i * t.elements, out + i * t.bytes);
}

BlockFormat block_format_for_rows(BlockFormat wanted, int64_t row_length) {
  const auto whole_blocks = [&](BlockFormat format) { return row_length % traits(format).elements == 0; };
  if (whole_blocks(wanted)) return wanted;
  const auto blocks_of = [](BlockFormat format) {
    return std::string(traits(format).name) + " (" + std::to_string(traits(format).elements) + ")";
  };
  const std::string row =
      "rows of " + std::to_string(row_length) + " weights are not whole blocks of " + blocks_of(wanted);
  BlockFormat fallback;
  switch (wanted) {
    case BlockFormat::q4_k: fallback = BlockFormat::q5_0; break;
    case BlockFormat::q5_k: fallback = BlockFormat::q5_1; break;
    case BlockFormat::q6_k: fallback = BlockFormat::q8_0; break;
    default: throw std::invalid_argument(row);
  }
  if (whole_blocks(fallback)) return fallback;
  throw std::invalid_argument(row + " nor of its fallback " + blocks_of(fallback) +
                              ": llama.cpp writes such a matrix as F16, kvlab's quantizer does not");
}

BlockFormat q4_k_m_format(MatrixRole role, int layer, int n_layers, int64_t row_length) {
  const bool more_bits = layer < n_layers / 8 || layer >= 7 * n_layers / 8 || (layer - n_layers / 8) % 3 == 2;
  const bool six_bits =
      role == MatrixRole::classifier || ((role == MatrixRole::wv || role == MatrixRole::w_down) && more_bits);
  return block_format_for_rows(six_bits ? BlockFormat::q6_k : BlockFormat::q4_k, row_length);
}

FloatBuffer widened(const MatrixTensor& m) {
  if (!m.format) return m.values;
  const BlockFormatTraits& t = traits(*m.format);
  const int64_t n_blocks = static_cast<int64_t>(m.blocks.size / static_cast<size_t>(t.bytes));
  FloatBuffer values(static_cast<size_t>(n_blocks * t.elements));
  dequantize_blocks(*m.format, m.blocks.data(), n_blocks, values.data());
  return values;
}

namespace {

// m [rows, row_length] in `format`'s blocks (its fallback's where the rows are not whole blocks of it).
void quantize_matrix(MatrixTensor& m, int64_t row_length, BlockFormat format) {
  if (m.empty()) return;  // a classifier shared with the embedding
  const FloatBuffer values = widened(m);
  const BlockFormat used = block_format_for_rows(format, row_length);
  m.blocks = SharedBytes::of_size(bytes_of_weights(used, static_cast<int64_t>(values.size())));
  quantize_blocks(used, values.data(), static_cast<int64_t>(values.size()), m.blocks.data());
  m.format = used;
  FloatBuffer().swap(m.values);
}

}  // namespace

WeightTensors quantize_matrices(WeightTensors t, BlockFormat format) {
  const ModelConfig& c = t.config;
  for (LayerTensors& l : t.layers) {
    for (MatrixTensor* m : {&l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up}) quantize_matrix(*m, c.d_model, format);
    quantize_matrix(l.w_down, c.d_ff, format);
  }
  quantize_matrix(t.token_embedding, c.d_model, format);
  quantize_matrix(t.w_out, c.d_model, format);
  return t;
}

}  // namespace kvlab
