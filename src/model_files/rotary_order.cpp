#include "model_files/rotary_order.h"

#include <algorithm>
#include <cstddef>

namespace kvlab {

FloatBuffer adjacent_pairs_to_halves(const FloatBuffer& rows, int n_heads, int head_dim, int n_in) {
  FloatBuffer reordered(rows.size());
  const int half = head_dim / 2;
  const auto offset = [&](int head, int r) { return (static_cast<size_t>(head) * head_dim + r) * n_in; };
  for (int h = 0; h < n_heads; ++h) {
    for (int i = 0; i < half; ++i) {
      std::copy_n(rows.begin() + offset(h, 2 * i), n_in, reordered.begin() + offset(h, i));
      std::copy_n(rows.begin() + offset(h, 2 * i + 1), n_in, reordered.begin() + offset(h, i + half));
    }
  }
  return reordered;
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
