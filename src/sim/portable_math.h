#pragma once
// ln and exp computed from IEEE basic operations only, so that native and wasm builds get the same bits:
// libm (glibc natively, musl in Emscripten) may differ in the last place, and every random draw of a
// workload (Poisson and Gamma gaps, heavy-tailed lengths) must be identical for the same seed everywhere.

namespace kvlab::sim {

// ln(x) for finite x > 0, within a few units in the last place of the exact value.
double portable_log(double x);

// e^x within a unit in the last place for x in [-708, 709.7]; 0 below -708 (where e^x would be subnormal,
// and rounding a subnormal is where libraries differ), +infinity above 709.78.
double portable_exp(double x);

}  // namespace kvlab::sim
