#pragma once
// A natural logarithm computed from IEEE basic operations only, so that native and wasm builds get the
// same bits: libm's log (glibc natively, musl in Emscripten) may differ in the last place, and Poisson
// arrival gaps, -ln(1 - u) / rate, must be identical for the same seed everywhere.

namespace kvlab::sim {

// ln(x) for finite x > 0, within a few units in the last place of the exact value.
double portable_log(double x);

}  // namespace kvlab::sim
