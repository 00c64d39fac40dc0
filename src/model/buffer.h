#pragma once
// Float and byte storage aligned for SIMD loads (64 bytes: one cache line, any vector width).
#include <cstdint>
#include <vector>

#include <xsimd/memory/xsimd_aligned_allocator.hpp>

namespace kvlab {

using FloatBuffer = std::vector<float, xsimd::aligned_allocator<float, 64>>;
using ByteBuffer = std::vector<uint8_t, xsimd::aligned_allocator<uint8_t, 64>>;

}  // namespace kvlab
