#include "model_files/gguf_llama.h"

#include <algorithm>
#include <map>
#include <memory>
#include <string>

#include "common/input_error.h"
#include "common/text_format.h"
#include "model_files/ggml_tensor_types.h"
#include "model_files/gguf_architecture.h"
#include "model_files/gguf_file.h"
#include "model_files/rotary_order.h"

namespace kvlab {

namespace {

constexpr int kMaxPositions = 8192;  // validate()'s max_seq
// An epsilon only keeps a norm of zeros from dividing by zero: real models' are 1e-5 or 1e-6.
constexpr double kMinRmsEpsilon = 1e-10, kMaxRmsEpsilon = 1e-2;

std::string quoted(const std::string& text) { return "\"" + text + "\""; }

void require_text(const GgufFile& file, const std::string& key, const std::string& wanted, const std::string& why) {
  const std::string& got = file.text(key);
  if (got != wanted)
    throw_range({GgufFile::path(key), quoted(got), one_of({wanted})},
                "must be " + quoted(wanted) + ": " + why + " (got " + quoted(got) + ")");
}

int integer_field(const GgufFile& file, const std::string& key, int lo, int hi) {
  const uint64_t value = file.unsigned_integer(key);
  if (value < static_cast<uint64_t>(lo) || value > static_cast<uint64_t>(hi))
    throw_range({GgufFile::path(key), std::to_string(value), integers_from(lo, hi)},
                "must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi) + " (got " +
                    std::to_string(value) + ")");
  return static_cast<int>(value);
}

// `error` about a ModelConfig field ("gguf.n_heads must divide d_model") in the file's own keys
// ("gguf.llama.attention.head_count must divide llama.embedding_length").
InputError in_file_keys(const InputError& error, const GgufArchitecture& architecture) {
  static const std::pair<const char*, const char*> kKeyOfField[] = {
      {"d_model", "embedding_length"}, {"n_kv_heads", "attention.head_count_kv"}, {"n_heads", "attention.head_count"}};
  FieldError field = error.field();
  std::string problem = error.problem();
  for (const auto& [name, key] : kKeyOfField) {
    const std::string file_key = architecture.name + "." + key;
    if (field.path == GgufFile::path(name)) field.path = GgufFile::path(file_key);
    for (size_t at = 0; (at = problem.find(name, at)) != std::string::npos; at += file_key.size())
      problem.replace(at, std::string(name).size(), file_key);
  }
  return InputError(error.kind(), field, problem);
}

// The model's sizes from the keys under the architecture's prefix ("qwen2.embedding_length").
ModelConfig read_config(const GgufFile& file, const GgufArchitecture& architecture, int vocab) {
  const auto key = [&](const std::string& name) { return architecture.name + "." + name; };
  ModelConfig c;
  c.vocab = vocab;
  c.d_model = integer_field(file, key("embedding_length"), 4, 4096);
  c.n_layers = integer_field(file, key("block_count"), 1, 64);
  c.d_ff = integer_field(file, key("feed_forward_length"), 1, 16384);
  c.n_heads = integer_field(file, key("attention.head_count"), 1, 128);
  c.n_kv_heads = file.has(key("attention.head_count_kv"))
                     ? integer_field(file, key("attention.head_count_kv"), 1, c.n_heads)
                     : c.n_heads;
  // A longer context than the KV cache can hold is fine: the model is used for fewer positions.
  const uint64_t context = file.unsigned_integer(key("context_length"));
  if (context < 2)
    throw_range({GgufFile::path(key("context_length")), std::to_string(context), {}}, "must be at least 2");
  c.max_seq = static_cast<int>(std::min<uint64_t>(context, kMaxPositions));
  if (file.has(key("vocab_size")) && file.unsigned_integer(key("vocab_size")) != static_cast<uint64_t>(vocab))
    throw_range({GgufFile::path(key("vocab_size")), std::to_string(file.unsigned_integer(key("vocab_size"))), {}},
                "must equal the number of tokenizer.ggml.tokens, " + std::to_string(vocab));
  // The weights' size is the file's tensors' (memory_bytes), not what float32 would take.
  validate_ranges(c, "gguf");
  try {
    validate_agreement(c, "gguf");
  } catch (const InputError& e) {
    throw in_file_keys(e, architecture);
  }
  if (file.has(key("rope.dimension_count")) &&
      file.unsigned_integer(key("rope.dimension_count")) != static_cast<uint64_t>(c.head_dim()))
    throw_range({GgufFile::path(key("rope.dimension_count")),
                 std::to_string(file.unsigned_integer(key("rope.dimension_count"))),
                 {}},
                "must be the head size, " + std::to_string(c.head_dim()) + ": kvlab rotates whole heads");
  c.rms_epsilon = architecture.rms_epsilon;
  if (file.has(key("attention.layer_norm_rms_epsilon"))) {
    const double epsilon = file.number(key("attention.layer_norm_rms_epsilon"));
    if (!(epsilon >= kMinRmsEpsilon && epsilon <= kMaxRmsEpsilon))
      throw_range({GgufFile::path(key("attention.layer_norm_rms_epsilon")), format("%g", epsilon),
                   numbers_from(kMinRmsEpsilon, kMaxRmsEpsilon)},
                  format("must be a number from %g to %g, RMSNorm's epsilon (got %g)", kMinRmsEpsilon, kMaxRmsEpsilon,
                         epsilon));
    c.rms_epsilon = static_cast<float>(epsilon);
  }
  if (file.has(key("rope.freq_base"))) {
    c.rope_theta = file.number(key("rope.freq_base"));
    if (!(c.rope_theta > 1.0 && c.rope_theta <= 1e9))
      throw_range({GgufFile::path(key("rope.freq_base")), std::to_string(c.rope_theta), numbers_from(1.0, 1e9)},
                  "must be a number above 1, at most 1e9");
  }
  if (file.has(key("rope.scaling.type")))
    require_text(file, key("rope.scaling.type"), "none", "kvlab's rotary embedding is not scaled");
  return c;
}

// SentencePiece writes a word's leading space as U+2581 ("▁"); llama2.c's tokenizer files and kvlab's
// tokenizer use ' '.
std::string with_spaces(const std::string& piece) {
  static const std::string lower_one_eighth_block = "\xE2\x96\x81";
  std::string out;
  for (size_t i = 0; i < piece.size();) {
    if (piece.compare(i, 3, lower_one_eighth_block) == 0) {
      out += ' ';
      i += 3;
    } else {
      out += piece[i++];
    }
  }
  return out;
}

// GGUF's byte-level BPE (tokenizer model "gpt2"): the merges, the token types, the pre-tokenizer, and
// whether a text starts with BOS, which is llama.cpp's default for the family (Llama 3's does, the others
// do not) unless tokenizer.ggml.add_bos_token says.
void read_bpe(const GgufFile& file, Vocabulary& v) {
  v.model = TokenizerModel::bpe;
  const std::string pre_key = "tokenizer.ggml.pre";
  const std::string pre = file.has(pre_key) ? file.text(pre_key) : "";
  std::vector<std::string> names;
  for (const auto& [name, kind] : pre_tokenizer_names()) {
    names.push_back(name);
    if (name == pre) v.pre = kind;
  }
  if (std::find(names.begin(), names.end(), pre) == names.end()) {
    std::string list;
    for (const std::string& name : names) list += (list.empty() ? "" : ", ") + quoted(name);
    throw_range(
        {GgufFile::path(pre_key), file.has(pre_key) ? quoted(pre) : "", one_of(names)},
        "must name a pre-tokenizer kvlab has: " + list + (file.has(pre_key) ? " (got " + quoted(pre) + ")" : ""));
  }
  v.merges = file.strings("tokenizer.ggml.merges", kMaxMerges, kMaxMergesBytes);
  const std::string types_key = "tokenizer.ggml.token_type";
  if (file.has(types_key)) {
    const std::vector<int32_t> types = file.int32s(types_key, kMaxVocab);
    if (types.size() != v.pieces.size())
      throw_range({GgufFile::path(types_key), std::to_string(types.size()), {}},
                  "must hold one type per token, " + std::to_string(v.pieces.size()));
    for (size_t i = 0; i < types.size(); ++i) {
      if (types[i] < 0 || types[i] > 6)
        throw_range(
            {GgufFile::path(types_key + "[" + std::to_string(i) + "]"), std::to_string(types[i]), integers_from(0, 6)},
            "must be a token type from 0 to 6 (got " + std::to_string(types[i]) + ")");
      v.token_types.push_back(static_cast<TokenType>(types[i]));
    }
  }
  v.add_bos = v.pre == PreTokenizer::llama3;
  if (file.has("tokenizer.ggml.add_bos_token")) v.add_bos = file.unsigned_integer("tokenizer.ggml.add_bos_token") != 0;
  // llama.cpp falls back on token 11 for both; that is a comma in Qwen2's vocabulary, which would end
  // every answer at its first comma.
  for (const char* key : {"tokenizer.ggml.bos_token_id", "tokenizer.ggml.eos_token_id"})
    if (!file.has(key))
      throw_range({GgufFile::path(key), "", {}}, "is missing: a BPE vocabulary has no usual BOS and EOS ids");
}

Vocabulary read_vocabulary(const GgufFile& file) {
  const std::string& model = file.text("tokenizer.ggml.model");
  if (model != "llama" && model != "gpt2")
    throw_range(
        {GgufFile::path("tokenizer.ggml.model"), quoted(model), one_of({"llama", "gpt2"})},
        "must be \"llama\" (SentencePiece, as llama2.c's) or \"gpt2\" (byte-level BPE) (got " + quoted(model) + ")");
  Vocabulary v;
  v.pieces = file.strings("tokenizer.ggml.tokens", kMaxVocab, kMaxVocabularyBytes);
  const int vocab = static_cast<int>(v.pieces.size());
  if (vocab < 2)
    throw_range(
        {GgufFile::path("tokenizer.ggml.tokens"), std::to_string(v.pieces.size()), integers_from(2, kMaxVocab)},
        "must hold from 2 to " + std::to_string(kMaxVocab) + " tokens (got " + std::to_string(v.pieces.size()) + ")");
  if (model == "gpt2") {
    read_bpe(file, v);
  } else {
    for (std::string& piece : v.pieces) piece = with_spaces(piece);
    std::vector<float> scores = file.floats("tokenizer.ggml.scores", kMaxVocab);
    if (scores.size() != v.pieces.size())
      throw_range({GgufFile::path("tokenizer.ggml.scores"), std::to_string(scores.size()), {}},
                  "must hold one score per token, " + std::to_string(vocab));
    v.scores.assign(scores.begin(), scores.end());
  }
  for (auto [key, id] : {std::pair<const char*, int*>{"tokenizer.ggml.bos_token_id", &v.bos},
                         std::pair<const char*, int*>{"tokenizer.ggml.eos_token_id", &v.eos}})
    if (file.has(key)) *id = integer_field(file, key, 0, vocab - 1);
  return v;
}

// Where each tensor of the architecture goes (a vector, or a matrix that may keep quantized blocks), and
// its shape [rows, row length] (GGUF's dims reversed).
struct TensorSlot {
  FloatBuffer* vector;
  MatrixTensor* matrix;
  uint64_t rows, row_length;
  bool required;
};

std::map<std::string, TensorSlot> tensor_slots(WeightTensors& t, const GgufArchitecture& architecture) {
  const ModelConfig& c = t.config;
  const uint64_t d = c.d_model, kv = c.kv_dim(), ff = c.d_ff, vocab = c.vocab;
  std::map<std::string, TensorSlot> slots = {
      {"token_embd.weight", {nullptr, &t.token_embedding, vocab, d, true}},
      {"output_norm.weight", {&t.final_norm, nullptr, 1, d, true}},
      {"output.weight", {nullptr, &t.w_out, vocab, d, false}},
  };
  for (int l = 0; l < c.n_layers; ++l) {
    LayerTensors& layer = t.layers[static_cast<size_t>(l)];
    const std::string block = "blk." + std::to_string(l) + ".";
    slots.insert({{block + "attn_norm.weight", {&layer.attn_norm, nullptr, 1, d, true}},
                  {block + "attn_q.weight", {nullptr, &layer.wq, d, d, true}},
                  {block + "attn_k.weight", {nullptr, &layer.wk, kv, d, true}},
                  {block + "attn_v.weight", {nullptr, &layer.wv, kv, d, true}},
                  {block + "attn_output.weight", {nullptr, &layer.wo, d, d, true}},
                  {block + "ffn_norm.weight", {&layer.ffn_norm, nullptr, 1, d, true}},
                  {block + "ffn_gate.weight", {nullptr, &layer.w_gate, ff, d, true}},
                  {block + "ffn_up.weight", {nullptr, &layer.w_up, ff, d, true}},
                  {block + "ffn_down.weight", {nullptr, &layer.w_down, d, ff, true}}});
    if (architecture.qkv_biases)
      slots.insert({{block + "attn_q.bias", {&layer.bq, nullptr, 1, d, true}},
                    {block + "attn_k.bias", {&layer.bk, nullptr, 1, kv, true}},
                    {block + "attn_v.bias", {&layer.bv, nullptr, 1, kv, true}}});
  }
  return slots;
}

void read_tensor(const GgufFile& file, const std::shared_ptr<ByteBuffer>& file_buffer, const GgufTensorInfo& info,
                 const TensorSlot& slot) {
  const std::string field = "tensors[" + info.name + "]";
  const bool vector_shape = slot.rows == 1 && info.dims.size() == 1 && info.dims[0] == slot.row_length;
  const bool matrix_shape = info.dims.size() == 2 && info.dims[0] == slot.row_length && info.dims[1] == slot.rows;
  if (!vector_shape && !matrix_shape) {
    std::string dims;
    for (uint64_t dim : info.dims) dims += (dims.empty() ? "" : ", ") + std::to_string(dim);
    const std::string wanted = slot.rows == 1 ? std::to_string(slot.row_length)
                                              : std::to_string(slot.row_length) + ", " + std::to_string(slot.rows);
    throw_range({GgufFile::path(field + ".dims"), "[" + dims + "]", {}},
                "must be [" + wanted + "] for the model the metadata describes (got [" + dims + "])");
  }
  const GgmlType* type = supported_ggml_type(info.type);  // GgufFile checked it is one, of whole blocks
  const uint64_t n_bytes = file_bytes(*type, info.n_elements);
  const uint8_t* bytes = file.tensor_bytes(info, n_bytes);  // inside the file: the allocations below are bounded
  // A NaN or an infinity would spread through every step and write token 0 or ordinary-looking tokens.
  const int64_t non_finite = first_non_finite(*type, bytes, info.n_elements);
  if (non_finite >= 0)
    throw_range({GgufFile::path(field), "", {}}, std::string("holds a NaN or an infinity, ") +
                                                     (type->blocks ? "as a scale of block " : "as element ") +
                                                     std::to_string(non_finite) + " (" + type->name +
                                                     "): kvlab refuses weights that are not finite numbers");
  if (slot.matrix && type->blocks) {  // kept where the file has it: the matmul reads the blocks there
    slot.matrix->format = type->blocks;
    slot.matrix->blocks = {file_buffer, static_cast<size_t>(bytes - file_buffer->data()), static_cast<size_t>(n_bytes)};
    return;
  }
  FloatBuffer& values = slot.matrix ? slot.matrix->values : *slot.vector;
  values.resize(static_cast<size_t>(info.n_elements));
  dequantize(*type, bytes, info.n_elements, values.data());
}

// The bytes the tensors take once read: a block format's as in the file, the others widened to float32.
// Refused past kMaxWeightBytes before any tensor is read.
void check_memory_bytes(const GgufFile& file) {
  uint64_t bytes = 0;
  for (const GgufTensorInfo& info : file.tensors()) {
    const GgmlType* type = supported_ggml_type(info.type);  // GgufFile checked it is one
    bytes += type->blocks ? file_bytes(*type, info.n_elements) : info.n_elements * 4;
  }
  if (bytes > static_cast<uint64_t>(kMaxWeightBytes))
    throw_range({GgufFile::path("tensors"), std::to_string(bytes), {}},
                "take " + std::to_string(bytes >> 20) +
                    " MiB of memory as kvlab holds them (a block format's blocks as "
                    "they are, other types as float32), at most " +
                    std::to_string(kMaxWeightBytes >> 20) + " MiB");
}

}  // namespace

ModelFile read_gguf_llama(ByteBuffer bytes) {
  const auto file_buffer = std::make_shared<ByteBuffer>(std::move(bytes));
  const GgufFile file(file_buffer->data(), file_buffer->size());
  const GgufArchitecture& architecture =
      find_gguf_architecture(file.text("general.architecture"), GgufFile::path("general.architecture"));
  ModelFile model;
  model.vocabulary = read_vocabulary(file);
  WeightTensors& t = model.tensors;
  t.config = read_config(file, architecture, static_cast<int>(model.vocabulary.pieces.size()));
  t.layers.resize(static_cast<size_t>(t.config.n_layers));
  check_memory_bytes(file);
  std::map<std::string, TensorSlot> slots = tensor_slots(t, architecture);
  std::map<std::string, bool> seen;
  for (const GgufTensorInfo& info : file.tensors()) {
    auto slot = slots.find(info.name);
    if (slot == slots.end())
      throw_range({GgufFile::path("tensors[" + info.name + "]"), "", {}},
                  "is not a tensor of the " + architecture.name + " model kvlab runs (of " +
                      std::to_string(t.config.n_layers) + " layers)");
    if (seen[info.name]) throw_range({GgufFile::path("tensors[" + info.name + "]"), "", {}}, "appears twice");
    seen[info.name] = true;
    read_tensor(file, file_buffer, info, slot->second);
  }
  for (const auto& [name, slot] : slots)
    if (slot.required && !seen[name]) throw_range({GgufFile::path("tensors[" + name + "]"), "", {}}, "is missing");
  // A qwen2 file's q and k are for halves already; llama's, for adjacent pairs, have no biases to reorder.
  if (architecture.rotary == RotaryPairs::halves) return model;
  for (LayerTensors& layer : t.layers) {
    adjacent_pairs_to_halves(layer.wq, t.config.n_heads, t.config.head_dim(), t.config.d_model);
    adjacent_pairs_to_halves(layer.wk, t.config.n_kv_heads, t.config.head_dim(), t.config.d_model);
  }
  return model;
}

}  // namespace kvlab
