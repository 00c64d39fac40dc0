#pragma once
// How weights and the KV cache are stored, and which tensor-core rate a matrix product runs at.
//   bf16  2 bytes a weight; products at the BF16 rate.
//   fp8   1 byte a weight, activations in FP8 too (W8A8) on GPUs with FP8 tensor cores, at the FP8 rate;
//         on GPUs without them (A100) weight-only, widened to BF16 in the kernel, at the BF16 rate.
//   int4  4 bits a weight plus one BF16 scale per group of 128 (AWQ/GPTQ style), weight-only: products
//         at the BF16 rate (W4A16, as the Marlin and AWQ kernels run it).
// Embeddings and the LM head stay in BF16 in every format, as quantised checkpoints keep them.
// Attention runs at the BF16 rate whatever the KV format (an FP8 cache is widened as it is read).
#include <string>

#include "roofline/gpu_presets.h"

namespace kvlab::roofline {

enum class WeightFormat { bf16, fp8, int4 };
enum class KvFormat { bf16, fp8 };

constexpr WeightFormat kWeightFormats[] = {WeightFormat::bf16, WeightFormat::fp8, WeightFormat::int4};
constexpr KvFormat kKvFormats[] = {KvFormat::bf16, KvFormat::fp8};

constexpr int kInt4GroupSize = 128;

WeightFormat parse_weight_format(const std::string& text, const std::string& field);
KvFormat parse_kv_format(const std::string& text, const std::string& field);
const char* format_name(WeightFormat format);
const char* format_name(KvFormat format);

double bytes_per_weight(WeightFormat format);  // 2, 1, 0.5 + 2/128
double bytes_per_kv_value(KvFormat format);    // 2, 1
constexpr double kActivationBytes = 2;         // activations and embeddings in BF16

// Dense tensor rate of this GPU for the matrix products of weights stored in `format`.
double matmul_flops_per_s(const GpuSpec& gpu, WeightFormat format);

}  // namespace kvlab::roofline
