#pragma once
// Float and byte storage aligned for SIMD loads (64 bytes: one cache line, any vector width).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <xsimd/memory/xsimd_aligned_allocator.hpp>

namespace kvlab {

using FloatBuffer = std::vector<float, xsimd::aligned_allocator<float, 64>>;
using ByteBuffer = std::vector<uint8_t, xsimd::aligned_allocator<uint8_t, 64>>;

// `size` bytes from `start` of a byte buffer others may share: a quantized matrix's blocks inside the
// model file's bytes as they were read (so a quantized model holds its file once, not a copy of it), or
// in a buffer of their own (of_size: a quantizer's).
struct SharedBytes {
  std::shared_ptr<ByteBuffer> buffer;
  size_t start = 0;
  size_t size = 0;

  static SharedBytes of_size(size_t n) { return {std::make_shared<ByteBuffer>(n), 0, n}; }
  uint8_t* data() const { return buffer->data() + start; }
  bool empty() const { return size == 0; }
};

}  // namespace kvlab
