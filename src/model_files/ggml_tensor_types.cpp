#include "model_files/ggml_tensor_types.h"

#include <cstring>
#include <vector>

#include "model/float16.h"

namespace kvlab {

namespace {

enum : uint32_t { kF32 = 0, kF16 = 1, kBF16 = 30 };

// The float types, then every block format (model/block_format.h).
const std::vector<GgmlType>& supported_types() {
  static const std::vector<GgmlType> types = [] {
    std::vector<GgmlType> list = {{kF32, "F32", 1, 4}, {kF16, "F16", 1, 2}, {kBF16, "BF16", 1, 2}};
    for (const BlockFormatTraits& t : block_formats())
      list.push_back({t.ggml_type, t.name, t.elements, t.bytes, t.format});
    return list;
  }();
  return types;
}

uint16_t u16_at(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }

// A float16's or bfloat16's exponent all ones (mask): an infinity or a NaN.
bool all_ones(uint32_t bits, uint32_t mask) { return (bits & mask) == mask; }
constexpr uint32_t kF16Exponent = 0x7C00, kBF16Exponent = 0x7F80, kF32Exponent = 0x7F800000;

// Where a block of each format keeps its float16 scales (model/block_format.h): d, and dmin or m.
std::vector<int> scale_offsets(BlockFormat format) {
  switch (format) {
    case BlockFormat::q8_0:
    case BlockFormat::q4_0:
    case BlockFormat::q5_0: return {0};
    case BlockFormat::q5_1:
    case BlockFormat::q4_k:
    case BlockFormat::q5_k: return {0, 2};
    case BlockFormat::q6_k: return {208};
  }
  return {};
}

}  // namespace

const GgmlType* supported_ggml_type(uint32_t id) {
  for (const GgmlType& type : supported_types())
    if (type.id == id) return &type;
  return nullptr;
}

std::string ggml_type_name(uint32_t id) {
  // ggml.h's enum ggml_type; 4 and 5 (Q4_2, Q4_3) were removed.
  static const char* const names[] = {"F32",     "F16",    "Q4_0",    "Q4_1",  "",       "",      "Q5_0",  "Q5_1",
                                      "Q8_0",    "Q8_1",   "Q2_K",    "Q3_K",  "Q4_K",   "Q5_K",  "Q6_K",  "Q8_K",
                                      "IQ2_XXS", "IQ2_XS", "IQ3_XXS", "IQ1_S", "IQ4_NL", "IQ3_S", "IQ2_S", "IQ4_XS",
                                      "I8",      "I16",    "I32",     "I64",   "F64",    "IQ1_M", "BF16"};
  if (id < sizeof names / sizeof names[0] && names[id][0] != '\0') return names[id];
  return "unknown";
}

std::string supported_ggml_type_names() {
  std::string names;
  for (const GgmlType& type : supported_types()) names += (names.empty() ? "" : ", ") + std::string(type.name);
  return names;
}

int64_t first_non_finite(const GgmlType& type, const uint8_t* bytes, uint64_t n_elements) {
  if (type.blocks) {
    const std::vector<int> offsets = scale_offsets(*type.blocks);
    const uint64_t n_blocks = n_elements / static_cast<uint64_t>(type.block_elements);
    for (uint64_t b = 0; b < n_blocks; ++b)
      for (int offset : offsets)
        if (all_ones(u16_at(bytes + b * static_cast<uint64_t>(type.block_bytes) + offset), kF16Exponent))
          return static_cast<int64_t>(b);
    return -1;
  }
  for (uint64_t i = 0; i < n_elements; ++i) {
    const uint8_t* p = bytes + i * static_cast<uint64_t>(type.block_bytes);
    const bool non_finite = type.id == kF32
                                ? all_ones(u16_at(p) | (static_cast<uint32_t>(u16_at(p + 2)) << 16), kF32Exponent)
                            : type.id == kF16 ? all_ones(u16_at(p), kF16Exponent)
                                              : all_ones(u16_at(p), kBF16Exponent);
    if (non_finite) return static_cast<int64_t>(i);
  }
  return -1;
}

void dequantize(const GgmlType& type, const uint8_t* bytes, uint64_t n_elements, float* out) {
  switch (type.id) {
    case kF32:
      std::memcpy(out, bytes, n_elements * 4);  // little-endian, as every target kvlab builds for
      return;
    case kF16:
      for (uint64_t i = 0; i < n_elements; ++i) out[i] = from_f16(u16_at(bytes + 2 * i));
      return;
    case kBF16:
      for (uint64_t i = 0; i < n_elements; ++i) out[i] = from_bf16(u16_at(bytes + 2 * i));
      return;
  }
  if (type.blocks)
    dequantize_blocks(*type.blocks, bytes,
                      static_cast<int64_t>(n_elements / static_cast<uint64_t>(type.block_elements)), out);
}

}  // namespace kvlab
