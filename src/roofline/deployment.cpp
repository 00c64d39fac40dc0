#include "roofline/deployment.h"

#include <cmath>

namespace kvlab::roofline {

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
