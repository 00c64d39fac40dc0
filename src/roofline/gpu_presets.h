#pragma once
// The GPUs the roofline model knows: each one's published memory size, memory bandwidth, dense tensor-core
// throughput per number format and GPU-to-GPU link bandwidth. Sources for every figure: docs/gpu.md.
#include <string>
#include <vector>

namespace kvlab::roofline {

struct GpuSpec {
  std::string name;         // "h100-sxm": what --gpu takes
  std::string description;  // "NVIDIA H100 80GB SXM5"
  double memory_bytes;      // device memory
  double memory_bytes_per_s;
  double bf16_dense_flops_per_s;  // tensor cores, no sparsity, FP32 accumulate
  double fp8_dense_flops_per_s;   // 0 when the GPU has no FP8 tensor cores (A100)
  double link_bytes_per_s;        // one direction of one GPU's link to the others (NVLink, else PCIe)
  std::string link;               // "NVLink 4" or "PCIe 4.0 x16"
};

const std::vector<GpuSpec>& gpu_presets();

// The preset called `name`; an InputError naming `field` and the known names otherwise.
const GpuSpec& find_gpu(const std::string& name, const std::string& field);

}  // namespace kvlab::roofline
