#pragma once
// How the model's weight matrices are stored: float32, or bfloat16 (the top 16 bits of a float32:
// same exponent range, 8 bits of mantissa), which halves the bytes a decode step streams. Weights are
// drawn in float32 and rounded to bfloat16 once, to nearest even, with integer operations only, so
// every build holds the same bits. The kernels widen bfloat16 back to float32 (a 16-bit shift) and
// compute in float32. Embeddings, norms and the KV cache stay float32 in both formats.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace kvlab {

enum class WeightFormat { f32, bf16 };

// "f32", "bf16"
const char* weight_format_name(WeightFormat format);
const std::vector<std::string>& weight_format_names();
// Throws InputError naming `field` and the allowed names unless `name` is one of them.
WeightFormat parse_weight_format(const std::string& name, const std::string& field);
int bytes_per_weight(WeightFormat format);  // 4, 2

// Round to nearest, ties to even (the weights are finite: no NaN handling needed).
inline uint16_t to_bf16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  bits += 0x7FFFu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

inline float from_bf16(uint16_t half) {
  const uint32_t bits = static_cast<uint32_t>(half) << 16;
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

}  // namespace kvlab
