#pragma once
// The cost of one forward pass (a step) of the modeled server, built operation by operation, in the manner
// of LLM-Viewer's roofline analysis: per layer the q/k/v projection, attention, the output projection, the
// gate and up projections and the down projection; then the LM head. Under tensor parallelism each GPU
// holds 1/N of every matrix and of the heads, and the two row-parallel products of a layer (output and
// down projections) end with an all-reduce of the activations over the GPUs' links.
//
//   step_ms = overhead + n_layers * (sum of the layer's operation times + 2 all-reduces) + LM head
//   operation time = max(bytes / (bandwidth * bw_efficiency), FLOPs / (tensor rate * compute_efficiency))
//   all-reduce = 2 (N - 1) / N * activation bytes / link bandwidth + latency (ring), 0 when N = 1
//
// Elementwise work (norms, rotary embedding, SiLU, residual adds) is left out: it moves a few activation
// rows per layer, far below the weights' bytes.
#include <vector>

#include "roofline/deployment.h"

namespace kvlab::roofline {

struct Operation {
  const char* name;    // "qkv", "attention", ...
  double bytes;        // moved to or from device memory, on one GPU
  double flops;        // on one GPU
  double flops_per_s;  // the peak rate it runs at (matmul rate of the weight format, or BF16)
};

struct OperationTime {
  double memory_ms;
  double compute_ms;
  double ms() const { return memory_ms > compute_ms ? memory_ms : compute_ms; }
  bool memory_bound() const { return memory_ms >= compute_ms; }
};

// The larger of the time to move its bytes at the GPU's bandwidth and the time to do its FLOPs at its tensor
// rate, each scaled by its efficiency factor.
OperationTime operation_time(const Operation& op, const Deployment& d);

// A step over `sequences` sequences, each computing its last `new_tokens` positions, which end at
// position `context` (so each attends over up to `context` positions). A decode step of r rows at
// context c is {r, 1, c}; the prefill of one L-token prompt is {1, L, L}.
struct StepShape {
  int sequences;
  int new_tokens;
  int context;
};

struct StepCost {
  double ms;             // the whole step
  double layer_ms;       // one layer's operations, without its all-reduces
  double all_reduce_ms;  // one layer's two all-reduces
  double lm_head_ms;
  int memory_bound_operations;  // of the layer's operations and the LM head
  int operations;
};

// The operations of one layer on one GPU.
std::vector<Operation> layer_operations(const Deployment& d, const StepShape& shape);
// The LM head on one GPU: logits for the last position of each sequence.
Operation lm_head_operation(const Deployment& d, const StepShape& shape);
// One all-reduce of `tokens` activation rows over the N GPUs, in ms.
double all_reduce_ms(const Deployment& d, double tokens);

StepCost step_cost(const Deployment& d, const StepShape& shape);

double decode_step_ms(const Deployment& d, int rows, int context);
double prefill_ms(const Deployment& d, int tokens);

}  // namespace kvlab::roofline
