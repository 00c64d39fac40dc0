#pragma once
// The memory one call may take (a measurement's weights and caches, a replay's, a simulation's KV
// bookkeeping): half of the 2 GiB a browser tab's wasm heap can grow to, so that what the native CLI
// runs the page runs too, and what would not fit is refused before it is allocated, with its estimate.
#include <cstdint>

namespace kvlab {

constexpr int64_t kMaxCallBytes = int64_t{1} << 30;

}  // namespace kvlab
