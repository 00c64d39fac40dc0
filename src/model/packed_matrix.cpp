#include "model/packed_matrix.h"

namespace kvlab {

PackedMatrix pack(const float* row_major, int n_out, int n_in) {
  PackedMatrix m;
  m.n_out = n_out;
  m.n_in = n_in;
  m.panels.assign(static_cast<size_t>(m.n_panels()) * n_in * kPanelWidth, 0.0f);
  for (int o = 0; o < n_out; ++o)
    for (int i = 0; i < n_in; ++i)
      m.panels[(static_cast<size_t>(o / kPanelWidth) * n_in + i) * kPanelWidth + o % kPanelWidth] =
          row_major[static_cast<size_t>(o) * n_in + i];
  return m;
}

FloatBuffer unpack(const PackedMatrix& m) {
  FloatBuffer row_major(static_cast<size_t>(m.n_out) * m.n_in);
  for (int o = 0; o < m.n_out; ++o)
    for (int i = 0; i < m.n_in; ++i) row_major[static_cast<size_t>(o) * m.n_in + i] = m.at(o, i);
  return row_major;
}

}  // namespace kvlab
