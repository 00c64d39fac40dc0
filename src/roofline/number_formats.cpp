#include "roofline/number_formats.h"

#include "common/input_error.h"

namespace kvlab::roofline {

WeightFormat parse_weight_format(const std::string& text, const std::string& field) {
  if (text == "bf16") return WeightFormat::bf16;
  if (text == "fp8") return WeightFormat::fp8;
  if (text == "int4") return WeightFormat::int4;
  throw_range({field, "\"" + text + "\"", one_of({"bf16", "fp8", "int4"})}, "must be bf16, fp8 or int4 (got \"" + text + "\")");
}

KvFormat parse_kv_format(const std::string& text, const std::string& field) {
  if (text == "bf16") return KvFormat::bf16;
  if (text == "fp8") return KvFormat::fp8;
  throw_range({field, "\"" + text + "\"", one_of({"bf16", "fp8"})}, "must be bf16 or fp8 (got \"" + text + "\")");
}

const char* format_name(WeightFormat format) {
  switch (format) {
    case WeightFormat::bf16: return "bf16";
    case WeightFormat::fp8: return "fp8";
    case WeightFormat::int4: return "int4";
  }
  return "?";
}

const char* format_name(KvFormat format) { return format == KvFormat::bf16 ? "bf16" : "fp8"; }

double bytes_per_weight(WeightFormat format) {
  switch (format) {
    case WeightFormat::bf16: return 2;
    case WeightFormat::fp8: return 1;
    case WeightFormat::int4: return 0.5 + kActivationBytes / kInt4GroupSize;
  }
  return 2;
}

double bytes_per_kv_value(KvFormat format) { return format == KvFormat::bf16 ? 2 : 1; }

double matmul_flops_per_s(const GpuSpec& gpu, WeightFormat format) {
  if (format == WeightFormat::fp8 && gpu.fp8_dense_flops_per_s > 0) return gpu.fp8_dense_flops_per_s;
  return gpu.bf16_dense_flops_per_s;
}

}  // namespace kvlab::roofline
