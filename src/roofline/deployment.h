#pragma once
// One modeled server: a model in a weight and a KV number format on N GPUs of one kind (tensor
// parallelism), with the factors that turn the GPU's peak figures into what kernels reach. And its memory
// plan: weights, the reserve, and what is left for the KV cache.
//
// The weight formats a server may use (model/number_format.h), and the tensor-core rate its matrix
// products run at:
//   bf16  2 bytes a weight; products at the BF16 rate.
//   fp8   1 byte a weight, activations in FP8 too (W8A8) on GPUs with FP8 tensor cores, at the FP8 rate;
//         on GPUs without them (A100) weight-only, widened to BF16 in the kernel, at the BF16 rate.
//   int4  4 bits a weight plus one BF16 scale per group of 128 (AWQ/GPTQ style), weight-only: products
//         at the BF16 rate (W4A16, as the Marlin and AWQ kernels run it).
// Embeddings and the LM head stay in BF16 in every format, as quantised checkpoints keep them. The KV
// cache is bf16 or fp8; attention runs at the BF16 rate whatever its format (an FP8 cache is widened as
// it is read).
#include <vector>

#include "model/number_format.h"
#include "roofline/presets.h"

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
constexpr int kMaxTensorParallel = 8;  // one HGX/DGX node
constexpr int kInt4GroupSize = 128;
constexpr double kActivationBytes = 2;  // activations and embeddings in BF16

struct Deployment {
  GpuSpec gpu;
  ModelShape model;
  NumberFormat weights = NumberFormat::bf16;
  NumberFormat kv = NumberFormat::bf16;
  int tp = 1;  // GPUs sharing every layer
  double bw_efficiency = kDefaultBandwidthEfficiency;
  double compute_efficiency = kDefaultComputeEfficiency;
  double step_overhead_ms = kDefaultStepOverheadMs;
};

const std::vector<NumberFormat>& server_weight_formats();  // bf16, fp8, int4
const std::vector<NumberFormat>& server_kv_formats();      // bf16, fp8

double bytes_per_weight(NumberFormat format);    // 2, 1, 0.5 + 2/128 (int4's group scales)
double bytes_per_kv_value(NumberFormat format);  // 2, 1

// Dense tensor rate of this GPU for the matrix products of weights stored in `format`.
double matmul_flops_per_s(const GpuSpec& gpu, NumberFormat format);

// Bytes of all weights: layer matrices in the weight format, embeddings and LM head in BF16.
double weight_bytes(const Deployment& d);
// Keys and values of one token over all layers (and all GPUs).
double kv_bytes_per_token(const Deployment& d);
// Device memory of all N GPUs less the reserve.
double usable_memory_bytes(const Deployment& d);
// KV cache tokens that fit beside the weights: floor((usable - weights) / kv bytes a token); may be <= 0.
long long kv_budget_tokens(const Deployment& d);

}  // namespace kvlab::roofline
