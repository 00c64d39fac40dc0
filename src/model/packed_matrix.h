#pragma once
// A weight matrix W [n_out, n_in] stored in the order the matmul kernel reads it: panels of
// kPanelWidth consecutive outputs, each panel [n_in, kPanelWidth] with the panel's outputs side by
// side for every input index. The kernel then loads one vector of weights per input index and
// multiplies it by each row's input value (broadcast), so every weight loaded serves all rows of a
// block and every output keeps one running sum in input order (no horizontal reductions).
#include <cstddef>

#include "model/buffer.h"

namespace kvlab {

constexpr int kPanelWidth = 8;

struct PackedMatrix {
  int n_out = 0;
  int n_in = 0;
  FloatBuffer panels;  // [ceil(n_out / 8), n_in, 8]; outputs past n_out in the last panel are zero

  int n_panels() const { return (n_out + kPanelWidth - 1) / kPanelWidth; }
  // W[o, i]
  float at(int o, int i) const {
    return panels[(static_cast<size_t>(o / kPanelWidth) * n_in + i) * kPanelWidth + o % kPanelWidth];
  }
};

// Packs a row-major [n_out, n_in] matrix.
PackedMatrix pack(const float* row_major, int n_out, int n_in);

// The row-major [n_out, n_in] matrix back (for exporting weights to other implementations).
FloatBuffer unpack(const PackedMatrix& m);

}  // namespace kvlab
