#include "sim/portable_math.h"

#include <cmath>

namespace kvlab::sim {

double portable_log(double x) {
  // fdlibm's method: x = 2^e (1 + f) with 1 + f in [sqrt(1/2), sqrt(2)) (frexp, the doubling and m - 1
  // are exact). With s = f / (2 + f), ln(1 + f) = 2 atanh(s) = 2s + s R, R = 2 (s^2/3 + s^4/5 + ...), and
  // since 2s = f - s f, ln(1 + f) = f - (f^2/2 - s (f^2/2 + R)): the exact f carries most of the value and
  // only the small correction is rounded. s^2 < 0.0295, so the series is past 2^-53 well before s^26.
  int exponent = 0;
  double m = std::frexp(x, &exponent);
  if (m < 0.70710678118654752440) {
    m *= 2;
    --exponent;
  }
  double f = m - 1;
  double s = f / (2 + f);
  double z = s * s;
  double r = 0;
  for (int k = 13; k >= 1; --k) r = z * (2.0 / (2 * k + 1) + r);
  double half_f_squared = 0.5 * f * f;
  // ln 2 split in two so that e ln 2 keeps full precision: e * ln2_hi is exact for |e| < 2^11.
  const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
  return exponent * ln2_hi - ((half_f_squared - (s * (half_f_squared + r) + exponent * ln2_lo)) - f);
}

double portable_exp(double x) {
  // fdlibm's method: x = k ln 2 + r with |r| <= ln 2 / 2 (k * ln2_hi is exact for |k| < 2^11, and r is kept
  // as hi - lo), e^r from a rational form whose polynomial c(r) = r - r^2 (P1 + r^2 P2 + ...) approximates
  // r (e^r + 1) / (e^r - 1) - 2 on that range: e^r = 1 + 2r / (2 - c) = 1 - ((lo - r c / (2 - c)) - hi).
  // Then e^x = 2^k e^r, an exact scaling for the results that are kept (normal numbers).
  if (x != x) return x;
  if (x > 7.09782712893383973096e+02) return HUGE_VAL;
  if (x < -708.0) return 0.0;
  const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
  const double inverse_ln2 = 1.44269504088896338700e+00;
  const double P1 = 1.66666666666666019037e-01, P2 = -2.77777777770155933842e-03, P3 = 6.61375632143793436117e-05,
               P4 = -1.65339022054652515390e-06, P5 = 4.13813679705723846039e-08;
  int k = 0;
  double hi = x, lo = 0;
  if (std::fabs(x) > 0.5 * ln2_hi) {
    // k = x / ln 2 rounded half away from zero, as fdlibm does.
    k = static_cast<int>(inverse_ln2 * x + (x < 0 ? -0.5 : 0.5));
    hi = x - k * ln2_hi;
    lo = k * ln2_lo;
  }
  double r = hi - lo;
  double t = r * r;
  double c = r - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))));
  if (k == 0) return 1 - ((r * c) / (c - 2.0) - r);
  double y = 1 - ((lo - (r * c) / (2.0 - c)) - hi);
  return std::ldexp(y, k);
}

}  // namespace kvlab::sim
