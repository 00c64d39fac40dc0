#pragma once
// The roofline of one operation on one GPU: the time to move its bytes at the GPU's bandwidth against the
// time to do its FLOPs at the tensor rate, each scaled by its efficiency factor; the larger one wins.
#include "roofline/deployment.h"

namespace kvlab::roofline {

struct Operation {
  const char* name;     // "qkv", "attention", ...
  double bytes;         // moved to or from device memory, on one GPU
  double flops;         // on one GPU
  double flops_per_s;   // the peak rate it runs at (matmul rate of the weight format, or BF16)
};

struct OperationTime {
  double memory_ms;
  double compute_ms;
  double ms() const { return memory_ms > compute_ms ? memory_ms : compute_ms; }
  bool memory_bound() const { return memory_ms >= compute_ms; }
};

OperationTime operation_time(const Operation& op, const Deployment& d);

}  // namespace kvlab::roofline
