// Every kernel against its scalar twin, at sizes that exercise both the SIMD body and the scalar tail.
#include <cmath>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "common/rng.h"
#include "model/kernels.h"

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
        std::vector<float> got(static_cast<size_t>(n_rows) * n_out), want(got.size());
        kernels::matmul(got.data(), x.data(), w, n_rows);
        kernels::scalar::matmul(want.data(), x.data(), w, n_rows);
        SCOPED_TRACE(testing::Message() << n_rows << "x" << n_in << " by " << n_out);
        expect_close(got, want, 1e-5f);
      }
    }
  }
}

TEST(Kernels, Bf16MatmulMatchesScalarForEveryBlockShape) {
  for (int n_rows : {1, 2, 3, 4, 5, 7, 8, 16, 17}) {
    for (int n_in : {1, 2, 7, 8, 33, 64}) {  // odd n_in: the last pair is half padding
      for (int n_out : {1, 3, 8, 9, 17, 64, 72, 100}) {
        auto x = random_vector(static_cast<size_t>(n_rows) * n_in, 1);
        auto w_rows = random_vector(static_cast<size_t>(n_out) * n_in, 2);
        PackedMatrix w = pack(w_rows.data(), n_out, n_in, WeightFormat::bf16);
        std::vector<float> got(static_cast<size_t>(n_rows) * n_out), want(got.size());
        kernels::matmul(got.data(), x.data(), w, n_rows);
        kernels::scalar::matmul(want.data(), x.data(), w, n_rows);
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
  PackedMatrix packed = pack(w.data(), 11, 5, WeightFormat::bf16);
  EXPECT_TRUE(packed.panels.empty());
  EXPECT_EQ(packed.pairs.size(), 2u * 3 * kPanelWidth);  // 2 panels x 3 pairs of inputs
  EXPECT_EQ(packed.bytes(), 2u * 3 * kPanelWidth * 4);
  for (int o = 0; o < 11; ++o)
    for (int i = 0; i < 5; ++i) EXPECT_EQ(packed.at(o, i), from_bf16(to_bf16(w[o * 5 + i])));
  for (int j = 0; j < 3; ++j) EXPECT_EQ(packed.pairs[(3 + j) * kPanelWidth + 3], 0u);   // output 11: padding
  for (int o = 0; o < 8; ++o) EXPECT_EQ(packed.pairs[2 * kPanelWidth + o] >> 16, 0u);  // input 5: padding
}

TEST(Kernels, MatmulComputesKnownProduct) {
  // x = [[1, 2], [3, 4]], W = [[1, 0], [1, 1], [0, 2]] -> out = x W^T = [[1, 3, 4], [3, 7, 8]]
  std::vector<float> x = {1, 2, 3, 4}, w = {1, 0, 1, 1, 0, 2}, out(6), out_scalar(6);
  PackedMatrix packed = pack(w.data(), 3, 2);
  kernels::matmul(out.data(), x.data(), packed, 2);
  kernels::scalar::matmul(out_scalar.data(), x.data(), packed, 2);
  EXPECT_EQ(out, (std::vector<float>{1, 3, 4, 3, 7, 8}));
  EXPECT_EQ(out_scalar, out);
}

TEST(Kernels, PackingKeepsEveryWeightAndPadsWithZeros) {
  auto w = random_vector(11 * 5, 3);
  PackedMatrix packed = pack(w.data(), 11, 5);
  EXPECT_EQ(packed.n_panels(), 2);
  EXPECT_EQ(packed.panels.size(), 2u * 5 * kPanelWidth);
  for (int o = 0; o < 11; ++o)
    for (int i = 0; i < 5; ++i) EXPECT_EQ(packed.at(o, i), w[o * 5 + i]);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(packed.panels[(5 + i) * kPanelWidth + 3], 0.0f);  // output 11: padding
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
    kernels::rmsnorm(n1.data(), a.data(), weight.data(), n);
    kernels::scalar::rmsnorm(n2.data(), a.data(), weight.data(), n);
    expect_close(n1, n2, 1e-5f);

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
  kernels::attention(out.data(), q.data(), KvLayerView{key.data(), value.data(), &one_block, 1}, 1, 1, 1, 2, scores.data());
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

TEST(Kernels, ArgmaxTakesFirstOfTies) {
  std::vector<float> x = {0.0f, 2.0f, -1.0f, 2.0f};
  EXPECT_EQ(kernels::argmax(x.data(), 4), 1);
}

}  // namespace
}  // namespace kvlab
