#pragma once
// A Llama-family model from a GGUF file (gguf_file.h), as llama.cpp writes them: general.architecture
// "llama" (Llama, SmolLM2, TinyLlama ...) or "qwen2" (Qwen2, Qwen2.5), whose differences
// gguf_architecture.h holds; its sizes from <architecture>.embedding_length, block_count,
// feed_forward_length, attention.head_count and head_count_kv, context_length (at most 8192 positions
// are used), rope.freq_base, attention.layer_norm_rms_epsilon; the tensors
//   token_embd.weight [vocab, d_model], output_norm.weight [d_model], output.weight [vocab, d_model]
//   (absent: the classifier is the token embedding), and for each layer N blk.N.attn_norm, attn_q,
//   attn_k, attn_v, attn_output, ffn_norm, ffn_gate, ffn_up, ffn_down .weight, and for qwen2
//   blk.N.attn_q.bias [d_model], attn_k.bias and attn_v.bias [kv_dim],
// in the types of ggml_tensor_types.h: a block format's matrices kept in the file's bytes, which the
// model then holds as its own (pack_weights), other tensors widened to float32; attn_q and attn_k of a
// llama file for adjacent-pair rotary (llama.cpp's converter permutes Hugging Face's for it), reordered
// in place for the model's (rotary_order.h); a qwen2 file's already for halves. The tokenizer is
// SentencePiece's (tokenizer.ggml.model "llama": tokens and scores) or byte-level BPE ("gpt2": tokens,
// merges and the pre-tokenizer of tokenizer.ggml.pre, bpe_tokenizer.h), with bos_token_id and
// eos_token_id. Other architectures and tokenizers, rope scaling and tensors the model would not use
// are refused, naming them.
#include "model/buffer.h"
#include "model_files/model_file.h"

namespace kvlab {

// The file's bytes are moved in: its quantized matrices stay where they are in them.
ModelFile read_gguf_llama(ByteBuffer file);

}  // namespace kvlab
