// ggml's block formats, one hand-built block each: the bytes written here dequantize to the weights
// worked out here from ggml-common.h's layouts, and the traits are ggml's.
#include <algorithm>
#include <vector>

#include <gtest/gtest.h>

#include "model/block_format.h"

namespace kvlab {
namespace {

std::vector<float> dequantized(BlockFormat format, const std::vector<uint8_t>& block) {
  EXPECT_EQ(block.size(), static_cast<size_t>(traits(format).bytes));
  std::vector<float> out(static_cast<size_t>(traits(format).elements));
  dequantize_blocks(format, block.data(), 1, out.data());
  return out;
}

TEST(BlockFormat, TraitsAreGgmls) {
  EXPECT_EQ(traits(BlockFormat::q8_0).ggml_type, 8u);
  EXPECT_EQ(traits(BlockFormat::q4_0).ggml_type, 2u);
  EXPECT_EQ(traits(BlockFormat::q5_0).ggml_type, 6u);
  EXPECT_EQ(traits(BlockFormat::q5_1).ggml_type, 7u);
  EXPECT_EQ(traits(BlockFormat::q4_k).ggml_type, 12u);
  EXPECT_EQ(traits(BlockFormat::q5_k).ggml_type, 13u);
  EXPECT_EQ(traits(BlockFormat::q6_k).ggml_type, 14u);
  // ggml-common.h's static_asserts: Q5_0 f16 + 4 + 16, Q5_1 2 f16 + 4 + 16, Q5_K 2 f16 + 12 + 32 + 128.
  EXPECT_EQ(traits(BlockFormat::q5_0).bytes, 22);
  EXPECT_EQ(traits(BlockFormat::q5_1).bytes, 24);
  EXPECT_EQ(traits(BlockFormat::q5_k).bytes, 176);
  for (const BlockFormatTraits& t : block_formats()) EXPECT_EQ(&traits(t.format), &t) << t.name;
}

TEST(BlockFormat, Q8_0IsTheScaleTimesSignedBytes) {
  std::vector<uint8_t> block(34, 0);
  block[0] = 0x00, block[1] = 0x38;                                                  // f16 0.5
  block[2] = 1, block[3] = 0xFE, block[4] = 127, block[5] = 0x80, block[33] = 0x81;  // 1, -2, 127, -128, ..., -127
  std::vector<float> expected(32, 0.0f);
  expected[0] = 0.5f, expected[1] = -1.0f, expected[2] = 63.5f, expected[3] = -64.0f, expected[31] = -63.5f;
  EXPECT_EQ(dequantized(BlockFormat::q8_0, block), expected);
}

TEST(BlockFormat, Q4_0ByteIHoldsWeightIInItsLowNibbleAndWeightIPlus16InItsHigh) {
  std::vector<uint8_t> block(18, 0x88);  // nibbles of 8: weight 0
  block[0] = 0x00, block[1] = 0xB4;      // f16 -0.25
  block[2] = 0x1F;                       // weight 0: 15 - 8 = 7; weight 16: 1 - 8 = -7
  block[3] = 0x80;                       // weight 1: 0 - 8 = -8; weight 17: 8 - 8 = 0
  block[17] = 0x3C;                      // weight 15: 12 - 8 = 4; weight 31: 3 - 8 = -5
  std::vector<float> expected(32, -0.0f);
  expected[0] = -1.75f, expected[16] = 1.75f, expected[1] = 2.0f, expected[15] = -1.0f, expected[31] = 1.25f;
  EXPECT_EQ(dequantized(BlockFormat::q4_0, block), expected);
}

// qh is one little-endian 32-bit word whose bit i is weight i's fifth bit; the nibbles are Q4_0's. Bits
// 0, 9, 16 and 31 are set here: bytes 0x01, 0x02, 0x01, 0x80.
std::vector<uint8_t> q5_bits_and_nibbles() {
  std::vector<uint8_t> tail(20, 0);  // every q 0
  tail[0] = 0x01, tail[1] = 0x02, tail[2] = 0x01, tail[3] = 0x80;
  tail[4 + 0] = 0x1F;   // weight 0: 15 + 16 = 31; weight 16: 1 + 16 = 17
  tail[4 + 1] = 0x80;   // weight 1: 0; weight 17: 8
  tail[4 + 15] = 0x3C;  // weight 15: 12; weight 31: 3 + 16 = 19 (and weight 9: 0 + 16 = 16)
  return tail;
}

TEST(BlockFormat, Q5_0AddsBitIOfQhToWeightIAsItsFifthBit) {
  std::vector<uint8_t> block = {0x00, 0x38};  // f16 0.5
  const std::vector<uint8_t> tail = q5_bits_and_nibbles();
  block.insert(block.end(), tail.begin(), tail.end());
  std::vector<float> expected(32, -8.0f);  // 0.5 * (0 - 16)
  expected[0] = 7.5f, expected[16] = 0.5f, expected[17] = -4.0f, expected[15] = -2.0f, expected[31] = 1.5f;
  expected[9] = 0.0f;
  EXPECT_EQ(dequantized(BlockFormat::q5_0, block), expected);
}

TEST(BlockFormat, Q5_1IsTheScaleTimesFiveBitsPlusItsMin) {
  std::vector<uint8_t> block = {0x00, 0x34, 0x00, 0xBC};  // d: f16 0.25, m: f16 -1
  const std::vector<uint8_t> tail = q5_bits_and_nibbles();
  block.insert(block.end(), tail.begin(), tail.end());
  std::vector<float> expected(32, -1.0f);  // 0.25 * 0 - 1
  expected[0] = 6.75f, expected[16] = 3.25f, expected[17] = 1.0f, expected[15] = 2.0f, expected[31] = 3.75f;
  expected[9] = 3.0f;
  EXPECT_EQ(dequantized(BlockFormat::q5_1, block), expected);
}

// Sub-block j's 6-bit scale and min: 0-3 in the low six bits of bytes j and j + 4, 4-7 with their low
// four bits in byte j + 4 (scale low, min high) and their top two in the top bits of bytes j - 4 (scale)
// and j (min). The scales and mins below use the top bits in both halves.
const int kScale[8] = {1, 3, 5, 63, 17, 34, 63, 4};
const int kMin[8] = {2, 4, 6, 62, 33, 18, 0, 48};
// Q4_K's and Q5_K's d (f16 1), dmin (f16 0.5) and the 12 bytes of kScale and kMin packed.
const uint8_t kScalesAndMins[16] = {
    0x00, 0x3C, 0x00, 0x38,  // d, dmin
    0x41,                    // scale 0 = 1, and scale 4's top bits (17 >> 4 = 1)
    0x83,                    // scale 1 = 3, scale 5's top bits (34 >> 4 = 2)
    0xC5,                    // scale 2 = 5, scale 6's top bits (63 >> 4 = 3)
    0x3F,                    // scale 3 = 63, scale 7's top bits (4 >> 4 = 0)
    0x82,                    // min 0 = 2, min 4's top bits (33 >> 4 = 2)
    0x44,                    // min 1 = 4, min 5's top bits (18 >> 4 = 1)
    0x06,                    // min 2 = 6, min 6's top bits (0)
    0xFE,                    // min 3 = 62, min 7's top bits (48 >> 4 = 3)
    0x11,                    // scale 4's low bits 1, min 4's low bits 1
    0x22,                    // scale 5's low bits 2, min 5's low bits 2
    0x0F,                    // scale 6's low bits 15, min 6's low bits 0
    0x04,                    // scale 7's low bits 4, min 7's low bits 0
};

// Each 32 bytes of nibbles (at `nibbles`) hold sub-block 2k (low nibbles) and 2k + 1 (high): byte 0 of
// each is weight 0 of both, byte 31 their weight 31.
void put_k_nibbles(uint8_t* nibbles) {
  for (int k = 0; k < 4; ++k) {
    nibbles[32 * k] = 0xF3;       // sub-block 2k's weight 0: q 3; sub-block 2k + 1's: q 15
    nibbles[32 * k + 31] = 0x1A;  // weight 31: q 10 and q 1
  }
}

TEST(BlockFormat, Q4_KUnpacksTheSixBitScalesAndMinsOfAllEightSubBlocks) {
  std::vector<uint8_t> block(144, 0);
  std::copy(kScalesAndMins, kScalesAndMins + 16, block.begin());
  put_k_nibbles(&block[16]);
  const std::vector<float> out = dequantized(BlockFormat::q4_k, block);
  for (int j = 0; j < 8; ++j) {
    const bool low = j % 2 == 0;
    const float m = 0.5f * static_cast<float>(kMin[j]);
    EXPECT_EQ(out[32 * j], static_cast<float>(kScale[j] * (low ? 3 : 15)) - m) << "sub-block " << j;
    EXPECT_EQ(out[32 * j + 1], -m) << "sub-block " << j;
    EXPECT_EQ(out[32 * j + 31], static_cast<float>(kScale[j] * (low ? 10 : 1)) - m) << "sub-block " << j;
  }
  EXPECT_EQ(out[0], 2.0f);             // 1 * 1 * 3 - 0.5 * 2
  EXPECT_EQ(out[32 * 4], 34.5f);       // 1 * 17 * 3 - 0.5 * 33
  EXPECT_EQ(out[32 * 5 + 31], 25.0f);  // 1 * 34 * 1 - 0.5 * 18
  EXPECT_EQ(out[32 * 7], 36.0f);       // 1 * 4 * 15 - 0.5 * 48
}

// Q5_K is Q4_K with 32 bytes of qh between the scales and the nibbles: bit j of qh[l] is the fifth bit
// of sub-block j's weight l. Here qh[0] = 0xA5 (sub-blocks 0, 2, 5, 7), qh[1] = 0xFF, qh[31] = 0.
TEST(BlockFormat, Q5_KAddsBitJOfQhByteLToSubBlockJsWeightL) {
  std::vector<uint8_t> block(176, 0);
  std::copy(kScalesAndMins, kScalesAndMins + 16, block.begin());
  block[16] = 0xA5, block[17] = 0xFF;
  put_k_nibbles(&block[48]);
  const std::vector<float> out = dequantized(BlockFormat::q5_k, block);
  for (int j = 0; j < 8; ++j) {
    const bool low = j % 2 == 0, fifth = (0xA5 >> j) & 1;
    const float m = 0.5f * static_cast<float>(kMin[j]);
    EXPECT_EQ(out[32 * j], static_cast<float>(kScale[j] * ((low ? 3 : 15) + (fifth ? 16 : 0))) - m)
        << "sub-block " << j;
    EXPECT_EQ(out[32 * j + 1], static_cast<float>(kScale[j] * 16) - m) << "sub-block " << j;
    EXPECT_EQ(out[32 * j + 31], static_cast<float>(kScale[j] * (low ? 10 : 1)) - m) << "sub-block " << j;
  }
  EXPECT_EQ(out[0], 18.0f);             // 1 * 1 * (3 + 16) - 0.5 * 2
  EXPECT_EQ(out[32 * 1], 43.0f);        // 1 * 3 * 15 - 0.5 * 4
  EXPECT_EQ(out[32 * 5], 1045.0f);      // 1 * 34 * (15 + 16) - 0.5 * 18
  EXPECT_EQ(out[32 * 6 + 1], 1008.0f);  // 1 * 63 * 16 - 0.5 * 0
}

// Each half of 128 weights: weight l (0..31) has the low nibble of ql[l] and bits 0-1 of qh[l]; l + 32
// the low nibble of ql[l + 32] and bits 2-3; l + 64 the high nibble of ql[l] and bits 4-5; l + 96 the
// high nibble of ql[l + 32] and bits 6-7. Sixteen int8 scales, one per 16 weights, may be negative.
TEST(BlockFormat, Q6_KPlacesNibblesAndTwoBitHighsAndSignedScales) {
  const int8_t scale[16] = {2, -3, 4, 5, -128, 127, -1, 1, 8, 9, 10, 11, -12, 13, 14, -15};
  std::vector<uint8_t> block(210, 0);  // every q 0 - 32 = -32
  for (int j = 0; j < 16; ++j) block[192 + j] = static_cast<uint8_t>(scale[j]);
  block[208] = 0x00, block[209] = 0x38;  // d: f16 0.5
  block[0] = 0x5A;                       // ql[0]: weight 0's low nibble 10, weight 64's 5
  block[32] = 0x7C;                      // ql[32]: weight 32's low nibble 12, weight 96's 7
  block[128] = 0xE4;                     // qh[0]: high bits 0 (weight 0), 1 (32), 2 (64), 3 (96)
  block[64 + 1] = 0xFF;                  // second half's ql[1]: weights 129 and 193, low nibbles 15
  block[128 + 32 + 1] = 0xFF;            // second half's qh[1]: high bits 3 for 129, 161, 193, 225
  std::vector<float> expected(256);
  for (int i = 0; i < 256; ++i) expected[i] = 0.5f * static_cast<float>(scale[i / 16]) * -32.0f;
  expected[0] = 0.5f * 2 * (10 - 32);          // -22
  expected[32] = 0.5f * 4 * (12 + 16 - 32);    // -8
  expected[64] = 0.5f * -128 * (5 + 32 - 32);  // -320
  expected[96] = 0.5f * -1 * (7 + 48 - 32);    // -11.5
  expected[129] = 0.5f * 8 * (63 - 32);        // 124
  expected[161] = 0.5f * 10 * (48 - 32);       // 80
  expected[193] = 0.5f * -12 * (63 - 32);      // -186
  expected[225] = 0.5f * 14 * (48 - 32);       // 112
  EXPECT_EQ(dequantized(BlockFormat::q6_k, block), expected);
}

}  // namespace
}  // namespace kvlab
