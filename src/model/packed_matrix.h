#pragma once
// A weight matrix W [n_out, n_in] stored in the order the matmul kernel reads it: panels of
// kPanelWidth consecutive outputs, each panel [n_in, kPanelWidth] with the panel's outputs side by
// side for every input index. The kernel then loads one vector of weights per input index and
// multiplies it by each row's input value (broadcast), so every weight loaded serves all rows of a
// block and every output keeps one running sum in input order (no horizontal reductions).
//
// The panels are stored in stripes (measured: docs/benchmarks.md, "The one-row kernel"). The one-row
// matmul reads `stripes` panels side by side (as many as it keeps running sums for); each of those
// reads is one memory stream, and a stream that stops after one panel (12 KB at n_in 384) and starts
// anew elsewhere keeps the hardware prefetcher from running ahead. So whole groups of `stripes` panels
// are stored stripe by stripe: panel p of a group at slot (p % stripes) x groups + p / stripes, which
// puts panel p + stripes right after panel p, and the one-row matmul's streams run the length of the
// matrix. Panels past the last whole group follow in order.
//
// In bfloat16 (weight_format.h) a panel holds pairs of inputs instead: [ceil(n_in / 2), kPanelWidth]
// 32-bit words, word (j, o) = bf16(W[o, 2j]) in its low half and bf16(W[o, 2j + 1]) in its high half
// (0 past n_in). One 32-bit vector load then gives two inputs' weights for the same outputs: a shift
// left by 16 widens the first to float32 and a mask of the low half the second.
#include <cstddef>
#include <cstdint>
#include <vector>

#include <xsimd/memory/xsimd_aligned_allocator.hpp>

#include "model/buffer.h"
#include "model/weight_format.h"

namespace kvlab {

constexpr int kPanelWidth = 8;

using Bf16PairBuffer = std::vector<uint32_t, xsimd::aligned_allocator<uint32_t, 64>>;

struct PackedMatrix {
  int n_out = 0;
  int n_in = 0;
  WeightFormat format = WeightFormat::f32;
  int stripes = 1;        // panels the one-row matmul reads side by side (kernels::one_row_panels())
  FloatBuffer panels;    // f32:  [ceil(n_out / 8) slots, n_in, 8]; outputs past n_out in the last panel are zero
  Bf16PairBuffer pairs;  // bf16: [ceil(n_out / 8) slots, ceil(n_in / 2), 8], as above; empty in f32

  int n_panels() const { return (n_out + kPanelWidth - 1) / kPanelWidth; }
  int n_pairs() const { return (n_in + 1) / 2; }
  // Where panel p is stored, in panels from the start (see the stripes above).
  size_t panel_slot(int p) const {
    const int groups = n_panels() / stripes;
    if (p >= groups * stripes) return static_cast<size_t>(p);
    return static_cast<size_t>(p % stripes) * groups + p / stripes;
  }
  // W[o, i], widened to float32
  float at(int o, int i) const {
    const size_t panel = panel_slot(o / kPanelWidth);
    if (format == WeightFormat::f32) return panels[(panel * n_in + i) * kPanelWidth + o % kPanelWidth];
    const uint32_t pair = pairs[(panel * n_pairs() + i / 2) * kPanelWidth + o % kPanelWidth];
    return from_bf16(static_cast<uint16_t>(i % 2 == 0 ? pair : pair >> 16));
  }
  // Bytes the weights take (padding of the last panel included).
  size_t bytes() const { return panels.size() * sizeof(float) + pairs.size() * sizeof(uint32_t); }
};

// Packs a row-major [n_out, n_in] matrix of float32 values, rounding them to `format`, in stripes of
// kernels::one_row_panels() (this build's one-row matmul).
PackedMatrix pack(const float* row_major, int n_out, int n_in, WeightFormat format = WeightFormat::f32);

// The row-major [n_out, n_in] matrix back, in float32 (for exporting weights to other implementations).
FloatBuffer unpack(const PackedMatrix& m);

}  // namespace kvlab
