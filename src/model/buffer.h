#pragma once
// Float storage aligned for SIMD loads (64 bytes: one cache line, any vector width).
#include <vector>

#include <xsimd/memory/xsimd_aligned_allocator.hpp>

namespace kvlab {

using FloatBuffer = std::vector<float, xsimd::aligned_allocator<float, 64>>;

}  // namespace kvlab
