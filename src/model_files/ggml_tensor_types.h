#pragma once
// The ggml tensor types a GGUF file's weights come in, and their conversion to float32. Supported:
//   F32   float32
//   F16   IEEE half
//   BF16  bfloat16
//   the block formats of model/block_format.h: Q8_0, Q4_0, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K
// Blocks run along a row (dims[0]), so a quantised row's length is a multiple of the block's.
#include <cstdint>
#include <optional>
#include <string>

#include "model/block_format.h"

namespace kvlab {

struct GgmlType {
  uint32_t id = 0;
  const char* name = "";
  int block_elements = 1;             // weights per block
  int block_bytes = 0;                // bytes per block
  std::optional<BlockFormat> blocks;  // set for a block format, whose blocks the model keeps
};

// Bytes `n_elements` (whole blocks) of `type` take in a file.
inline uint64_t file_bytes(const GgmlType& type, uint64_t n_elements) {
  return n_elements / static_cast<uint64_t>(type.block_elements) * static_cast<uint64_t>(type.block_bytes);
}

// The supported type with this id, or nullptr.
const GgmlType* supported_ggml_type(uint32_t id);
// The type's name as ggml calls it ("Q4_K"), or "unknown" for an id ggml does not define.
std::string ggml_type_name(uint32_t id);
// "F32, F16, BF16, Q8_0, Q4_0, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K"
std::string supported_ggml_type_names();

// Where a tensor of `n_elements` of `type` at `bytes` first holds a NaN or an infinity: the element's
// index for F32, F16 and BF16, the block's for a block format (whose float16 scales are the only
// numbers that can be: its weights are small integers times them); -1 if nowhere.
int64_t first_non_finite(const GgmlType& type, const uint8_t* bytes, uint64_t n_elements);

// Writes the float32 values of `n_elements` (a multiple of type.block_elements) from `bytes`.
void dequantize(const GgmlType& type, const uint8_t* bytes, uint64_t n_elements, float* out);

}  // namespace kvlab
