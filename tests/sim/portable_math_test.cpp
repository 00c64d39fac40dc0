// portable_log() against libm: within 4 ulps (EXPECT_DOUBLE_EQ) everywhere the generator can ask (1 - u is in
// [2^-53, 1]), and exact where the answer is.
#include "sim/portable_log.h"

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

}  // namespace
}  // namespace kvlab::sim
