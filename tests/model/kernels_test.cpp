// Every kernel against its scalar twin, at sizes that exercise both the SIMD body and the scalar tail.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/rng.h"
#include "model/kernels.h"
#include "model/kv_pairs.h"

namespace kvlab {
namespace {

std::vector<float> random_vector(size_t n, uint64_t seed, float scale = 1.0f) {
  Rng rng(seed);
  std::vector<float> v(n);
  for (float& x : v) x = rng.symmetric_float() * scale;
  return v;
}

void expect_close(const std::vector<float>& got, const std::vector<float>& want, float tolerance) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], tolerance * (1.0f + std::fabs(want[i]))) << "at index " << i;
}

const int kSizes[] = {1, 3, 4, 7, 8, 9, 16, 31, 64, 100};

TEST(Kernels, MatmulMatchesScalarForEveryBlockShape) {
  for (int n_rows : {1, 2, 3, 4, 5, 7, 8, 16, 17}) {
    for (int n_in : {1, 7, 8, 33, 64}) {
      for (int n_out : {1, 3, 8, 9, 17, 64, 72, 100}) {
        auto x = random_vector(static_cast<size_t>(n_rows) * n_in, 1);
        auto w_rows = random_vector(static_cast<size_t>(n_out) * n_in, 2);
        PackedMatrix w = pack(w_rows.data(), n_out, n_in);
        std::vector<float> got(static_cast<size_t>(n_rows) * n_out), want(got.size()), interleaved(x.size());
        kernels::matmul(got.data(), x.data(), w, n_rows, interleaved.data());
        kernels::scalar::matmul(want.data(), x.data(), w, n_rows, interleaved.data());
        SCOPED_TRACE(testing::Message() << n_rows << "x" << n_in << " by " << n_out);
        expect_close(got, want, 1e-5f);
      }
    }
  }
}

// Threads share a product by output panels: any split of the panels gives every output bit for bit.
TEST(Kernels, MatmulPanelsInAnySplitEqualMatmulExactly) {
  for (NumberFormat format : {NumberFormat::f32, NumberFormat::bf16})
    for (int n_rows : {1, 3, 4, 9}) {
      const int n_in = 33, n_out = 100;  // 13 panels, the last one cut short
      auto x = random_vector(static_cast<size_t>(n_rows) * n_in, 1);
      auto w_rows = random_vector(static_cast<size_t>(n_out) * n_in, 2);
      PackedMatrix w = pack(w_rows.data(), n_out, n_in, format);
      std::vector<float> whole(static_cast<size_t>(n_rows) * n_out), scratch(x.size());
      kernels::matmul(whole.data(), x.data(), w, n_rows, scratch.data());
      for (int split : {1, 3, 5, 12}) {
        std::vector<float> parts(whole.size(), -1.0f);
        const float* inputs = kernels::matmul_inputs(x.data(), n_in, n_rows, scratch.data());
        kernels::matmul_panels(parts.data(), inputs, w, n_rows, 0, split);
        kernels::matmul_panels(parts.data(), inputs, w, n_rows, split, w.n_panels());
        EXPECT_EQ(std::memcmp(parts.data(), whole.data(), whole.size() * sizeof(float)), 0) << n_rows << " " << split;
        std::vector<float> twin(whole.size()), twin_parts(whole.size(), -1.0f);
        kernels::scalar::matmul(twin.data(), x.data(), w, n_rows, scratch.data());
        const float* twin_inputs = kernels::scalar::matmul_inputs(x.data(), n_in, n_rows, scratch.data());
        kernels::scalar::matmul_panels(twin_parts.data(), twin_inputs, w, n_rows, 0, split);
        kernels::scalar::matmul_panels(twin_parts.data(), twin_inputs, w, n_rows, split, w.n_panels());
        EXPECT_EQ(std::memcmp(twin_parts.data(), twin.data(), twin.size() * sizeof(float)), 0) << n_rows;
      }
    }
}

TEST(Kernels, Bf16MatmulMatchesScalarForEveryBlockShape) {
  for (int n_rows : {1, 2, 3, 4, 5, 7, 8, 16, 17}) {
    for (int n_in : {1, 2, 7, 8, 33, 64}) {  // odd n_in: the last pair is half padding
      for (int n_out : {1, 3, 8, 9, 17, 64, 72, 100}) {
        auto x = random_vector(static_cast<size_t>(n_rows) * n_in, 1);
        auto w_rows = random_vector(static_cast<size_t>(n_out) * n_in, 2);
        PackedMatrix w = pack(w_rows.data(), n_out, n_in, NumberFormat::bf16);
        std::vector<float> got(static_cast<size_t>(n_rows) * n_out), want(got.size()), interleaved(x.size());
        kernels::matmul(got.data(), x.data(), w, n_rows, interleaved.data());
        kernels::scalar::matmul(want.data(), x.data(), w, n_rows, interleaved.data());
        SCOPED_TRACE(testing::Message() << n_rows << "x" << n_in << " by " << n_out);
        expect_close(got, want, 1e-5f);
      }
    }
  }
}

TEST(Kernels, Bf16RoundsToNearestEven) {
  auto bits = [](uint32_t u) {
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
  };
  EXPECT_EQ(to_bf16(1.0f), 0x3F80);
  EXPECT_EQ(to_bf16(bits(0x3F807FFFu)), 0x3F80);  // below half: down
  EXPECT_EQ(to_bf16(bits(0x3F808000u)), 0x3F80);  // a tie, to the even 0x3F80
  EXPECT_EQ(to_bf16(bits(0x3F818000u)), 0x3F82);  // a tie, to the even 0x3F82
  EXPECT_EQ(to_bf16(bits(0x3F808001u)), 0x3F81);  // above half: up
  EXPECT_EQ(to_bf16(-2.5f), 0xC020);
  EXPECT_EQ(from_bf16(0xC020), -2.5f);
}

TEST(Kernels, Bf16PackingRoundsEveryWeightAndPadsWithZeros) {
  auto w = random_vector(11 * 5, 3);
  PackedMatrix packed = pack(w.data(), 11, 5, NumberFormat::bf16);
  EXPECT_TRUE(packed.arena->panels.empty());
  EXPECT_EQ(packed.arena->pairs.size(), 2u * 3 * kPanelWidth);  // 2 panels x 3 pairs of inputs
  EXPECT_EQ(packed.bytes(), 2u * 3 * kPanelWidth * 4);
  for (int o = 0; o < 11; ++o)
    for (int i = 0; i < 5; ++i) EXPECT_EQ(packed.at(o, i), from_bf16(to_bf16(w[o * 5 + i])));
  for (int j = 0; j < 3; ++j) EXPECT_EQ(packed.arena->pairs[(3 + j) * kPanelWidth + 3], 0u);  // output 11: padding
  for (int o = 0; o < 8; ++o) EXPECT_EQ(packed.arena->pairs[2 * kPanelWidth + o] >> 16, 0u);  // input 5: padding
}

TEST(Kernels, MatmulComputesKnownProduct) {
  // x = [[1, 2], [3, 4]], W = [[1, 0], [1, 1], [0, 2]] -> out = x W^T = [[1, 3, 4], [3, 7, 8]]
  std::vector<float> x = {1, 2, 3, 4}, w = {1, 0, 1, 1, 0, 2}, out(6), out_scalar(6), interleaved(x.size());
  PackedMatrix packed = pack(w.data(), 3, 2);
  kernels::matmul(out.data(), x.data(), packed, 2, interleaved.data());
  kernels::scalar::matmul(out_scalar.data(), x.data(), packed, 2, interleaved.data());
  EXPECT_EQ(out, (std::vector<float>{1, 3, 4, 3, 7, 8}));
  EXPECT_EQ(out_scalar, out);
}

TEST(Kernels, PackingKeepsEveryWeightAndPadsWithZeros) {
  auto w = random_vector(11 * 5, 3);
  PackedMatrix packed = pack(w.data(), 11, 5);
  EXPECT_EQ(packed.n_panels(), 2);
  EXPECT_EQ(packed.arena->panels.size(), 2u * 5 * kPanelWidth);
  for (int o = 0; o < 11; ++o)
    for (int i = 0; i < 5; ++i) EXPECT_EQ(packed.at(o, i), w[o * 5 + i]);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(packed.arena->panels[(5 + i) * kPanelWidth + 3], 0.0f);  // output 11: padding
}

TEST(Kernels, PanelsOfWholeGroupsAreStoredInStripes) {
  const int stripes = kernels::one_row_panels();
  const int n_in = 3, n_out = (2 * stripes + 1) * kPanelWidth - 2;  // two whole groups and a last, short panel
  auto w = random_vector(static_cast<size_t>(n_out) * n_in, 4);
  PackedMatrix packed = pack(w.data(), n_out, n_in);
  EXPECT_EQ(packed.stripes, stripes);
  for (int o = 0; o < n_out; ++o)
    for (int i = 0; i < n_in; ++i) ASSERT_EQ(packed.at(o, i), w[o * n_in + i]);
  // Each stripe holds panel p of both groups side by side, so the one-row matmul's reads run on.
  const size_t words = static_cast<size_t>(n_in) * kPanelWidth;
  for (int p = 0; p < stripes; ++p) {
    EXPECT_EQ(packed.panel_offset(p), 2u * p * words);
    EXPECT_EQ(packed.panel_offset(p + stripes), (2u * p + 1) * words);
  }
  EXPECT_EQ(packed.panel_offset(2 * stripes), 2u * stripes * words);        // the tail
  EXPECT_EQ(packed.arena->panels[words], w[stripes * kPanelWidth * n_in]);  // slot 1: panel `stripes`, output 0
}

// Matrices of one arena: odd n_in, n_out not a multiple of 8, whole groups and tails.
const MatrixShape kArenaShapes[] = {{45, 5}, {64, 7}, {17, 33}, {3, 1}, {100, 8}};

TEST(Kernels, ArenaStripesRunThroughEveryMatrixInOrder) {
  const int stripes = kernels::one_row_panels();
  for (NumberFormat format : {NumberFormat::f32, NumberFormat::bf16}) {
    SCOPED_TRACE(number_format_name(format));
    const std::vector<MatrixShape> shapes(std::begin(kArenaShapes), std::end(kArenaShapes));
    ArenaLayout layout = lay_out_in_one_arena(shapes, format);
    const std::vector<PackedMatrix>& m = layout.matrices;
    ASSERT_EQ(m.size(), shapes.size());
    // Stripe s of every matrix in order, then stripe s + 1 of the first; after the last stripe the
    // tails, in order; and nothing else in the arena.
    size_t words = 0;
    for (int s = 0; s <= stripes; ++s) {
      for (const PackedMatrix& matrix : m) {
        EXPECT_EQ(matrix.arena, layout.arena);
        EXPECT_EQ(matrix.stripes, stripes);
        ASSERT_EQ(matrix.stripe_starts[s], words) << "stripe " << s << " of " << matrix.n_out << "x" << matrix.n_in;
        const int panels = s < stripes ? matrix.panels_per_stripe() : matrix.n_panels() % stripes;
        words += static_cast<size_t>(panels) * matrix.words_per_panel();
      }
    }
    size_t bytes = 0;
    for (const PackedMatrix& matrix : m) bytes += matrix.bytes();
    EXPECT_EQ(words * 4, bytes);
    EXPECT_EQ(format == NumberFormat::f32 ? layout.arena->panels.size() : layout.arena->pairs.size(), words);
    EXPECT_TRUE(format == NumberFormat::f32 ? layout.arena->pairs.empty() : layout.arena->panels.empty());
    // Within a stripe panel p + stripes follows panel p.
    for (const PackedMatrix& matrix : m)
      for (int p = 0; p + stripes < matrix.panels_per_stripe() * stripes; ++p)
        EXPECT_EQ(matrix.panel_offset(p + stripes), matrix.panel_offset(p) + matrix.words_per_panel());

    // Every weight round-trips through at() and unpack(), rounded to the format, and the SIMD matmul
    // finds each matrix's panels in the shared arena.
    std::vector<std::vector<float>> rows;
    for (size_t k = 0; k < m.size(); ++k) {
      rows.push_back(random_vector(static_cast<size_t>(m[k].n_out) * m[k].n_in, 10 + k));
      pack_into(*layout.arena, m[k], rows.back().data());
    }
    for (size_t k = 0; k < m.size(); ++k) {
      const FloatBuffer back = unpack(m[k]);
      for (size_t i = 0; i < back.size(); ++i)
        ASSERT_EQ(back[i], format == NumberFormat::f32 ? rows[k][i] : from_bf16(to_bf16(rows[k][i]))) << "matrix " << k;
      const PackedMatrix alone = pack(rows[k].data(), m[k].n_out, m[k].n_in, format);
      EXPECT_EQ(unpack(alone), back);
      for (int n_rows : {1, 3, 5}) {
        auto x = random_vector(static_cast<size_t>(n_rows) * m[k].n_in, 1);
        std::vector<float> got(static_cast<size_t>(n_rows) * m[k].n_out), want(got.size()), separate(got.size());
        std::vector<float> interleaved(x.size());
        kernels::matmul(got.data(), x.data(), m[k], n_rows, interleaved.data());
        kernels::scalar::matmul(want.data(), x.data(), m[k], n_rows, interleaved.data());
        kernels::matmul(separate.data(), x.data(), alone, n_rows, interleaved.data());
        expect_close(got, want, 1e-5f);
        EXPECT_EQ(got, separate);  // the same sums in the same order wherever the panels are stored
      }
    }
  }
}

TEST(Kernels, VectorKernelsMatchScalar) {
  for (int n : kSizes) {
    SCOPED_TRACE(n);
    auto a = random_vector(n, 3), b = random_vector(n, 4), weight = random_vector(n, 5);
    EXPECT_NEAR(kernels::dot(a.data(), b.data(), n), kernels::scalar::dot(a.data(), b.data(), n), 1e-5f * n);

    auto y1 = a, y2 = a;
    kernels::axpy(y1.data(), 0.37f, b.data(), n);
    kernels::scalar::axpy(y2.data(), 0.37f, b.data(), n);
    expect_close(y1, y2, 1e-6f);

    y1 = a, y2 = a;
    kernels::add(y1.data(), b.data(), n);
    kernels::scalar::add(y2.data(), b.data(), n);
    expect_close(y1, y2, 0.0f);

    std::vector<float> n1(n), n2(n);
    for (float epsilon : {1e-5f, 1e-6f}) {  // Llama's and Qwen2's
      kernels::rmsnorm(n1.data(), a.data(), weight.data(), n, epsilon);
      kernels::scalar::rmsnorm(n2.data(), a.data(), weight.data(), n, epsilon);
      expect_close(n1, n2, 1e-5f);
    }

    auto s1 = random_vector(n, 6, 8.0f), s2 = s1;
    kernels::softmax(s1.data(), n);
    kernels::scalar::softmax(s2.data(), n);
    expect_close(s1, s2, 1e-5f);

    auto g1 = random_vector(n, 7, 6.0f), g2 = g1;
    kernels::swiglu(g1.data(), b.data(), n);
    kernels::scalar::swiglu(g2.data(), b.data(), n);
    expect_close(g1, g2, 1e-5f);
  }
}

// Numbers of 1e-3 have a mean square of 1e-6, as large as Qwen2's epsilon: that epsilon takes their norm
// to 1 / sqrt(2) where Llama's would take it to 1 / sqrt(11).
TEST(Kernels, RmsnormAddsTheEpsilonItIsGiven) {
  for (int n : kSizes) {
    SCOPED_TRACE(n);
    const std::vector<float> x(static_cast<size_t>(n), 1e-3f), weight(static_cast<size_t>(n), 1.0f);
    for (float epsilon : {1e-6f, 1e-5f}) {
      const float expected = 1e-3f / std::sqrt(1e-6f + epsilon);
      std::vector<float> simd(x.size()), scalar(x.size());
      kernels::rmsnorm(simd.data(), x.data(), weight.data(), n, epsilon);
      kernels::scalar::rmsnorm(scalar.data(), x.data(), weight.data(), n, epsilon);
      for (int i = 0; i < n; ++i) {
        EXPECT_NEAR(simd[i], expected, 1e-5f) << "epsilon " << epsilon;
        EXPECT_NEAR(scalar[i], expected, 1e-5f) << "epsilon " << epsilon;
      }
    }
  }
}

TEST(Kernels, SoftmaxSumsToOneAndKeepsOrder) {
  std::vector<float> x = {1.0f, 3.0f, 2.0f, -50.0f, 3.0f};
  kernels::softmax(x.data(), 5);
  float sum = 0;
  for (float v : x) sum += v;
  EXPECT_NEAR(sum, 1.0f, 1e-6f);
  EXPECT_GT(x[1], x[2]);
  EXPECT_GT(x[2], x[0]);
  EXPECT_FLOAT_EQ(x[1], x[4]);
}

TEST(Kernels, RopeMatchesScalarAndRotatesByAngle) {
  for (int head_dim : {2, 8, 16, 34}) {
    const int half = head_dim / 2, n_heads = 3;
    auto v1 = random_vector(static_cast<size_t>(n_heads) * head_dim, 8), v2 = v1;
    auto angles = random_vector(half, 9, 3.0f);
    std::vector<float> cos(half), sin(half);
    for (int i = 0; i < half; ++i) cos[i] = std::cos(angles[i]), sin[i] = std::sin(angles[i]);
    kernels::rope(v1.data(), n_heads, head_dim, cos.data(), sin.data());
    kernels::scalar::rope(v2.data(), n_heads, head_dim, cos.data(), sin.data());
    expect_close(v1, v2, 1e-6f);
  }
  // (1, 0) turned by 90 degrees is (0, 1).
  std::vector<float> v = {1.0f, 0.0f}, c = {0.0f}, s = {1.0f};
  kernels::rope(v.data(), 1, 2, c.data(), s.data());
  EXPECT_FLOAT_EQ(v[0], 0.0f);
  EXPECT_FLOAT_EQ(v[1], 1.0f);
}

TEST(Kernels, AttentionMatchesScalarWithGroupedHeads) {
  for (int context : {1, 5, 17}) {
    for (int n_kv_heads : {1, 2, 4}) {
      const int n_heads = 4, head_dim = 12;
      auto q = random_vector(static_cast<size_t>(n_heads) * head_dim, 10);
      auto keys = random_vector(static_cast<size_t>(context) * n_kv_heads * head_dim, 11);
      auto values = random_vector(keys.size(), 12);
      std::vector<float> got(q.size()), want(q.size()), scores(context);
      const int one_block = 0;
      const KvLayerView kv{keys.data(), values.data(), &one_block, context};
      kernels::attention(got.data(), q.data(), kv, context, n_heads, n_kv_heads, head_dim, scores.data());
      kernels::scalar::attention(want.data(), q.data(), kv, context, n_heads, n_kv_heads, head_dim, scores.data());
      expect_close(got, want, 1e-5f);
    }
  }
}

TEST(Kernels, AttentionOverOnePositionReturnsItsValue) {
  std::vector<float> q = {0.3f, -1.0f}, key = {2.0f, 5.0f}, value = {7.0f, -3.0f}, out(2), scores(1);
  const int one_block = 0;
  kernels::attention(out.data(), q.data(), KvLayerView{key.data(), value.data(), &one_block, 1}, 1, 1, 1, 2,
                     scores.data());
  EXPECT_FLOAT_EQ(out[0], 7.0f);
  EXPECT_FLOAT_EQ(out[1], -3.0f);
}

// The same positions stored in blocks of 4 in shuffled order, read through a block table, give the same
// output bit for bit as read from one contiguous block, for both kernel sets.
TEST(Kernels, AttentionThroughABlockTableEqualsContiguous) {
  const int n_heads = 4, n_kv_heads = 2, head_dim = 12, kv_dim = n_kv_heads * head_dim, block_tokens = 4;
  const int context = 15;
  const std::vector<int> table = {3, 0, 2, 1};  // position t is in block table[t / 4]
  auto q = random_vector(static_cast<size_t>(n_heads) * head_dim, 20);
  auto keys = random_vector(static_cast<size_t>(context) * kv_dim, 21);
  auto values = random_vector(keys.size(), 22);
  std::vector<float> paged_keys(table.size() * block_tokens * kv_dim), paged_values(paged_keys.size());
  for (int t = 0; t < context; ++t) {
    const size_t at = (static_cast<size_t>(table[t / block_tokens]) * block_tokens + t % block_tokens) * kv_dim;
    std::copy_n(&keys[static_cast<size_t>(t) * kv_dim], kv_dim, &paged_keys[at]);
    std::copy_n(&values[static_cast<size_t>(t) * kv_dim], kv_dim, &paged_values[at]);
  }
  const int one_block = 0;
  const KvLayerView contiguous{keys.data(), values.data(), &one_block, context};
  const KvLayerView paged{paged_keys.data(), paged_values.data(), table.data(), block_tokens};
  std::vector<float> want(q.size()), got(q.size()), scores(context);
  kernels::attention(want.data(), q.data(), contiguous, context, n_heads, n_kv_heads, head_dim, scores.data());
  kernels::attention(got.data(), q.data(), paged, context, n_heads, n_kv_heads, head_dim, scores.data());
  EXPECT_EQ(got, want);
  kernels::scalar::attention(want.data(), q.data(), contiguous, context, n_heads, n_kv_heads, head_dim, scores.data());
  kernels::scalar::attention(got.data(), q.data(), paged, context, n_heads, n_kv_heads, head_dim, scores.data());
  EXPECT_EQ(got, want);
}

float float_of_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

uint32_t bits_of_float(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// What IEEE 754 says half `h` is, by its definition.
double half_by_definition(uint16_t h) {
  const int sign = h >> 15, exponent = (h >> 10) & 31, mantissa = h & 1023;
  const double magnitude = exponent == 0    ? std::ldexp(mantissa, -24)
                           : exponent == 31 ? (mantissa == 0 ? INFINITY : NAN)
                                            : std::ldexp(1024 + mantissa, exponent - 25);
  return sign ? -magnitude : magnitude;
}

// Every one of the 65,536 half bit patterns: widened exactly as IEEE defines it, and rounded back to
// itself (a NaN to a NaN of the same sign).
TEST(Float16, EveryHalfWidensExactlyAndRoundsBackToItself) {
  int nans = 0;
  for (uint32_t h = 0; h < 65536; ++h) {
    const float value = from_f16(static_cast<uint16_t>(h));
    const double want = half_by_definition(static_cast<uint16_t>(h));
    if (std::isnan(want)) {
      ++nans;
      ASSERT_TRUE(std::isnan(value)) << std::hex << h;
      ASSERT_EQ(to_f16(value) & 0xFC00u, h & 0xFC00u) << std::hex << h;  // sign and all-ones exponent
      ASSERT_NE(to_f16(value) & 0x03FFu, 0u) << std::hex << h;
      continue;
    }
    ASSERT_EQ(static_cast<double>(value), want) << std::hex << h;
    ASSERT_EQ(std::signbit(value), (h & 0x8000u) != 0) << std::hex << h;
    ASSERT_EQ(to_f16(value), h) << std::hex << h;
  }
  EXPECT_EQ(nans, 2 * 1023);
}

// Between every two neighbouring finite halves of either sign: the midpoint rounds to the one with the
// even mantissa, a float just below it to the lower, just above to the upper (ties to even, subnormals
// included); past 65504 the midpoint 65520 and up go to infinity.
TEST(Float16, EveryMidpointRoundsToEvenAndNeighboursToNearest) {
  for (uint32_t sign : {0u, 0x8000u}) {
    for (uint32_t h = 0; h < 0x7BFF; ++h) {
      const float lo = from_f16(static_cast<uint16_t>(sign | h)), hi = from_f16(static_cast<uint16_t>(sign | (h + 1)));
      const float mid = (lo + hi) / 2;  // exact: a float has 13 more mantissa bits
      ASSERT_EQ(to_f16(mid), sign | (h % 2 == 0 ? h : h + 1)) << std::hex << h;
      ASSERT_EQ(to_f16(std::nextafter(mid, lo)), sign | h) << std::hex << h;
      ASSERT_EQ(to_f16(std::nextafter(mid, hi)), sign | (h + 1)) << std::hex << h;
    }
  }
}

TEST(Float16, KnownValues) {
  EXPECT_EQ(to_f16(1.0f), 0x3C00);
  EXPECT_EQ(to_f16(-2.0f), 0xC000);
  EXPECT_EQ(to_f16(0.1f), 0x2E66);  // 0.0999755859375
  EXPECT_EQ(to_f16(1.0f / 3), 0x3555);
  EXPECT_EQ(to_f16(65504.0f), 0x7BFF);    // the largest half
  EXPECT_EQ(to_f16(65519.996f), 0x7BFF);  // below the midpoint to 65536
  EXPECT_EQ(to_f16(65520.0f), 0x7C00);    // the midpoint: to even, which is infinity
  EXPECT_EQ(to_f16(1e6f), 0x7C00);
  EXPECT_EQ(to_f16(-1e30f), 0xFC00);
  EXPECT_EQ(to_f16(INFINITY), 0x7C00);
  EXPECT_EQ(to_f16(-INFINITY), 0xFC00);
  EXPECT_EQ(to_f16(NAN), 0x7E00);
  EXPECT_EQ(to_f16(std::ldexp(1.0f, -14)), 0x0400);  // the smallest normal
  EXPECT_EQ(to_f16(std::ldexp(1.0f, -24)), 0x0001);  // the smallest subnormal
  EXPECT_EQ(to_f16(std::ldexp(1.0f, -25)), 0x0000);  // half of it: a tie, to even zero
  EXPECT_EQ(to_f16(std::ldexp(3.0f, -25)), 0x0002);  // 1.5 of it: a tie, to even 2
  EXPECT_EQ(to_f16(std::ldexp(1.0f, -26)), 0x0000);
  EXPECT_EQ(to_f16(float_of_bits(1)), 0x0000);  // a float32 subnormal
  EXPECT_EQ(to_f16(-0.0f), 0x8000);
  EXPECT_EQ(from_f16(0x7BFF), 65504.0f);
  EXPECT_EQ(from_f16(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(from_f16(0x03FF), std::ldexp(1023.0f, -24));
  EXPECT_EQ(from_f16(0xFC00), -INFINITY);
  EXPECT_EQ(from_f16(0xC000), -2.0f);
}

// Head of head_dim numbers -> its pairs, by the layout's definition (kv_cache.h).
std::vector<uint32_t> pairs_by_definition(const std::vector<uint16_t>& halves) {
  const size_t half = halves.size() / 2;
  std::vector<uint32_t> pairs(half);
  for (size_t j = 0; j < half; ++j) pairs[j] = halves[j] | static_cast<uint32_t>(halves[half + j]) << 16;
  return pairs;
}

// The SIMD kernels widen all 65,536 bit patterns of each format as the scalar conversion does, bit for
// bit (axpy with a = 1 onto -0 adds each number exactly), and so do their scalar twins.
template <NumberFormat F>
void expect_every_pattern_widens_exactly() {
  std::vector<uint16_t> halves(65536);
  for (uint32_t h = 0; h < 65536; ++h) halves[h] = static_cast<uint16_t>(h);
  const std::vector<uint32_t> pairs = pairs_by_definition(halves);
  std::vector<float> simd(65536, -0.0f), twin(65536, -0.0f);
  kernels::axpy_pairs<F>(simd.data(), 1.0f, pairs.data(), 65536);
  kernels::scalar::axpy_pairs<F>(twin.data(), 1.0f, pairs.data(), 65536);
  for (uint32_t h = 0; h < 65536; ++h) {
    const float want = widen<F, ScalarLanes>(h);
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(simd[h]) && std::isnan(twin[h])) << std::hex << h;
    } else {
      ASSERT_EQ(bits_of_float(simd[h]), bits_of_float(want)) << std::hex << h;
      ASSERT_EQ(bits_of_float(twin[h]), bits_of_float(want)) << std::hex << h;
    }
  }
}

TEST(KvKernels, EveryBf16PatternWidensExactlyInBothKernelSets) {
  expect_every_pattern_widens_exactly<NumberFormat::bf16>();
}
TEST(KvKernels, EveryF16PatternWidensExactlyInBothKernelSets) {
  expect_every_pattern_widens_exactly<NumberFormat::f16>();
}

// Rounding in the SIMD kernel gives the scalar twin's bits for every half's value, every midpoint and
// neighbour of it, and random float32 bit patterns of every exponent (NaN and infinity included); heads
// of 12 numbers leave a scalar tail in every vector width.
TEST(KvKernels, SimdRoundingEqualsTheTwinBitForBit) {
  std::vector<float> x;
  for (uint32_t h = 0; h < 65535; ++h) {
    const float a = from_f16(static_cast<uint16_t>(h)), b = from_f16(static_cast<uint16_t>(h + 1));
    x.insert(x.end(), {a, (a + b) / 2, std::nextafter((a + b) / 2, a), std::nextafter((a + b) / 2, b)});
  }
  Rng rng(41);
  for (int i = 0; i < 1 << 16; ++i) x.push_back(float_of_bits(static_cast<uint32_t>(rng.next_u64())));
  const int head_dim = 12;
  x.resize(x.size() / head_dim * head_dim);
  const int n_heads = static_cast<int>(x.size()) / head_dim;
  for (NumberFormat format : {NumberFormat::bf16, NumberFormat::f16}) {
    std::vector<uint32_t> simd(x.size() / 2), twin(x.size() / 2);
    kernels::store_pairs(simd.data(), x.data(), n_heads, head_dim, format);
    kernels::scalar::store_pairs(twin.data(), x.data(), n_heads, head_dim, format);
    ASSERT_EQ(simd, twin) << number_format_name(format);
    for (size_t i = 0; i < x.size(); ++i) {  // and the layout: number i of a head in word i or i - 6
      const size_t head = i / head_dim, j = i % head_dim, word = head * 6 + j % 6;
      const uint32_t half = j < 6 ? twin[word] & 0xFFFFu : twin[word] >> 16;
      ASSERT_EQ(half, format == NumberFormat::bf16 ? to_bf16(x[i]) : to_f16(x[i])) << i;
    }
  }
}

TEST(KvKernels, DotAndAxpyOfPairsMatchScalarAndTheRoundedFloats) {
  for (int head_dim : {2, 6, 8, 16, 24, 64, 66}) {
    SCOPED_TRACE(head_dim);
    auto q = random_vector(head_dim, 30), k = random_vector(head_dim, 31, 4.0f), y = random_vector(head_dim, 32);
    for (NumberFormat format : {NumberFormat::bf16, NumberFormat::f16}) {
      std::vector<uint32_t> pairs(head_dim / 2);
      kernels::scalar::store_pairs(pairs.data(), k.data(), 1, head_dim, format);
      std::vector<float> rounded(head_dim);
      for (int i = 0; i < head_dim; ++i)
        rounded[i] = format == NumberFormat::bf16 ? from_bf16(to_bf16(k[i])) : from_f16(to_f16(k[i]));
      const auto dot =
          format == NumberFormat::bf16 ? kernels::dot_pairs<NumberFormat::bf16> : kernels::dot_pairs<NumberFormat::f16>;
      const auto dot_twin = format == NumberFormat::bf16 ? kernels::scalar::dot_pairs<NumberFormat::bf16>
                                                         : kernels::scalar::dot_pairs<NumberFormat::f16>;
      const auto axpy = format == NumberFormat::bf16 ? kernels::axpy_pairs<NumberFormat::bf16>
                                                     : kernels::axpy_pairs<NumberFormat::f16>;
      const auto axpy_twin = format == NumberFormat::bf16 ? kernels::scalar::axpy_pairs<NumberFormat::bf16>
                                                          : kernels::scalar::axpy_pairs<NumberFormat::f16>;
      const float want = kernels::scalar::dot(q.data(), rounded.data(), head_dim);
      EXPECT_NEAR(dot(q.data(), pairs.data(), head_dim), want, 1e-5f * head_dim);
      EXPECT_NEAR(dot_twin(q.data(), pairs.data(), head_dim), want, 1e-5f * head_dim);
      auto y1 = y, y2 = y, y3 = y;
      axpy(y1.data(), 0.37f, pairs.data(), head_dim);
      axpy_twin(y2.data(), 0.37f, pairs.data(), head_dim);
      kernels::scalar::axpy(y3.data(), 0.37f, rounded.data(), head_dim);
      expect_close(y1, y3, 1e-6f);
      expect_close(y2, y3, 1e-6f);
    }
  }
}

// Attention over 16-bit keys and values, contiguous or through a shuffled block table, in both kernel
// sets: the SIMD kernel equals its twin, and both equal float32 attention over the rounded numbers.
TEST(KvKernels, SixteenBitAttentionMatchesTwinAndF32OverTheRoundedNumbers) {
  const int n_heads = 4, n_kv_heads = 2, head_dim = 12, kv_dim = n_kv_heads * head_dim, block_tokens = 4, context = 15;
  const std::vector<int> table = {3, 0, 2, 1};
  auto q = random_vector(static_cast<size_t>(n_heads) * head_dim, 40);
  auto keys = random_vector(static_cast<size_t>(context) * kv_dim, 41, 3.0f);
  auto values = random_vector(keys.size(), 42, 3.0f);
  for (NumberFormat format : {NumberFormat::bf16, NumberFormat::f16}) {
    SCOPED_TRACE(number_format_name(format));
    std::vector<uint32_t> key_pairs(table.size() * block_tokens * kv_dim / 2), value_pairs(key_pairs.size());
    std::vector<float> rounded_keys(keys.size()), rounded_values(values.size());
    for (int t = 0; t < context; ++t) {
      const size_t at = (static_cast<size_t>(table[t / block_tokens]) * block_tokens + t % block_tokens) * kv_dim / 2;
      kernels::store_pairs(&key_pairs[at], &keys[static_cast<size_t>(t) * kv_dim], n_kv_heads, head_dim, format);
      kernels::store_pairs(&value_pairs[at], &values[static_cast<size_t>(t) * kv_dim], n_kv_heads, head_dim, format);
    }
    for (size_t i = 0; i < keys.size(); ++i) {
      rounded_keys[i] = format == NumberFormat::bf16 ? from_bf16(to_bf16(keys[i])) : from_f16(to_f16(keys[i]));
      rounded_values[i] = format == NumberFormat::bf16 ? from_bf16(to_bf16(values[i])) : from_f16(to_f16(values[i]));
    }
    const int one_block = 0;
    const KvLayerView f32{rounded_keys.data(), rounded_values.data(), &one_block, context};
    const KvLayerView paged{nullptr, nullptr, table.data(), block_tokens, format, key_pairs.data(), value_pairs.data()};
    std::vector<float> want(q.size()), simd(q.size()), twin(q.size()), scores(context);
    kernels::scalar::attention(want.data(), q.data(), f32, context, n_heads, n_kv_heads, head_dim, scores.data());
    kernels::attention(simd.data(), q.data(), paged, context, n_heads, n_kv_heads, head_dim, scores.data());
    kernels::scalar::attention(twin.data(), q.data(), paged, context, n_heads, n_kv_heads, head_dim, scores.data());
    expect_close(simd, twin, 1e-5f);
    expect_close(twin, want, 1e-5f);
  }
}

// The build's instruction set is the one its flags name (cmake/flags.cmake): the portable build of an
// x86-64 machine runs SSE2 kernels, the native one at least that, and a KVLAB_SIMD=OFF build the twins.
TEST(Kernels, InstructionSetIsTheBuilds) {
  const std::string instruction_set = kernels::instruction_set();
  if (!KVLAB_SIMD) {
    EXPECT_EQ(instruction_set, "scalar");
    return;
  }
  EXPECT_NE(instruction_set, "scalar");
#if defined(__x86_64__) && !defined(__EMSCRIPTEN__)
  if (std::string(KVLAB_ARCH_NAME) == "portable") {
    EXPECT_EQ(instruction_set, "sse2");
  }
#endif
  std::printf("instruction set: %s (KVLAB_ARCH=%s)\n", instruction_set.c_str(), KVLAB_ARCH_NAME);
}

TEST(Kernels, ArgmaxTakesFirstOfTies) {
  std::vector<float> x = {0.0f, 2.0f, -1.0f, 2.0f};
  EXPECT_EQ(kernels::argmax(x.data(), 4), 1);
}

}  // namespace
}  // namespace kvlab
