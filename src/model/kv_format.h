#pragma once
// How the KV cache stores keys and values: float32, or one of the 16-bit formats of float16.h
// (bfloat16, or IEEE half: 3 more mantissa bits, but nothing below 2^-24 or above 65504), which halve
// the bytes per token, so the same memory holds twice the tokens, as real servers' caches do. A key or
// value is rounded once, to nearest even, when its token's forward pass writes it; attention widens it
// back to float32 (kernels.h) and computes in float32.
#include <string>
#include <vector>

namespace kvlab {

enum class KvFormat { f32, bf16, f16 };

// "f32", "bf16", "f16"
const char* kv_format_name(KvFormat format);
const std::vector<std::string>& kv_format_names();
// Throws InputError naming `field` and the allowed names unless `name` is one of them.
KvFormat parse_kv_format(const std::string& name, const std::string& field);
int bytes_per_kv_number(KvFormat format);  // 4, 2, 2

}  // namespace kvlab
