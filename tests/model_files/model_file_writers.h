#pragma once
// Model files written by the tests themselves: a tiny Llama with random weights and a tiny
// SentencePiece-like vocabulary, as a llama2.c checkpoint and tokenizer file and as a GGUF file, from
// the same numbers. The weights are multiples of 1/512 below 1/4 in magnitude, exact in F16 and BF16, so
// those files hold the same model; a file of a block format holds what model/block_quantizer.h makes of them,
// and dequantized_weights (gguf_dequantized.h) reads back exactly what.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/config.h"
#include "model/model.h"
#include "model/weight_tensors.h"
#include "model_files/model_file.h"
#include "model_files/tokenizer.h"

namespace kvlab::test {

// A model's weights in a llama2.c file's order and convention: row-major, wq and wk (and bq and bk) for
// adjacent-pair rotary.
struct FileWeights {
  ModelConfig config;
  std::vector<float> token_embedding;                         // [vocab, d_model]
  std::vector<std::vector<float>> attn_norm, wq, wk, wv, wo;  // per layer
  std::vector<std::vector<float>> bq, bk, bv;                 // per layer: Qwen2's q/k/v biases; empty: none
  std::vector<std::vector<float>> ffn_norm, w1, w2, w3;       // per layer: gate, down, up
  std::vector<float> final_norm;                              // [d_model]
  std::vector<float> w_out;                                   // [vocab, d_model]; empty: shared
};

// A model file's tensors (a reader's, wq and wk reordered for the model) put back in a file's order.
FileWeights file_weights(const WeightTensors& tensors);

// <unk>, BOS, EOS, the 256 byte tokens <0x00>..<0xFF>, then a few pieces and their merges (" a",
// "ab", " ab", ...), scored so that longer pieces merge later.
Vocabulary tiny_vocabulary();
// Random weights for `config` (its vocab is the tiny vocabulary's), drawn from Rng(seed).
FileWeights tiny_weights(const ModelConfig& config, uint64_t seed, bool shared_classifier = true);
ModelConfig tiny_config();
// A byte-level BPE vocabulary (GGUF's "gpt2"): ids 0-255 the bytes as GPT-2's byte-to-unicode map spells
// them (id b is byte b; ' ' is "Ġ"), then 256 "th", 257 "Ġc", 258 "the", 259 "at", 260 "Ġcat", 261 "Ġt",
// 262 "aa", 263 "<|endoftext|>" (control; BOS and EOS), 264 "<|im_start|>" (control), 265 "<tool>"
// (user-defined), 266 "dog" (no merge makes it), 267 "<unused0>" (unused). Merges, by rank: "t h",
// "Ġ c", "th e", "a t", "Ġc at", "Ġ t", "a a", "c a" (no token "ca"). No BOS added; pre-tokenizer gpt-2.
Vocabulary tiny_bpe_vocabulary();
// GPT-2's spelling of `byte`, written out here from its definition (openai/gpt-2 encoder.py).
std::string gpt2_byte_spelling(unsigned char byte);
// `w` with q/k/v biases drawn from Rng(seed), as the weights are (multiples of 1/512 below 1/4 in
// magnitude): enough to change what the tiny model writes.
FileWeights with_qkv_biases(FileWeights w, uint64_t seed);
// The id of `piece` in `v` (the first, if it is spelled twice), or -1 (no id) if there is none.
int piece_id(const Vocabulary& v, const std::string& piece);

// The tiny model (tiny_config() with `max_seq` positions, tiny_weights(config, seed)) written as llama2.c
// files and read back as a command reads them: what a test serves or measures as a model file.
struct TinyFileModel {
  std::unique_ptr<Model> model;
  std::unique_ptr<Tokenizer> tokenizer;
};
TinyFileModel read_tiny_llama2c_model(int max_seq, uint64_t seed);

std::string llama2c_checkpoint_bytes(const FileWeights& w);
// BOS and EOS written as llama2.c's tokenizer.py writes them ("\n<s>\n", "\n</s>\n").
std::string llama2c_tokenizer_bytes(const Vocabulary& v);

struct GgufOptions {
  // ggml type of the weight matrices and the embedding (norms are F32, as llama.cpp writes them): 0 F32,
  // 1 F16, 30 BF16, or a block format's (2 Q4_0, 6 Q5_0, 7 Q5_1, 8 Q8_0, 12 Q4_K, 13 Q5_K, 14 Q6_K; a
  // K-quant matrix whose rows are not whole 256-weight blocks is written in its fallback instead, as
  // llama.cpp's quantizer does: block_format_for_rows)
  uint32_t matrix_type = 0;
  std::string architecture = "llama";
  std::string tokenizer_model = "llama";  // "gpt2": the BPE fields of the vocabulary, its pieces as they are
  float rope_freq_base = 10000.0f;
  float rms_epsilon = 1e-5f;
  std::string pre = "gpt-2";  // tokenizer.ggml.pre of a "gpt2" tokenizer; empty: none written
  // attn_q and attn_k (and their biases) written for halves rotary, as llama.cpp's Qwen2 files hold them;
  // for adjacent pairs otherwise, as its Llama files.
  bool halves_rotary = false;
  bool q4_k_m = false;  // every matrix in llama.cpp's Q4_K_M mix, not matrix_type (q4_k_m_format, block_quantizer.h)
};
// A file shaped as Qwen2's: architecture "qwen2", RMSNorm epsilon 1e-6, rope base 1e6, q and k for halves
// (the biases are the weights': with_qkv_biases).
GgufOptions qwen2_options();
// A file shaped as SmolLM2's: architecture "llama", rope base 1e5 (its classifier shared, as
// tiny_weights' is by default). Its tokenizer stays SentencePiece's here.
GgufOptions smollm2_options();
// A GGUF v3 file, spaces in pieces written as U+2581 as SentencePiece does (for tokenizer model "llama");
// biases written where `w` has them.
std::string gguf_bytes(const FileWeights& w, const Vocabulary& v, const GgufOptions& options = {});

// For the converters (kvlab_quantize_checkpoint, kvlab_synthetic_gguf): sets options' matrix types from a
// ggml type's name or "Q4_K_M" (llama.cpp's mix); false for any other name.
bool set_matrix_types(const std::string& name, GgufOptions& options);
// "F32, F16, ..., Q4_K_M": the names set_matrix_types takes.
std::string matrix_type_names();
// Writes `gguf` to `path` and says what it holds: "13 F32, 43 Q4_0 tensors; 9155936 bytes". Throws
// InputError naming the path if it cannot be written.
std::string write_gguf_file(const std::string& gguf, const std::string& path);

// read_gguf_llama on a copy of a file's bytes (the reader takes them over).
ModelFile read_gguf_copy(const std::string& bytes);

// A little-endian writer of the fields both formats use.
struct ByteWriter {
  std::string bytes;
  void u8(uint8_t v) { bytes.push_back(static_cast<char>(v)); }
  void u16(uint16_t v);
  void u32(uint32_t v);
  void i32(int32_t v) { u32(static_cast<uint32_t>(v)); }
  void u64(uint64_t v);
  void f32(float v);
  void text(const std::string& s) { bytes += s; }
};

}  // namespace kvlab::test
