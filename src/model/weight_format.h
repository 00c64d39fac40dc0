#pragma once
// How the model's weight matrices are stored: float32, or bfloat16 (the top 16 bits of a float32:
// same exponent range, 8 bits of mantissa), which halves the bytes a decode step streams. Weights are
// drawn in float32 and rounded to bfloat16 once, to nearest even, with integer operations only, so
// every build holds the same bits (float16.h). The kernels widen bfloat16 back to float32 (a 16-bit
// shift) and compute in float32. Embeddings and norms stay float32 in both formats; the KV cache has a
// format of its own (kv_format.h).
#include <string>
#include <vector>

#include "model/float16.h"  // to_bf16, from_bf16

namespace kvlab {

enum class WeightFormat { f32, bf16 };

// "f32", "bf16"
const char* weight_format_name(WeightFormat format);
const std::vector<std::string>& weight_format_names();
// Throws InputError naming `field` and the allowed names unless `name` is one of them.
WeightFormat parse_weight_format(const std::string& name, const std::string& field);
int bytes_per_weight(WeightFormat format);  // 4, 2

}  // namespace kvlab
