#include "model_files/rotary_order.h"

namespace kvlab {

void adjacent_pairs_to_halves(MatrixTensor& m, int n_heads, int head_dim, int n_in) {
  if (m.format) {
    const BlockFormatTraits& t = traits(*m.format);
    const size_t row_bytes = static_cast<size_t>(n_in / t.elements) * static_cast<size_t>(t.bytes);
    m.blocks = adjacent_pairs_to_halves(m.blocks, n_heads, head_dim, row_bytes);
  } else {
    m.values = adjacent_pairs_to_halves(m.values, n_heads, head_dim, static_cast<size_t>(n_in));
  }
}

}  // namespace kvlab
