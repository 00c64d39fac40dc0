// The tests' quantizer: quantized and dequantized again, every weight of random rows and of edge rows (all
// zero, constant, one huge value) is within its format's error bound, worked out from the block's
// stored scales; the formats' own scale choices show in the bytes.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/rng.h"
#include "model/block_quantizer.h"
#include "model/float16.h"

namespace kvlab {
namespace {

float f16_at(const uint8_t* p) { return from_f16(static_cast<uint16_t>(p[0] | (p[1] << 8))); }

std::vector<uint8_t> quantized(BlockFormat format, const std::vector<float>& x) {
  const BlockFormatTraits& t = traits(format);
  std::vector<uint8_t> blocks(x.size() / static_cast<size_t>(t.elements) * static_cast<size_t>(t.bytes));
  quantize_blocks(format, x.data(), static_cast<int64_t>(x.size()), blocks.data());
  return blocks;
}

std::vector<float> round_trip(BlockFormat format, const std::vector<float>& x) {
  const std::vector<uint8_t> blocks = quantized(format, x);
  std::vector<float> out(x.size());
  dequantize_blocks(format, blocks.data(), static_cast<int64_t>(x.size()) / traits(format).elements, out.data());
  return out;
}

// How far weight i of `x` may land from it, from its block's stored scales (block: its bytes, x: its
// weights). step: the distance between neighbouring values the weight could take.
//   Q8_0, Q4_0, Q5_0: half a step, d / 2; Q4_0's +8 d does not fit in four bits and becomes 7 d, a step
//     off, and Q5_0's +16 d becomes 15 d.
//   Q5_1: half a step d (stored), plus the block's range missed at its ends: its min rounded to f16 and
//     its top, 31 steps up, 31 times d's rounding off.
//   Q4_K, Q5_K: half a step d * s6 (s6 within 1/2 of the sub-block's scale / d), plus the sub-block's
//     range missed at its ends: its min rounded to a multiple of dmin (dmin / 2 off), and its top, 15
//     (Q5_K: 31) steps up, 15 (31) times d / 2 off.
//   Q6_K: half a step d * s8; a sub-block's scale s rounded to s8 (d / 2 off) may leave its largest
//     weight, 32 s, up to 16 d past the 32 steps (-32..31) the grid reaches, and a step more at +32.
float error_bound(BlockFormat format, const uint8_t* block, const float* x, int i) {
  switch (format) {
    case BlockFormat::q8_0: return std::fabs(f16_at(block)) / 2.0f;
    case BlockFormat::q4_0:
    case BlockFormat::q5_0: {
      const float d = f16_at(block), top = format == BlockFormat::q4_0 ? 7.5f : 15.5f;
      return x[i] / d > top ? std::fabs(d) : std::fabs(d) / 2.0f;
    }
    case BlockFormat::q5_1: {
      const auto [smallest, largest] = std::minmax_element(x, x + 32);
      const float d = f16_at(block), step = (*largest - *smallest) / 31.0f;
      return d / 2.0f + 31.0f * std::fabs(step - d) + std::fabs(*smallest - f16_at(block + 2));
    }
    case BlockFormat::q4_k:
    case BlockFormat::q5_k: {
      const float d = f16_at(block), dmin = f16_at(block + 2), top = format == BlockFormat::q4_k ? 15.0f : 31.0f;
      const float* sub = x + i / 32 * 32;
      const float range = *std::max_element(sub, sub + 32) - std::min(0.0f, *std::min_element(sub, sub + 32));
      return (range / top + d / 2.0f) / 2.0f + top / 2.0f * d + dmin / 2.0f;
    }
    case BlockFormat::q6_k: {
      const float d = std::fabs(f16_at(block + 208));
      const float* sub = x + i / 16 * 16;
      float amax = 0.0f;
      for (int l = 0; l < 16; ++l) amax = std::max(amax, std::fabs(sub[l]));
      return amax / 32.0f + 16.5f * d;
    }
  }
  return 0.0f;
}

void expect_within_bounds(BlockFormat format, const std::vector<float>& x, const char* row) {
  const BlockFormatTraits& t = traits(format);
  const std::vector<uint8_t> blocks = quantized(format, x);
  const std::vector<float> out = round_trip(format, x);
  int failures = 0;
  for (size_t i = 0; i < x.size() && failures < 5; ++i) {
    const size_t block = i / static_cast<size_t>(t.elements);
    const float bound = error_bound(format, blocks.data() + block * static_cast<size_t>(t.bytes),
                                    x.data() + block * static_cast<size_t>(t.elements),
                                    static_cast<int>(i % static_cast<size_t>(t.elements)));
    // A little slack for the float products of dequantizing.
    const float slack = 1e-6f * std::fabs(x[i]) + 1e-30f;
    if (std::fabs(out[i] - x[i]) > bound + slack) {
      ADD_FAILURE() << t.name << ", " << row << " row, weight " << i << ": " << x[i] << " became " << out[i]
                    << ", more than " << bound << " off";
      ++failures;
    }
  }
}

std::vector<float> random_row(uint64_t seed, size_t n, float scale) {
  Rng rng(seed);
  std::vector<float> x(n);
  // Sums of uniforms: bell-shaped like trained weights, with a few far from the rest.
  for (float& v : x) v = scale * static_cast<float>(rng.uniform() + rng.uniform() + rng.uniform() - 1.5);
  return x;
}

const size_t kRow = 1024;  // four K-quant blocks, 32 of Q8_0 and Q4_0

TEST(GgmlQuantizer, RandomRowsRoundTripWithinEachFormatsBound) {
  for (const BlockFormatTraits& t : block_formats()) {
    for (uint64_t seed : {1u, 2u, 3u}) {
      const std::vector<float> x = random_row(seed, kRow, seed == 3 ? 1e-3f : 0.1f);
      expect_within_bounds(t.format, x, "random");
      // And close overall: the root-mean-square error against the row's.
      const std::vector<float> out = round_trip(t.format, x);
      double error = 0.0, size = 0.0;
      for (size_t i = 0; i < kRow; ++i) error += (out[i] - x[i]) * (out[i] - x[i]), size += x[i] * x[i];
      const double relative = std::sqrt(error / size);
      const double most = t.format == BlockFormat::q8_0   ? 0.01
                          : t.format == BlockFormat::q6_k ? 0.03
                          : t.name[1] == '5'              ? 0.05  // Q5_0, Q5_1, Q5_K: steps half Q4's
                                                          : 0.1;
      EXPECT_LT(relative, most) << t.name << ", seed " << seed;
    }
  }
}

TEST(GgmlQuantizer, EdgeRowsRoundTripWithinEachFormatsBound) {
  for (const BlockFormatTraits& t : block_formats()) {
    const std::vector<float> zero(kRow, 0.0f);
    EXPECT_EQ(round_trip(t.format, zero), zero) << t.name;
    for (float c : {0.3f, -0.3f}) expect_within_bounds(t.format, std::vector<float>(kRow, c), "constant");
    std::vector<float> huge = random_row(4, kRow, 0.1f);
    huge[300] = 1000.0f;
    huge[700] = -1000.0f;
    expect_within_bounds(t.format, huge, "one huge value");
    const std::vector<float> out = round_trip(t.format, huge);
    EXPECT_NEAR(out[300], 1000.0f, 1.0f) << t.name;
    EXPECT_NEAR(out[700], -1000.0f, 1.0f) << t.name;
  }
}

TEST(GgmlQuantizer, ScalesAreTheFormatsOwn) {
  std::vector<float> x = random_row(5, 256, 0.1f);
  x[5] = -0.5f;  // the largest magnitude of Q8_0's and Q4_0's first block, of Q6_K's first sub-block
  // Q8_0: amax / 127, so the largest weight is q = -127.
  std::vector<uint8_t> b = quantized(BlockFormat::q8_0, x);
  EXPECT_EQ(f16_at(b.data()), from_f16(to_f16(0.5f / 127.0f)));
  EXPECT_EQ(static_cast<int8_t>(b[2 + 5]), -127);
  // Q4_0: max / -8, so the largest is q = -8 (nibble 0) and its d positive here.
  b = quantized(BlockFormat::q4_0, x);
  EXPECT_EQ(f16_at(b.data()), 0.0625f);
  EXPECT_EQ(b[2 + 5] & 0xF, 0);
  // Q5_0: max / -16, so the largest is q = -16 (nibble 0, fifth bit 0).
  b = quantized(BlockFormat::q5_0, x);
  EXPECT_EQ(f16_at(b.data()), 0.03125f);
  EXPECT_EQ(b[6 + 5] & 0xF, 0);
  EXPECT_EQ((b[2] >> 5) & 1, 0);
  // Q5_1: d = (largest - smallest) / 31 and m the smallest, -0.5 here, which is q = 0.
  b = quantized(BlockFormat::q5_1, x);
  const auto [smallest, largest] = std::minmax_element(x.begin(), x.begin() + 32);
  EXPECT_EQ(*smallest, -0.5f);
  EXPECT_EQ(f16_at(b.data()), from_f16(to_f16((*largest + 0.5f) / 31.0f)));
  EXPECT_EQ(f16_at(b.data() + 2), -0.5f);
  EXPECT_EQ(b[8 + 5] & 0xF, 0);
  EXPECT_EQ((b[4] >> 5) & 1, 0);
  // Q6_K: the first sub-block's scale, -0.5 / -32, is the largest; d is it over -128, so its int8 scale is -128.
  b = quantized(BlockFormat::q6_k, x);
  EXPECT_EQ(f16_at(b.data() + 208), from_f16(to_f16(0.5f / 32.0f / -128.0f)));
  EXPECT_EQ(static_cast<int8_t>(b[192]), -128);
  // Q4_K and Q5_K: d and dmin are the largest sub-block scale (its range over 15 or 31) and min over 63.
  for (BlockFormat format : {BlockFormat::q4_k, BlockFormat::q5_k}) {
    const float top = format == BlockFormat::q4_k ? 15.0f : 31.0f;
    float max_scale = 0.0f, max_min = 0.0f;
    for (int j = 0; j < 8; ++j) {
      const float lowest = std::min(0.0f, *std::min_element(x.begin() + 32 * j, x.begin() + 32 * j + 32));
      max_scale = std::max(max_scale, (*std::max_element(x.begin() + 32 * j, x.begin() + 32 * j + 32) - lowest) / top);
      max_min = std::max(max_min, -lowest);
    }
    b = quantized(format, x);
    EXPECT_EQ(f16_at(b.data()), from_f16(to_f16(max_scale / 63.0f))) << traits(format).name;
    EXPECT_EQ(f16_at(b.data() + 2), from_f16(to_f16(max_min / 63.0f))) << traits(format).name;
  }
}

// llama.cpp's fallback for K-quant rows that are not whole 256-weight blocks: SmolLM2's 576 and 960,
// Qwen2.5-0.5B's 896. Rows that even the fallback's 32 do not divide are refused, naming their length.
TEST(GgmlQuantizer, KQuantRowsOfPartBlocksFallBackAsLlamaCppsQuantizerDoes) {
  EXPECT_EQ(block_format_for_rows(BlockFormat::q4_k, 576), BlockFormat::q5_0);
  EXPECT_EQ(block_format_for_rows(BlockFormat::q4_k, 1536), BlockFormat::q4_k);
  EXPECT_EQ(block_format_for_rows(BlockFormat::q5_k, 896), BlockFormat::q5_1);
  EXPECT_EQ(block_format_for_rows(BlockFormat::q6_k, 960), BlockFormat::q8_0);
  for (const BlockFormatTraits& t : block_formats()) {
    try {
      block_format_for_rows(t.format, 48);
      ADD_FAILURE() << t.name << ": rows of 48 were not refused";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("rows of 48 weights are not whole blocks of " + std::string(t.name)),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(GgmlQuantizer, ARowOfPartBlocksIsRefused) {
  std::vector<float> x(288, 0.0f);
  std::vector<uint8_t> out(2 * 144);
  EXPECT_THROW(quantize_blocks(BlockFormat::q4_k, x.data(), 288, out.data()), std::invalid_argument);
}

}  // namespace
}  // namespace kvlab
