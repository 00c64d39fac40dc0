#include "sim/distributions.h"

#include <algorithm>
#include <cmath>

#include "sim/portable_math.h"

namespace kvlab::sim {

double standard_normal(Rng& rng) {
  double u = 0, v = 0, s = 0;
  do {
    u = 2 * rng.uniform() - 1;
    v = 2 * rng.uniform() - 1;
    s = u * u + v * v;
  } while (s >= 1 || s == 0);
  return u * std::sqrt(-2 * portable_log(s) / s);
}

double gamma_draw(Rng& rng, double shape) {
  if (shape < 1) return gamma_draw(rng, shape + 1) * portable_exp(portable_log(1 - rng.uniform()) / shape);
  // Marsaglia & Tsang (2000): d v with v = (1 + c x)^3, x normal, accepted by a cheap squeeze first and
  // the exact log test second.
  const double d = shape - 1.0 / 3.0, c = 1 / std::sqrt(9 * d);
  for (;;) {
    double x = 0, v = 0;
    do {
      x = standard_normal(rng);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    double u = 1 - rng.uniform();  // (0, 1]: its log is finite
    double x_squared = x * x;
    if (u < 1 - 0.0331 * x_squared * x_squared) return d * v;
    if (portable_log(u) < 0.5 * x_squared + d * (1 - v + portable_log(v))) return d * v;
  }
}

int bounded_pareto_tokens(Rng& rng, int lo, int hi, double alpha) {
  double tail = portable_exp(alpha * portable_log(static_cast<double>(lo) / (static_cast<double>(hi) + 1)));
  double y = 1 - rng.uniform() * (1 - tail);  // in (tail, 1]
  double x = lo * portable_exp(-portable_log(y) / alpha);
  return static_cast<int>(std::min(static_cast<double>(hi), std::floor(x)));
}

}  // namespace kvlab::sim
