#pragma once
// Two conventions for which numbers of a head rotary embedding turns together:
//   adjacent pairs (v[2i], v[2i + 1]): llama2.c's run.c, Meta's original Llama code, and llama.cpp's
//     "NORM" rope, so llama2.c checkpoints and GGUF files of the llama architecture store wq and wk
//     for it;
//   halves (v[i], v[i + head_dim / 2]): Hugging Face's "rotate half", and kvlab's kernels::rope, whose
//     contiguous halves vectorise simply (and which the KV cache's 16-bit pairs follow, kv_cache.h).
// Pair i turns by the same angle in both. Reordering the output rows of wq and wk within each head, row
// 2i to row i and row 2i + 1 to row i + head_dim / 2, makes the model's queries and keys those of the
// file, reordered the same way within each head; attention only takes dot products of a query head with
// a key head, which the common reordering leaves as they are. So the model computes what the file means.
#include <algorithm>
#include <cstddef>
#include <utility>

#include "model/weight_tensors.h"

namespace kvlab {

// Which numbers of a head a model file's wq and wk (and q/k biases) are stored to turn together.
enum class RotaryPairs { adjacent, halves };

// Moves the rows of `rows` [n_heads * head_dim, row_size] within each head: row 2i to row i and row
// 2i + 1 to row i + head_dim / 2 (to_halves), or back. A row is row_size numbers, or bytes of quantized
// blocks: rows move whole.
template <class Buffer>
Buffer reorder_rotary_rows(const Buffer& rows, int n_heads, int head_dim, size_t row_size, bool to_halves) {
  Buffer reordered(rows.size());
  const int half = head_dim / 2;
  const auto offset = [&](int head, int r) { return (static_cast<size_t>(head) * head_dim + r) * row_size; };
  for (int h = 0; h < n_heads; ++h) {
    for (int i = 0; i < half; ++i) {
      for (const auto [pair_row, half_row] : {std::pair{2 * i, i}, std::pair{2 * i + 1, i + half}}) {
        const size_t from = offset(h, to_halves ? pair_row : half_row), to = offset(h, to_halves ? half_row : pair_row);
        std::copy_n(rows.begin() + static_cast<std::ptrdiff_t>(from), row_size,
                    reordered.begin() + static_cast<std::ptrdiff_t>(to));
      }
    }
  }
  return reordered;
}

// The rows of `rows` [n_heads * head_dim, row_size], stored for adjacent pairs, reordered for halves.
template <class Buffer>
Buffer adjacent_pairs_to_halves(const Buffer& rows, int n_heads, int head_dim, size_t row_size) {
  return reorder_rotary_rows(rows, n_heads, head_dim, row_size, true);
}
// Its inverse: the model's rows put back in a file's order, for a writer of files (the tests').
template <class Buffer>
Buffer halves_to_adjacent_pairs(const Buffer& rows, int n_heads, int head_dim, size_t row_size) {
  return reorder_rotary_rows(rows, n_heads, head_dim, row_size, false);
}

// adjacent_pairs_to_halves for a matrix [n_heads * head_dim, n_in] of either kind.
void adjacent_pairs_to_halves(MatrixTensor& m, int n_heads, int head_dim, int n_in);

}  // namespace kvlab
