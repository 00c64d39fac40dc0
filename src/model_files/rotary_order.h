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
#include "model/buffer.h"

namespace kvlab {

// Which numbers of a head a model file's wq and wk (and q/k biases) are stored to turn together.
enum class RotaryPairs { adjacent, halves };

// The rows of `rows` [n_heads * head_dim, n_in], stored for adjacent pairs, reordered for halves.
FloatBuffer adjacent_pairs_to_halves(const FloatBuffer& rows, int n_heads, int head_dim, int n_in);

}  // namespace kvlab
