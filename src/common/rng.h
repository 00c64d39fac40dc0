#pragma once
// The project's one source of randomness: SplitMix64. Every draw is defined by integer arithmetic
// only, so native (libstdc++) and wasm (libc++) builds draw identical weights and workloads, which
// std::*_distribution does not promise.
#include <cstdint>

namespace kvlab {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}

  uint64_t next_u64() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

  // Uniform in [-1, 1) as a float, from 24 random bits (exact in float).
  float symmetric_float() { return static_cast<float>(next_u64() >> 40) * 0x1.0p-23f - 1.0f; }

  // Uniform integer in the inclusive range [lo, hi], without modulo bias (rejection sampling).
  int64_t uniform_int(int64_t lo, int64_t hi) {
    uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
    if (span == 0) return static_cast<int64_t>(next_u64());  // the whole 64-bit range
    uint64_t limit = UINT64_MAX - UINT64_MAX % span;
    uint64_t x;
    do {
      x = next_u64();
    } while (x >= limit);
    return lo + static_cast<int64_t>(x % span);
  }

 private:
  uint64_t state_;
};

}  // namespace kvlab
