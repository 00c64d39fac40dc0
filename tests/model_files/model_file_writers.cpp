#include "model_file_writers.h"

#include <cstring>
#include <fstream>
#include <functional>
#include <map>

#include "common/input_error.h"
#include "common/rng.h"
#include "model/block_format.h"
#include "model/block_quantizer.h"
#include "model/float16.h"
#include "model_files/ggml_tensor_types.h"
#include "model_files/gguf_file.h"
#include "model_files/gguf_llama.h"
#include "model_files/model_file.h"
#include "model_files/rotary_order.h"

namespace kvlab::test {

void ByteWriter::u16(uint16_t v) {
  for (int i = 0; i < 2; ++i) u8(static_cast<uint8_t>(v >> (8 * i)));
}
void ByteWriter::u32(uint32_t v) {
  for (int i = 0; i < 4; ++i) u8(static_cast<uint8_t>(v >> (8 * i)));
}
void ByteWriter::u64(uint64_t v) {
  for (int i = 0; i < 8; ++i) u8(static_cast<uint8_t>(v >> (8 * i)));
}
void ByteWriter::f32(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  u32(bits);
}

Vocabulary tiny_vocabulary() {
  Vocabulary v;
  v.pieces = {"<unk>", "<s>", "</s>"};
  v.scores = {0.0f, 0.0f, 0.0f};
  for (int b = 0; b < 256; ++b) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "<0x%02X>", b);
    v.pieces.push_back(hex);
    v.scores.push_back(0.0f);
  }
  const std::vector<std::string> pieces = {" ",  "a",  "b",   "c",  "d",  "e",   "o",    "n",     "t", "\xC3\xA9",  // é
                                           " a", "ab", " ab", "on", "ce", " on", "once", " once", "t "};
  for (size_t i = 0; i < pieces.size(); ++i) {
    v.pieces.push_back(pieces[i]);
    v.scores.push_back(-static_cast<float>(i));  // SentencePiece scores: the earlier, the better
  }
  return v;
}

std::string gpt2_byte_spelling(unsigned char byte) {
  // The 188 printable bytes stand for themselves; the others, in order, are U+0100 onwards.
  const auto printable = [](int b) { return (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE; };
  int code_point = byte;
  if (!printable(byte)) {
    code_point = 0x100;
    for (int b = 0; b < byte; ++b) code_point += printable(b) ? 0 : 1;
  }
  if (code_point < 0x80) return std::string(1, static_cast<char>(code_point));
  return {static_cast<char>(0xC0 | (code_point >> 6)), static_cast<char>(0x80 | (code_point & 0x3F))};
}

Vocabulary tiny_bpe_vocabulary() {
  Vocabulary v;
  v.model = TokenizerModel::bpe;
  for (int b = 0; b < 256; ++b) v.pieces.push_back(gpt2_byte_spelling(static_cast<unsigned char>(b)));
  v.token_types.assign(256, TokenType::normal);
  const std::vector<std::pair<std::string, TokenType>> tokens = {
      {"th", TokenType::normal},
      {"\xC4\xA0"
       "c",
       TokenType::normal},  // 256 th, 257 Ġc
      {"the", TokenType::normal},
      {"at", TokenType::normal},  // 258, 259
      {"\xC4\xA0"
       "cat",
       TokenType::normal},
      {"\xC4\xA0"
       "t",
       TokenType::normal},  // 260 Ġcat, 261 Ġt
      {"aa", TokenType::normal},
      {"<|endoftext|>", TokenType::control},  // 262, 263
      {"<|im_start|>", TokenType::control},
      {"<tool>", TokenType::user_defined},  // 264, 265
      {"dog", TokenType::normal},
      {"<unused0>", TokenType::unused},  // 266, 267
  };
  for (const auto& [text, type] : tokens) {
    v.pieces.push_back(text);
    v.token_types.push_back(type);
  }
  v.merges = {"t h",
              "\xC4\xA0 c",
              "th e",
              "a t",
              "\xC4\xA0"
              "c at",
              "\xC4\xA0 t",
              "a a",
              "c a"};
  v.bos = v.eos = 263;
  v.add_bos = false;
  return v;
}

int piece_id(const Vocabulary& v, const std::string& piece) {
  for (size_t i = 0; i < v.pieces.size(); ++i)
    if (v.pieces[i] == piece) return static_cast<int>(i);
  return -1;
}

ModelConfig tiny_config() {
  ModelConfig c;
  c.vocab = static_cast<int>(tiny_vocabulary().pieces.size());
  c.d_model = 32;
  c.d_ff = 64;
  c.n_layers = 2;
  c.n_heads = 4;
  c.n_kv_heads = 2;
  c.max_seq = 64;
  return c;
}

FileWeights tiny_weights(const ModelConfig& c, uint64_t seed, bool shared_classifier) {
  Rng rng(seed);
  auto draw = [&](size_t n) {
    std::vector<float> values(n);
    for (float& x : values) x = static_cast<float>(rng.uniform_int(-127, 127)) / 512.0f;
    return values;
  };
  auto norm = [&](size_t n) {  // near one: F32 in the GGUF file, as llama.cpp writes norms
    std::vector<float> values = draw(n);
    for (float& x : values) x += 1.0f;
    return values;
  };
  const size_t d = c.d_model, kv = c.kv_dim(), ff = c.d_ff;
  FileWeights w;
  w.config = c;
  w.token_embedding = draw(static_cast<size_t>(c.vocab) * d);
  for (int l = 0; l < c.n_layers; ++l) {
    w.attn_norm.push_back(norm(d));
    w.wq.push_back(draw(d * d));
    w.wk.push_back(draw(kv * d));
    w.wv.push_back(draw(kv * d));
    w.wo.push_back(draw(d * d));
    w.ffn_norm.push_back(norm(d));
    w.w1.push_back(draw(ff * d));
    w.w2.push_back(draw(d * ff));
    w.w3.push_back(draw(ff * d));
  }
  w.final_norm = norm(d);
  if (!shared_classifier) w.w_out = draw(static_cast<size_t>(c.vocab) * d);
  return w;
}

FileWeights file_weights(const WeightTensors& t) {
  const ModelConfig& c = t.config;
  const auto plain = [](const FloatBuffer& values) { return std::vector<float>(values.begin(), values.end()); };
  const auto matrix = [&plain](const MatrixTensor& m) { return plain(widened(m)); };
  FileWeights w;
  w.config = c;
  w.token_embedding = matrix(t.token_embedding);
  for (const LayerTensors& layer : t.layers) {
    w.attn_norm.push_back(plain(layer.attn_norm));
    w.wq.push_back(halves_to_adjacent_pairs(matrix(layer.wq), c.n_heads, c.head_dim(), c.d_model));
    w.wk.push_back(halves_to_adjacent_pairs(matrix(layer.wk), c.n_kv_heads, c.head_dim(), c.d_model));
    w.wv.push_back(matrix(layer.wv));
    w.wo.push_back(matrix(layer.wo));
    w.ffn_norm.push_back(plain(layer.ffn_norm));
    w.w1.push_back(matrix(layer.w_gate));
    w.w2.push_back(matrix(layer.w_down));
    w.w3.push_back(matrix(layer.w_up));
  }
  w.final_norm = plain(t.final_norm);
  w.w_out = matrix(t.w_out);
  return w;
}

FileWeights with_qkv_biases(FileWeights w, uint64_t seed) {
  Rng rng(seed);
  const auto draw = [&](int n) {
    std::vector<float> values(static_cast<size_t>(n));
    for (float& x : values) x = static_cast<float>(rng.uniform_int(-127, 127)) / 512.0f;
    return values;
  };
  const ModelConfig& c = w.config;
  for (int l = 0; l < c.n_layers; ++l) {
    w.bq.push_back(draw(c.d_model));
    w.bk.push_back(draw(c.kv_dim()));
    w.bv.push_back(draw(c.kv_dim()));
  }
  return w;
}

GgufOptions qwen2_options() {
  GgufOptions options;
  options.architecture = "qwen2";
  options.rms_epsilon = 1e-6f;
  options.rope_freq_base = 1e6f;
  options.halves_rotary = true;
  return options;
}

GgufOptions smollm2_options() {
  GgufOptions options;
  options.rope_freq_base = 1e5f;
  return options;
}

std::string llama2c_checkpoint_bytes(const FileWeights& w) {
  const ModelConfig& c = w.config;
  ByteWriter out;
  for (int v :
       {c.d_model, c.d_ff, c.n_layers, c.n_heads, c.n_kv_heads, w.w_out.empty() ? c.vocab : -c.vocab, c.max_seq})
    out.i32(v);
  auto floats = [&](const std::vector<float>& values) {
    for (float x : values) out.f32(x);
  };
  floats(w.token_embedding);
  for (const auto* kind : {&w.attn_norm, &w.wq, &w.wk, &w.wv, &w.wo, &w.ffn_norm, &w.w1, &w.w2, &w.w3})
    for (const auto& layer : *kind) floats(layer);
  floats(w.final_norm);
  floats(std::vector<float>(static_cast<size_t>(c.max_seq) * c.head_dim(), 0.0f));  // freq_cis_real, freq_cis_imag
  floats(w.w_out);
  return out.bytes;
}

TinyFileModel read_tiny_llama2c_model(int max_seq, uint64_t seed) {
  ModelConfig config = tiny_config();
  config.max_seq = max_seq;
  const std::string checkpoint = llama2c_checkpoint_bytes(tiny_weights(config, seed));
  const std::string tokenizer = llama2c_tokenizer_bytes(tiny_vocabulary());
  const auto bytes_of = [](const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); };
  ModelFile file = read_llama2c_files(bytes_of(checkpoint), checkpoint.size(), bytes_of(tokenizer), tokenizer.size());
  TinyFileModel read;
  read.tokenizer = std::make_unique<Tokenizer>(std::move(file.vocabulary));
  read.model = std::make_unique<Model>(pack_weights(std::move(file.tensors)));
  return read;
}

std::string llama2c_tokenizer_bytes(const Vocabulary& v) {
  ByteWriter out;
  size_t longest = 0;
  for (const std::string& piece : v.pieces) longest = std::max(longest, piece.size() + 2);
  out.i32(static_cast<int32_t>(longest));
  for (size_t id = 0; id < v.pieces.size(); ++id) {
    const std::string piece = static_cast<int>(id) == v.bos   ? "\n<s>\n"
                              : static_cast<int>(id) == v.eos ? "\n</s>\n"
                                                              : v.pieces[id];
    out.f32(v.scores[id]);
    out.i32(static_cast<int32_t>(piece.size()));
    out.text(piece);
  }
  return out.bytes;
}

namespace {

enum : uint32_t { kString = 8, kArray = 9, kUint32 = 4, kInt32 = 5, kFloat32 = 6, kBool = 7 };

void gguf_string(ByteWriter& out, const std::string& s) {
  out.u64(s.size());
  out.text(s);
}

std::string sentencepiece_spaces(const std::string& piece) {
  std::string out;
  for (char ch : piece) out += ch == ' ' ? std::string("\xE2\x96\x81") : std::string(1, ch);
  return out;
}

// The ggml type a matrix of rows of `row_length` weights is written in: `type`, or, for a block format,
// the one its rows take (block_format_for_rows).
uint32_t matrix_tensor_type(uint32_t type, uint64_t row_length) {
  const GgmlType* ggml = supported_ggml_type(type);
  if (!ggml || !ggml->blocks) return type;
  return traits(block_format_for_rows(*ggml->blocks, static_cast<int64_t>(row_length))).ggml_type;
}

// The tensor's data in `type`.
std::string tensor_data(const std::vector<float>& values, uint32_t type) {
  ByteWriter out;
  if (type == 0) {  // little-endian, as every target kvlab builds for; at once, for stories15M's 15M weights
    out.bytes.resize(values.size() * 4);
    std::memcpy(&out.bytes[0], values.data(), values.size() * 4);
  }
  if (type == 1)
    for (float x : values) out.u16(to_f16(x));
  if (type == 30)
    for (float x : values) out.u16(to_bf16(x));
  const GgmlType* ggml = supported_ggml_type(type);
  if (ggml && ggml->blocks) {
    const int64_t n = static_cast<int64_t>(values.size());
    std::string blocks(bytes_of_weights(*ggml->blocks, n), '\0');
    quantize_blocks(*ggml->blocks, values.data(), n, reinterpret_cast<uint8_t*>(&blocks[0]));
    out.text(blocks);
  }
  return out.bytes;
}

}  // namespace

std::string gguf_bytes(const FileWeights& w, const Vocabulary& v, const GgufOptions& options) {
  const ModelConfig& c = w.config;
  ByteWriter meta;
  uint64_t n_kv = 0;
  auto key = [&](const std::string& name, uint32_t type) {
    gguf_string(meta, name);
    meta.u32(type);
    ++n_kv;
  };
  key("general.architecture", kString);
  gguf_string(meta, options.architecture);
  auto u32_key = [&](const std::string& name, uint32_t value) {
    key(name, kUint32);
    meta.u32(value);
  };
  const std::string a = options.architecture + ".";
  u32_key(a + "context_length", static_cast<uint32_t>(c.max_seq));
  u32_key(a + "embedding_length", static_cast<uint32_t>(c.d_model));
  u32_key(a + "block_count", static_cast<uint32_t>(c.n_layers));
  u32_key(a + "feed_forward_length", static_cast<uint32_t>(c.d_ff));
  u32_key(a + "rope.dimension_count", static_cast<uint32_t>(c.head_dim()));
  u32_key(a + "attention.head_count", static_cast<uint32_t>(c.n_heads));
  u32_key(a + "attention.head_count_kv", static_cast<uint32_t>(c.n_kv_heads));
  key(a + "attention.layer_norm_rms_epsilon", kFloat32);
  meta.f32(options.rms_epsilon);
  key(a + "rope.freq_base", kFloat32);
  meta.f32(options.rope_freq_base);
  key("tokenizer.ggml.model", kString);
  gguf_string(meta, options.tokenizer_model);
  const bool bpe = options.tokenizer_model == "gpt2";
  key("tokenizer.ggml.tokens", kArray);
  meta.u32(kString);
  meta.u64(v.pieces.size());
  for (const std::string& piece : v.pieces) gguf_string(meta, bpe ? piece : sentencepiece_spaces(piece));
  if (bpe) {
    if (!options.pre.empty()) {
      key("tokenizer.ggml.pre", kString);
      gguf_string(meta, options.pre);
    }
    key("tokenizer.ggml.merges", kArray);
    meta.u32(kString);
    meta.u64(v.merges.size());
    for (const std::string& merge : v.merges) gguf_string(meta, merge);
    key("tokenizer.ggml.token_type", kArray);
    meta.u32(kInt32);
    meta.u64(v.token_types.size());
    for (TokenType type : v.token_types) meta.i32(static_cast<int32_t>(type));
    key("tokenizer.ggml.add_bos_token", kBool);
    meta.u8(v.add_bos ? 1 : 0);
  } else {
    key("tokenizer.ggml.scores", kArray);
    meta.u32(kFloat32);
    meta.u64(v.scores.size());
    for (float s : v.scores) meta.f32(s);
  }
  u32_key("tokenizer.ggml.bos_token_id", static_cast<uint32_t>(v.bos));
  u32_key("tokenizer.ggml.eos_token_id", static_cast<uint32_t>(v.eos));

  struct Tensor {
    std::string name;
    std::vector<uint64_t> dims;
    uint32_t type;
    std::string data;
  };
  std::vector<Tensor> tensors;
  const uint64_t d = c.d_model, kv = c.kv_dim(), ff = c.d_ff, vocab = c.vocab;
  auto matrix = [&](const std::string& name, const std::vector<float>& values, uint64_t n_in, uint64_t n_out,
                    MatrixRole role, int layer) {
    const uint32_t type = options.q4_k_m
                              ? traits(q4_k_m_format(role, layer, c.n_layers, static_cast<int64_t>(n_in))).ggml_type
                              : matrix_tensor_type(options.matrix_type, n_in);
    tensors.push_back({name, {n_in, n_out}, type, tensor_data(values, type)});
  };
  auto vector = [&](const std::string& name, const std::vector<float>& values) {
    tensors.push_back({name, {values.size()}, 0, tensor_data(values, 0)});
  };
  // Rows of n_heads heads (a bias: rows of one number) in the file's rotary convention.
  auto rotary_rows = [&](const std::vector<float>& rows, int n_heads, uint64_t n_in) {
    if (!options.halves_rotary) return rows;
    const FloatBuffer halves =
        adjacent_pairs_to_halves(FloatBuffer(rows.begin(), rows.end()), n_heads, c.head_dim(), static_cast<int>(n_in));
    return std::vector<float>(halves.begin(), halves.end());
  };
  const bool shared_classifier = w.w_out.empty();
  matrix("token_embd.weight", w.token_embedding, d, vocab,
         shared_classifier ? MatrixRole::classifier : MatrixRole::token_embedding, 0);
  for (int l = 0; l < c.n_layers; ++l) {
    const std::string b = "blk." + std::to_string(l) + ".";
    vector(b + "attn_norm.weight", w.attn_norm[l]);
    matrix(b + "attn_q.weight", rotary_rows(w.wq[l], c.n_heads, d), d, d, MatrixRole::wq, l);
    matrix(b + "attn_k.weight", rotary_rows(w.wk[l], c.n_kv_heads, d), d, kv, MatrixRole::wk, l);
    matrix(b + "attn_v.weight", w.wv[l], d, kv, MatrixRole::wv, l);
    if (!w.bq.empty()) {
      vector(b + "attn_q.bias", rotary_rows(w.bq[l], c.n_heads, 1));
      vector(b + "attn_k.bias", rotary_rows(w.bk[l], c.n_kv_heads, 1));
      vector(b + "attn_v.bias", w.bv[l]);
    }
    matrix(b + "attn_output.weight", w.wo[l], d, d, MatrixRole::wo, l);
    vector(b + "ffn_norm.weight", w.ffn_norm[l]);
    matrix(b + "ffn_gate.weight", w.w1[l], d, ff, MatrixRole::w_gate, l);
    matrix(b + "ffn_down.weight", w.w2[l], ff, d, MatrixRole::w_down, l);
    matrix(b + "ffn_up.weight", w.w3[l], d, ff, MatrixRole::w_up, l);
  }
  vector("output_norm.weight", w.final_norm);
  if (!shared_classifier) matrix("output.weight", w.w_out, d, vocab, MatrixRole::classifier, 0);

  ByteWriter out;
  out.text("GGUF");
  out.u32(3);
  out.u64(tensors.size());
  out.u64(n_kv);
  out.text(meta.bytes);
  uint64_t offset = 0;
  for (const Tensor& t : tensors) {
    gguf_string(out, t.name);
    out.u32(static_cast<uint32_t>(t.dims.size()));
    for (uint64_t dim : t.dims) out.u64(dim);
    out.u32(t.type);
    out.u64(offset);
    offset += (t.data.size() + 31) / 32 * 32;
  }
  while (out.bytes.size() % 32 != 0) out.u8(0);
  for (const Tensor& t : tensors) {
    out.text(t.data);
    while (out.bytes.size() % 32 != 0) out.u8(0);
  }
  return out.bytes;
}

bool set_matrix_types(const std::string& name, GgufOptions& options) {
  options.q4_k_m = name == "Q4_K_M";
  for (uint32_t id = 0; id <= 30 && !options.q4_k_m; ++id) {
    const GgmlType* type = supported_ggml_type(id);
    if (type && name == type->name) {
      options.matrix_type = id;
      return true;
    }
  }
  return options.q4_k_m;
}

std::string matrix_type_names() { return supported_ggml_type_names() + ", Q4_K_M"; }

std::string write_gguf_file(const std::string& gguf, const std::string& path) {
  std::ofstream out(path, std::ios::binary);
  out.write(gguf.data(), static_cast<std::streamsize>(gguf.size()));
  if (!out.flush()) throw_range({path, "", {}}, "cannot be written");
  const GgufFile written(reinterpret_cast<const uint8_t*>(gguf.data()), gguf.size());
  std::map<std::string, int> tensors_of_type;
  for (const GgufTensorInfo& info : written.tensors()) ++tensors_of_type[ggml_type_name(info.type)];
  std::string counts;
  for (const auto& [name, count] : tensors_of_type)
    counts += (counts.empty() ? "" : ", ") + std::to_string(count) + " " + name;
  return counts + " tensors; " + std::to_string(gguf.size()) + " bytes";
}

ModelFile read_gguf_copy(const std::string& bytes) { return read_gguf_llama(ByteBuffer(bytes.begin(), bytes.end())); }

}  // namespace kvlab::test
