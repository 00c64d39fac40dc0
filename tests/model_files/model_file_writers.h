#pragma once
// Model files written by the tests themselves: a tiny Llama with random weights and a tiny
// SentencePiece-like vocabulary, as a llama2.c checkpoint and tokenizer file and as a GGUF file, from
// the same numbers. The weights are multiples of 1/512 below 1/4 in magnitude, exact in every tensor
// type the GGUF reader takes (F16, BF16, Q8_0 with scale 1/512), so every file holds the same model.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/config.h"
#include "model/model.h"
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

// <unk>, BOS, EOS, the 256 byte tokens <0x00>..<0xFF>, then a few pieces and their merges (" a",
// "ab", " ab", ...), scored so that longer pieces merge later.
Vocabulary tiny_vocabulary();
// Random weights for `config` (its vocab is the tiny vocabulary's), drawn from Rng(seed).
FileWeights tiny_weights(const ModelConfig& config, uint64_t seed, bool shared_classifier = true);
ModelConfig tiny_config();
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
  uint32_t matrix_type = 0;  // ggml type of the weight matrices and the embedding: 0 F32, 1 F16, 8 Q8_0, 30 BF16
  std::string architecture = "llama";
  std::string tokenizer_model = "llama";
  float rope_freq_base = 10000.0f;
  float rms_epsilon = 1e-5f;
  // attn_q and attn_k (and their biases) written for halves rotary, as llama.cpp's Qwen2 files hold them;
  // for adjacent pairs otherwise, as its Llama files.
  bool halves_rotary = false;
};
// A file shaped as Qwen2's: architecture "qwen2", RMSNorm epsilon 1e-6, rope base 1e6, q and k for halves
// (the biases are the weights': with_qkv_biases).
GgufOptions qwen2_options();
// A file shaped as SmolLM2's: architecture "llama", rope base 1e5 (its classifier shared, as
// tiny_weights' is by default). Its tokenizer stays SentencePiece's here.
GgufOptions smollm2_options();
// A GGUF v3 file, spaces in pieces written as U+2581 as SentencePiece does; biases written where `w`
// has them.
std::string gguf_bytes(const FileWeights& w, const Vocabulary& v, const GgufOptions& options = {});

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
