#pragma once
// Reads a llama2.c checkpoint (the format of karpathy's run.c, "version 0"): a header of seven int32
//   dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size, seq_len
// (a negative vocab_size: the classifier is a tensor of its own, not the token embedding), then float32
// tensors, each layer's weights of one kind together:
//   token_embedding [vocab, dim], rms_att [n_layers, dim], wq [n_layers, dim, dim],
//   wk, wv [n_layers, kv_dim, dim], wo [n_layers, dim, dim], rms_ffn [n_layers, dim],
//   w1 [n_layers, hidden, dim], w2 [n_layers, dim, hidden], w3 [n_layers, hidden, dim], rms_final [dim],
//   freq_cis_real, freq_cis_imag [seq_len, head_dim / 2] (unused: the model computes its own), and
//   wcls [vocab, dim] if the classifier is not shared.
// The file must hold exactly that many bytes. Its wq and wk are for adjacent-pair rotary (rotary_order.h).
#include <cstddef>
#include <cstdint>

#include "model/weight_tensors.h"

namespace kvlab {

// The weights, config.weights and config.kv left f32. Throws InputError naming the field
// ("checkpoint.dim", "checkpoint.size") for a file that is not a usable checkpoint.
WeightTensors read_llama2c_checkpoint(const uint8_t* data, size_t size);

}  // namespace kvlab
