#pragma once
// The number formats weights and KV caches are stored in: one vocabulary for the model that runs here and
// for the GPU servers the roofline models. Each field accepts its own subset, defined beside it:
//   the model's weights f32, bf16 and its KV cache f32, bf16, f16 (config.h);
//   a modeled server's weights bf16, fp8, int4 and its KV cache bf16, fp8 (roofline/deployment.h).
//   f32   IEEE single precision
//   bf16  bfloat16: the top 16 bits of a float32 (same exponent range, 8 bits of mantissa; float16.h)
//   f16   IEEE half: 3 more mantissa bits than bf16, but nothing below 2^-24 or above 65504 (float16.h)
//   fp8   8-bit floats, as GPUs with FP8 tensor cores store them
//   int4  4-bit integers with a scale per group of weights (the group is the quantiser's, not the format's)
#include <string>
#include <vector>

namespace kvlab {

enum class NumberFormat { f32, bf16, f16, fp8, int4 };

const char* number_format_name(NumberFormat format);  // "f32", "bf16", "f16", "fp8", "int4"
int bits_per_number(NumberFormat format);             // 32, 16, 16, 8, 4

std::vector<std::string> number_format_names(const std::vector<NumberFormat>& formats);

// How an error message lists the allowed names: "one of f32, bf16" or "bf16, fp8 or int4".
enum class ListWording { one_of, or_before_last };

// The format called `name` if `allowed` holds it; otherwise an InputError naming `field` and the allowed
// names ("options.kv must be one of f32, bf16, f16 (got \"fp8\")").
NumberFormat parse_number_format(const std::string& name, const std::vector<NumberFormat>& allowed,
                                 const std::string& field, ListWording wording = ListWording::one_of);

}  // namespace kvlab
