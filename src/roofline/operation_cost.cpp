#include "roofline/operation_cost.h"

namespace kvlab::roofline {

OperationTime operation_time(const Operation& op, const Deployment& d) {
  const double memory_s = op.bytes / (d.gpu.memory_bytes_per_s * d.bw_efficiency);
  const double compute_s = op.flops / (op.flops_per_s * d.compute_efficiency);
  return {memory_s * 1e3, compute_s * 1e3};
}

}  // namespace kvlab::roofline
