#pragma once
// Random draws for workloads beyond uniform integers: Gamma gaps (bursty arrivals) and bounded-Pareto
// lengths (heavy tails). Every draw is made of kvlab::Rng's uniforms and IEEE basic operations, sqrt and
// the portable ln and exp (portable_math.h), so a seed gives the same bits natively and in wasm.
#include "common/rng.h"

namespace kvlab::sim {

// Standard normal by Marsaglia's polar method: pairs of uniforms in (-1, 1)^2 until one lands inside the
// unit circle (s = u^2 + v^2 in (0, 1)), then u sqrt(-2 ln s / s). The pair's second normal is not kept.
double standard_normal(Rng& rng);

// Gamma(shape, 1) by Marsaglia and Tsang's squeeze method for shape >= 1; for shape < 1,
// Gamma(shape + 1) * u^(1 / shape) with u = 1 - uniform() in (0, 1]. The number of uniforms used varies.
double gamma_draw(Rng& rng, double shape);

// A length from the bounded Pareto distribution with shape alpha on [lo, hi + 1), rounded down: one
// uniform u, x = lo (1 - u (1 - (lo / (hi + 1))^alpha))^(-1 / alpha), tokens = min(hi, floor(x)).
// P(tokens >= t) falls as t^-alpha (up to the bound): most lengths are near lo, a few are very long.
int bounded_pareto_tokens(Rng& rng, int lo, int hi, double alpha);

}  // namespace kvlab::sim
