// The quantized matmul (block_format.h, input_blocks.h): the SIMD kernel against its scalar twin (the
// same bits: both sum each output in one order), and the twin against the plain sum of dequantized
// weights times dequantized inputs, for every format, at row counts that exercise every tile of rows;
// a row's outputs whatever the other rows in the call; split between threads by panels.
#include <algorithm>
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "common/rng.h"
#include "model/float16.h"
#include "model/kernels.h"

namespace kvlab {
namespace {

// Random blocks: random bytes with every float16 scale set to a small positive number, as files hold.
std::vector<uint8_t> random_blocks(BlockFormat format, int n_out, int n_in, uint64_t seed) {
  const BlockFormatTraits& t = traits(format);
  const size_t n_blocks = static_cast<size_t>(n_out) * (n_in / t.elements);
  std::vector<uint8_t> bytes(n_blocks * t.bytes);
  Rng rng(seed);
  for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng.next_u64() & 0xFF);
  const auto put_scale = [&](uint8_t* p) {
    const uint16_t half = to_f16(0.001f + 0.01f * (rng.symmetric_float() + 1.0f));
    p[0] = static_cast<uint8_t>(half & 0xFF);
    p[1] = static_cast<uint8_t>(half >> 8);
  };
  for (size_t b = 0; b < n_blocks; ++b) {
    uint8_t* block = bytes.data() + b * t.bytes;
    switch (format) {
      case BlockFormat::q8_0:
      case BlockFormat::q4_0:
      case BlockFormat::q5_0: put_scale(block); break;
      case BlockFormat::q5_1:  // d and m
      case BlockFormat::q4_k:
      case BlockFormat::q5_k: put_scale(block), put_scale(block + 2); break;
      case BlockFormat::q6_k: put_scale(block + 208); break;
    }
  }
  return bytes;
}

std::vector<float> random_inputs(size_t n, uint64_t seed) {
  Rng rng(seed);
  std::vector<float> x(n);
  for (float& v : x) v = rng.symmetric_float() * 2.0f;
  return x;
}

// out[r, o] = sum over i of W[o, i] (dequantized) times x's block value scale * q at i, in double.
std::vector<double> dequantized_product(const PackedMatrix& w, const std::vector<InputBlock>& x, int n_rows) {
  const FloatBuffer weights = unpack(w);
  std::vector<double> out(static_cast<size_t>(n_rows) * w.n_out);
  const int x_blocks = w.n_in / kInputBlockWidth;
  for (int r = 0; r < n_rows; ++r)
    for (int o = 0; o < w.n_out; ++o) {
      double sum = 0.0;
      for (int i = 0; i < w.n_in; ++i) {
        const InputBlock& block = x[static_cast<size_t>(r) * x_blocks + i / kInputBlockWidth];
        sum += static_cast<double>(weights[static_cast<size_t>(o) * w.n_in + i]) * block.scale *
               block.q[i % kInputBlockWidth];
      }
      out[static_cast<size_t>(r) * w.n_out + o] = sum;
    }
  return out;
}

TEST(BlockKernels, MatmulMatchesScalarTwinAndTheDequantizedSum) {
  for (const BlockFormatTraits& t : block_formats()) {
    // 3 panels, the last cut short; rows of 2 K-quant blocks or of 9 blocks of 32 (stories15M's 288)
    const int n_in = t.elements == 256 ? 2 * 256 : 9 * 32, n_out = 19;
    const PackedMatrix w = pack_blocks(random_blocks(t.format, n_out, n_in, 3).data(), t.format, n_out, n_in);
    for (int n_rows : {1, 2, 3, 4, 5, 9, 16}) {
      const std::vector<float> x = random_inputs(static_cast<size_t>(n_rows) * n_in, 4);
      std::vector<InputBlock> blocks(static_cast<size_t>(n_rows) * n_in / kInputBlockWidth);
      quantize_inputs(blocks.data(), x.data(), n_rows, n_in);
      std::vector<float> simd(static_cast<size_t>(n_rows) * n_out), twin(simd.size());
      kernels::matmul_blocks(simd.data(), blocks.data(), w, n_rows, 0, w.n_panels());
      kernels::scalar::matmul_blocks(twin.data(), blocks.data(), w, n_rows, 0, w.n_panels());
      const std::vector<double> want = dequantized_product(w, blocks, n_rows);
      SCOPED_TRACE(testing::Message() << t.name << ", " << n_rows << " rows");
      for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_NEAR(twin[i], want[i], 1e-4 * (1.0 + std::fabs(want[i]))) << "at " << i;
        ASSERT_EQ(simd[i], twin[i]) << "at " << i;
      }
    }
  }
}

// Batch invariance: row r's outputs are the same bits in a call of 16 rows, of 3 rows (r among them at
// each place) and of r alone, on odd shapes (a group of 4 outputs cut short).
TEST(BlockKernels, ARowsOutputsAreTheSameBitsWhateverTheRowsBesideIt) {
  for (const BlockFormatTraits& t : block_formats()) {
    const int n_in = t.elements == 256 ? 2 * 256 : 9 * 32, n_out = 19, n_rows = 16;
    const PackedMatrix w = pack_blocks(random_blocks(t.format, n_out, n_in, 7).data(), t.format, n_out, n_in);
    const std::vector<float> x = random_inputs(static_cast<size_t>(n_rows) * n_in, 8);
    const size_t x_blocks = n_in / kInputBlockWidth;
    std::vector<InputBlock> blocks(n_rows * x_blocks);
    quantize_inputs(blocks.data(), x.data(), n_rows, n_in);
    std::vector<float> all(static_cast<size_t>(n_rows) * n_out);
    kernels::matmul_blocks(all.data(), blocks.data(), w, n_rows, 0, w.n_panels());
    const auto row_of = [&](const std::vector<float>& out, int r) {
      return std::vector<float>(out.begin() + r * n_out, out.begin() + (r + 1) * n_out);
    };
    for (int r = 0; r < n_rows; ++r) {
      SCOPED_TRACE(testing::Message() << t.name << ", row " << r);
      std::vector<float> alone(n_out);
      kernels::matmul_blocks(alone.data(), blocks.data() + r * x_blocks, w, 1, 0, w.n_panels());
      EXPECT_EQ(alone, row_of(all, r));
      const int first = std::min(r - r % 3, n_rows - 3);  // r at the first, second or third place
      std::vector<float> three(3 * n_out);
      kernels::matmul_blocks(three.data(), blocks.data() + first * x_blocks, w, 3, 0, w.n_panels());
      EXPECT_EQ(row_of(three, r - first), row_of(all, r));
    }
  }
}

TEST(BlockKernels, PanelsInAnySplitEqualTheWholeProductExactly) {
  for (const BlockFormatTraits& t : block_formats())
    for (int n_rows : {1, 3}) {          // one row: the one-row paths (Q4_0's own)
      const int n_in = 256, n_out = 40;  // 5 panels
      const PackedMatrix w = pack_blocks(random_blocks(t.format, n_out, n_in, 5).data(), t.format, n_out, n_in);
      const std::vector<float> x = random_inputs(static_cast<size_t>(n_rows) * n_in, 6);
      std::vector<float> whole(static_cast<size_t>(n_rows) * n_out), scratch(x.size());
      kernels::matmul(whole.data(), x.data(), w, n_rows, scratch.data());
      std::vector<InputBlock> blocks(static_cast<size_t>(n_rows) * n_in / kInputBlockWidth);
      quantize_inputs(blocks.data(), x.data(), n_rows, n_in);
      for (int split : {1, 2, 4}) {
        std::vector<float> parts(whole.size(), -1.0f);
        kernels::matmul_blocks(parts.data(), blocks.data(), w, n_rows, 0, split);
        kernels::matmul_blocks(parts.data(), blocks.data(), w, n_rows, split, w.n_panels());
        EXPECT_EQ(parts, whole) << t.name << ", " << n_rows << " rows, split at panel " << split;
      }
    }
}

// Each block's scale is its largest magnitude / 127 and its values round to nearest: the largest is
// +-127, every value within half a step, the sum is the q's sum, and zeros stay zero.
TEST(BlockKernels, InputsRoundToInt8BlocksOfTheirLargestMagnitude) {
  std::vector<float> x(64, 0.0f);
  for (int i = 0; i < 32; ++i) x[i] = static_cast<float>(i - 10) * 0.5f;  // -5 .. 10.5
  InputBlock blocks[2];
  quantize_inputs(blocks, x.data(), 1, 64);
  EXPECT_FLOAT_EQ(blocks[0].scale, 10.5f / 127.0f);
  EXPECT_EQ(blocks[0].q[31], 127);
  EXPECT_EQ(blocks[0].q[0], static_cast<int>(std::nearbyint(-5.0f * 127.0f / 10.5f)));
  int sum = 0;
  for (int i = 0; i < 32; ++i) {
    EXPECT_LE(std::fabs(blocks[0].q[i] * blocks[0].scale - x[i]), blocks[0].scale / 2 + 1e-6f);
    sum += blocks[0].q[i];
  }
  EXPECT_EQ(blocks[0].sum, sum);
  EXPECT_EQ(blocks[1].scale, 0.0f);
  for (int8_t q : blocks[1].q) EXPECT_EQ(q, 0);
}

// A broken file's weights can make an activation NaN or infinite: it counts as 0, never as an undefined
// conversion (the sanitizer build would stop on one).
TEST(BlockKernels, InputsThatAreNotFiniteRoundToZero) {
  std::vector<float> x(32, 1.0f);
  x[3] = std::nanf("");
  x[5] = INFINITY;
  InputBlock block;
  quantize_inputs(&block, x.data(), 1, 32);
  EXPECT_EQ(block.q[3], 0);
  EXPECT_EQ(block.q[5], 0);
  x[5] = 1.0f;
  quantize_inputs(&block, x.data(), 1, 32);
  EXPECT_EQ(block.q[3], 0);
  EXPECT_EQ(block.q[0], 127);
}

}  // namespace
}  // namespace kvlab
