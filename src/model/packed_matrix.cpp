#include "model/packed_matrix.h"

#include "model/kernels.h"

namespace kvlab {

PackedMatrix pack(const float* row_major, int n_out, int n_in, WeightFormat format) {
  PackedMatrix m;
  m.n_out = n_out;
  m.n_in = n_in;
  m.format = format;
  m.stripes = kernels::one_row_panels();
  const auto w = [&](int o, int i) { return row_major[static_cast<size_t>(o) * n_in + i]; };
  if (format == WeightFormat::f32) {
    m.panels.assign(static_cast<size_t>(m.n_panels()) * n_in * kPanelWidth, 0.0f);
    for (int o = 0; o < n_out; ++o)
      for (int i = 0; i < n_in; ++i)
        m.panels[(m.panel_slot(o / kPanelWidth) * n_in + i) * kPanelWidth + o % kPanelWidth] = w(o, i);
    return m;
  }
  m.pairs.assign(static_cast<size_t>(m.n_panels()) * m.n_pairs() * kPanelWidth, 0u);
  for (int o = 0; o < n_out; ++o)
    for (int i = 0; i < n_in; ++i)
      m.pairs[(m.panel_slot(o / kPanelWidth) * m.n_pairs() + i / 2) * kPanelWidth + o % kPanelWidth] |=
          static_cast<uint32_t>(to_bf16(w(o, i))) << (i % 2 == 0 ? 0 : 16);
  return m;
}

FloatBuffer unpack(const PackedMatrix& m) {
  FloatBuffer row_major(static_cast<size_t>(m.n_out) * m.n_in);
  for (int o = 0; o < m.n_out; ++o)
    for (int i = 0; i < m.n_in; ++i) row_major[static_cast<size_t>(o) * m.n_in + i] = m.at(o, i);
  return row_major;
}

}  // namespace kvlab
