#include "model_files/rotary_order.h"

namespace kvlab {

void adjacent_pairs_to_halves(MatrixTensor& m, int n_heads, int head_dim, int n_in) {
  if (m.format) {  // in place: the blocks lie in the file's bytes, which the model keeps
    const ByteBuffer rows(m.blocks.data(), m.blocks.data() + m.blocks.size);
    const ByteBuffer reordered = adjacent_pairs_to_halves(rows, n_heads, head_dim, bytes_of_weights(*m.format, n_in));
    std::copy(reordered.begin(), reordered.end(), m.blocks.data());
  } else {
    m.values = adjacent_pairs_to_halves(m.values, n_heads, head_dim, static_cast<size_t>(n_in));
  }
}

}  // namespace kvlab
