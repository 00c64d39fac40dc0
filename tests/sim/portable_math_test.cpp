// portable_log() and portable_exp() against libm: within 4 ulps (EXPECT_DOUBLE_EQ) everywhere the workload
// generator can ask, and exact where the answer is.
#include "sim/portable_math.h"

#include <gtest/gtest.h>

#include <cmath>

#include "common/rng.h"

namespace kvlab::sim {
namespace {

TEST(PortableLog, ExactAtOne) { EXPECT_EQ(portable_log(1.0), 0.0); }

TEST(PortableLog, MatchesLibmToAFewUlps) {
  Rng rng(3);
  for (int i = 0; i < 100000; ++i) {
    double x = 1.0 - rng.uniform();
    EXPECT_DOUBLE_EQ(portable_log(x), std::log(x)) << x;
  }
  for (double x : {0x1.0p-53, 1e-10, 0.5, 0.7071067811865476, 0.7071067811865475, 0.999999999, 2.0, 1e300})
    EXPECT_DOUBLE_EQ(portable_log(x), std::log(x)) << x;
}

TEST(PortableExp, ExactAtZeroAndPowersOfTwoOfLn2) {
  EXPECT_EQ(portable_exp(0.0), 1.0);
  EXPECT_EQ(portable_exp(-0.0), 1.0);
  EXPECT_DOUBLE_EQ(portable_exp(std::log(2.0) * 10), 1024.0);
}

TEST(PortableExp, MatchesLibmToAFewUlps) {
  // The generator asks for e^x with x = ln(u) / shape (Gamma bursts) and x = alpha ln(lo / hi) or
  // -ln(y) / alpha (bounded Pareto): anywhere from about -700 to +40.
  Rng rng(4);
  for (int i = 0; i < 100000; ++i) {
    double x = (rng.uniform() - 0.9) * 780;  // [-702, 78)
    EXPECT_DOUBLE_EQ(portable_exp(x), std::exp(x)) << x;
  }
  for (double x : {1e-300, -1e-20, 1e-9, 0.3465, 0.3466, -0.3466, 1.0, -1.0, 700.0, 709.7, -707.9})
    EXPECT_DOUBLE_EQ(portable_exp(x), std::exp(x)) << x;
}

TEST(PortableExp, EndsOfTheRange) {
  EXPECT_EQ(portable_exp(-708.5), 0.0);  // would be subnormal: flushed to 0
  EXPECT_EQ(portable_exp(-1e6), 0.0);
  EXPECT_TRUE(std::isinf(portable_exp(710.0)));
  EXPECT_TRUE(std::isnan(portable_exp(std::nan(""))));
}

}  // namespace
}  // namespace kvlab::sim
