#include "model_files/rotary_order.h"

namespace kvlab {

void adjacent_pairs_to_halves(MatrixTensor& m, int n_heads, int head_dim, int n_in) {
  if (m.format) {
    m.blocks = adjacent_pairs_to_halves(m.blocks, n_heads, head_dim, bytes_of_weights(*m.format, n_in));
  } else {
    m.values = adjacent_pairs_to_halves(m.values, n_heads, head_dim, static_cast<size_t>(n_in));
  }
}

FloatBuffer halves_to_adjacent_pairs(const FloatBuffer& rows, int n_heads, int head_dim, int n_in) {
  FloatBuffer reordered(rows.size());
  const int half = head_dim / 2;
  const auto offset = [&](int head, int r) { return (static_cast<size_t>(head) * head_dim + r) * n_in; };
  for (int h = 0; h < n_heads; ++h) {
    for (int i = 0; i < half; ++i) {
      std::copy_n(rows.begin() + offset(h, i), n_in, reordered.begin() + offset(h, 2 * i));
      std::copy_n(rows.begin() + offset(h, i + half), n_in, reordered.begin() + offset(h, 2 * i + 1));
    }
  }
  return reordered;
}

}  // namespace kvlab
