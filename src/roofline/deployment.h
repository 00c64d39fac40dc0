#pragma once
// One modeled server: a model in a weight and KV format on N GPUs of one kind (tensor parallelism), with
// the factors that turn the GPU's peak figures into what kernels reach. And its memory plan: weights, the
// reserve, and what is left for the KV cache.
#include "roofline/gpu_presets.h"
#include "roofline/model_presets.h"
#include "roofline/number_formats.h"

namespace kvlab::roofline {

// Chosen on a subset of the published measurements (docs/gpu.md, "Efficiency factors").
constexpr double kDefaultBandwidthEfficiency = 0.76;
constexpr double kDefaultComputeEfficiency = 0.61;
// A forward pass's fixed cost beyond its kernels' roofline time: launches, sampling, scheduling.
constexpr double kDefaultStepOverheadMs = 0.30;
// Latency of one small all-reduce between the GPUs (an assumption of this model, not fitted).
constexpr double kAllReduceLatencyMs = 0.008;
// Share of device memory kept out of the weights and the KV cache (activations, CUDA graphs, allocator):
// vLLM's default gpu_memory_utilization of 0.9 keeps the same.
constexpr double kMemoryReserveFraction = 0.10;

struct Deployment {
  GpuSpec gpu;
  ModelShape model;
  WeightFormat weights = WeightFormat::bf16;
  KvFormat kv = KvFormat::bf16;
  int tp = 1;  // GPUs sharing every layer
  double bw_efficiency = kDefaultBandwidthEfficiency;
  double compute_efficiency = kDefaultComputeEfficiency;
  double step_overhead_ms = kDefaultStepOverheadMs;
};

// Bytes of all weights: layer matrices in the weight format, embeddings and LM head in BF16.
double weight_bytes(const Deployment& d);
// Keys and values of one token over all layers (and all GPUs).
double kv_bytes_per_token(const Deployment& d);
// Device memory of all N GPUs less the reserve.
double usable_memory_bytes(const Deployment& d);
// KV cache tokens that fit beside the weights: floor((usable - weights) / kv bytes a token); may be <= 0.
long long kv_budget_tokens(const Deployment& d);

}  // namespace kvlab::roofline
