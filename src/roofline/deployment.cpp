#include "roofline/deployment.h"

#include <cmath>

namespace kvlab::roofline {

const std::vector<NumberFormat>& server_weight_formats() {
  static const std::vector<NumberFormat> formats = {NumberFormat::bf16, NumberFormat::fp8, NumberFormat::int4};
  return formats;
}

const std::vector<NumberFormat>& server_kv_formats() {
  static const std::vector<NumberFormat> formats = {NumberFormat::bf16, NumberFormat::fp8};
  return formats;
}

double bytes_per_weight(NumberFormat format) {
  const double group_scale_bytes = format == NumberFormat::int4 ? kActivationBytes / kInt4GroupSize : 0;
  return bits_per_number(format) / 8.0 + group_scale_bytes;
}

double bytes_per_kv_value(NumberFormat format) { return bits_per_number(format) / 8.0; }

double matmul_flops_per_s(const GpuSpec& gpu, NumberFormat format) {
  if (format == NumberFormat::fp8 && gpu.fp8_dense_flops_per_s > 0) return gpu.fp8_dense_flops_per_s;
  return gpu.bf16_dense_flops_per_s;
}

double weight_bytes(const Deployment& d) {
  const ModelShape& m = d.model;
  return m.n_layers * m.layer_matrix_params() * bytes_per_weight(d.weights) +
         2 * m.embedding_params() * kActivationBytes;
}

double kv_bytes_per_token(const Deployment& d) {
  return 2.0 * d.model.n_layers * d.model.kv_dim() * bytes_per_kv_value(d.kv);
}

double usable_memory_bytes(const Deployment& d) { return d.gpu.memory_bytes * d.tp * (1 - kMemoryReserveFraction); }

long long kv_budget_tokens(const Deployment& d) {
  return static_cast<long long>(std::floor((usable_memory_bytes(d) - weight_bytes(d)) / kv_bytes_per_token(d)));
}

}  // namespace kvlab::roofline
