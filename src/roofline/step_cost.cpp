#include "roofline/step_cost.h"

namespace kvlab::roofline {

namespace {

// A weight matrix of `params` parameters (all GPUs together) applied to `tokens` rows, reading
// `in_width` and writing `out_width` activations a row on each GPU.
Operation matmul(const char* name, const Deployment& d, double params, double tokens, double in_width,
                 double out_width) {
  const double params_per_gpu = params / d.tp;
  return {name, params_per_gpu * bytes_per_weight(d.weights) + tokens * (in_width + out_width) * kActivationBytes,
          2 * tokens * params_per_gpu, matmul_flops_per_s(d.gpu, d.weights)};
}

}  // namespace

OperationTime operation_time(const Operation& op, const Deployment& d) {
  const double memory_s = op.bytes / (d.gpu.memory_bytes_per_s * d.bw_efficiency);
  const double compute_s = op.flops / (op.flops_per_s * d.compute_efficiency);
  return {memory_s * 1e3, compute_s * 1e3};
}

std::vector<Operation> layer_operations(const Deployment& d, const StepShape& shape) {
  const ModelShape& m = d.model;
  const double n = d.tp, dm = m.d_model, kv = m.kv_dim(), ff = m.d_ff;
  const double tokens = double(shape.sequences) * shape.new_tokens;

  // Attention over the cache: each sequence reads the keys and values of its `context` positions and writes
  // those of its new ones; its new position i (of context - new_tokens + 1 .. context) attends over i.
  const double kv_value_bytes = bytes_per_kv_value(d.kv);
  const double c = shape.context, t = shape.new_tokens;
  const double attended_pairs = shape.sequences * (t * c - t * (t - 1) / 2);
  Operation attention{"attention",
                      (shape.sequences * c * 2 * kv * kv_value_bytes + tokens * 2 * kv * kv_value_bytes +
                       tokens * 2 * dm * kActivationBytes) /
                          n,
                      4 * dm * attended_pairs / n,  // q.k and p.v over every head
                      d.gpu.bf16_dense_flops_per_s};

  return {matmul("qkv", d, dm * (dm + 2 * kv), tokens, dm, (dm + 2 * kv) / n),  // column-parallel
          attention, matmul("o", d, dm * dm, tokens, dm / n, dm),               // row-parallel, then all-reduce
          matmul("gate_up", d, 2 * dm * ff, tokens, dm, 2 * ff / n),            // column-parallel
          matmul("down", d, ff * dm, tokens, ff / n, dm)};                      // row-parallel, then all-reduce
}

Operation lm_head_operation(const Deployment& d, const StepShape& shape) {
  const ModelShape& m = d.model;
  const double params_per_gpu = m.embedding_params() / d.tp;
  const double rows = shape.sequences;
  return {"lm_head", params_per_gpu * kActivationBytes + rows * (m.d_model + double(m.vocab) / d.tp) * kActivationBytes,
          2 * rows * params_per_gpu, d.gpu.bf16_dense_flops_per_s};
}

double all_reduce_ms(const Deployment& d, double tokens) {
  if (d.tp == 1) return 0;
  const double bytes = tokens * d.model.d_model * kActivationBytes;
  return 2.0 * (d.tp - 1) / d.tp * bytes / d.gpu.link_bytes_per_s * 1e3 + kAllReduceLatencyMs;
}

StepCost step_cost(const Deployment& d, const StepShape& shape) {
  StepCost cost{};
  for (const Operation& op : layer_operations(d, shape)) {
    OperationTime time = operation_time(op, d);
    cost.layer_ms += time.ms();
    cost.memory_bound_operations += time.memory_bound() ? 1 : 0;
    ++cost.operations;
  }
  OperationTime head = operation_time(lm_head_operation(d, shape), d);
  cost.lm_head_ms = head.ms();
  cost.memory_bound_operations += head.memory_bound() ? 1 : 0;
  ++cost.operations;
  cost.all_reduce_ms = 2 * all_reduce_ms(d, double(shape.sequences) * shape.new_tokens);
  cost.ms = d.step_overhead_ms + d.model.n_layers * (cost.layer_ms + cost.all_reduce_ms) + cost.lm_head_ms;
  return cost;
}

double decode_step_ms(const Deployment& d, int rows, int context) { return step_cost(d, {rows, 1, context}).ms; }

double prefill_ms(const Deployment& d, int tokens) { return step_cost(d, {1, tokens, tokens}).ms; }

}  // namespace kvlab::roofline
