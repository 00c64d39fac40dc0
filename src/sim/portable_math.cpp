#include "sim/portable_log.h"

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

}  // namespace kvlab::sim
