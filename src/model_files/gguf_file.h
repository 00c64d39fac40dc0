#pragma once
// The GGUF container (ggml's docs/gguf.md), versions 2 and 3, little-endian: "GGUF", uint32 version,
// uint64 tensor_count, uint64 metadata_kv_count; the metadata, each a string key, a uint32 value type and
// the value (a string is a uint64 length and its bytes; an array a uint32 element type, a uint64 count
// and the elements); the tensor infos, each a string name, uint32 n_dims, uint64 dims[n_dims] (the first
// the fastest-varying: a row's length), uint32 ggml type and a uint64 offset into the data; then, at the
// next multiple of general.alignment (32 unless given), the tensor data.
//
// Reading it parses the header, every metadata value and every tensor info, checked against the file's
// size before anything is allocated for them. Arrays are left where they are and read when asked for:
// a reader only pays for the arrays it uses. What a model makes of it is gguf_llama.h's business.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kvlab {

// Limits on what a GGUF file may count, each far above any real model's, checked before anything is
// allocated for them (docs/RELIABILITY.md): together they keep what the reader holds besides the
// file's bytes to a few tens of MB, whatever the file says.
// Metadata keys: real files have 20 to 60 (the vocabulary's arrays are one key each).
constexpr uint64_t kMaxGgufMetadataKeys = 4096;
// A key's bytes: real keys are dotted names ("qwen2.attention.head_count_kv", 29 bytes).
constexpr uint64_t kMaxGgufKeyBytes = 256;
// Tensors: the largest model kvlab runs (64 layers of 12 tensors, with Qwen2's biases) has 771.
constexpr uint64_t kMaxGgufTensors = 4096;
// A tensor name's bytes: ggml's GGML_MAX_NAME is 64, with its terminating NUL.
constexpr uint64_t kMaxGgufTensorNameBytes = 63;

enum class GgufType : uint32_t {
  uint8 = 0,
  int8 = 1,
  uint16 = 2,
  int16 = 3,
  uint32 = 4,
  int32 = 5,
  float32 = 6,
  boolean = 7,
  string = 8,
  array = 9,
  uint64 = 10,
  int64 = 11,
  float64 = 12,
};

struct GgufValue {
  GgufType type = GgufType::uint8;
  uint64_t unsigned_value = 0;              // unsigned integers and booleans
  int64_t signed_value = 0;                 // signed integers
  double number = 0.0;                      // float32, float64
  size_t text_at = 0;                       // string: where its bytes start in the file, read when asked for
  GgufType element_type = GgufType::uint8;  // array: its elements' type,
  uint64_t count = 0;                       // how many (a string's bytes),
  size_t elements_at = 0;                   // and where the first starts in the file
};

struct GgufTensorInfo {
  std::string name;
  std::vector<uint64_t> dims;  // [n_dims], dims[0] the fastest-varying
  uint32_t type = 0;           // ggml type (gguf_tensor_types.h)
  uint64_t offset = 0;         // from the start of the data section
  uint64_t n_elements = 0;     // the product of dims
};

class GgufFile {
 public:
  // Throws InputError naming the field ("gguf.version", "gguf.tensors[blk.0.attn_q.weight].n_dims").
  // The tensors are laid out as llama.cpp's gguf.cpp requires: each of a supported type, in the order of
  // the infos, each starting where the one before ended, padded to general.alignment (the first at 0),
  // the last ending inside the file.
  GgufFile(const uint8_t* data, size_t size);

  uint32_t version() const { return version_; }
  // "gguf.<field>": what errors about this file name.
  static std::string path(const std::string& field) { return "gguf." + field; }

  bool has(const std::string& key) const { return metadata_.count(key) != 0; }
  // The value of `key`, read as the asked type; a missing key or another type is an InputError naming it.
  uint64_t unsigned_integer(const std::string& key) const;  // any integer type, not negative
  double number(const std::string& key) const;              // any integer or float type
  std::string text(const std::string& key) const;
  // Arrays, refused naming the key before anything is read unless they hold at most max_count elements.
  // Of strings, also refused unless their bytes together are at most max_bytes.
  std::vector<std::string> strings(const std::string& key, uint64_t max_count, uint64_t max_bytes) const;
  std::vector<float> floats(const std::string& key, uint64_t max_count) const;    // of float32
  std::vector<int32_t> int32s(const std::string& key, uint64_t max_count) const;  // of int32

  const std::vector<GgufTensorInfo>& tensors() const { return tensors_; }
  // The tensor's bytes: `n_bytes` from its offset, checked to lie inside the file.
  const uint8_t* tensor_bytes(const GgufTensorInfo& tensor, uint64_t n_bytes) const;

 private:
  const GgufValue& value(const std::string& key, GgufType type) const;
  // The array `key` of `element` values, its count at most max_count: its first element's offset.
  size_t array_at(const std::string& key, GgufType element, uint64_t max_count) const;
  void check_tensor_layout(uint64_t alignment) const;

  const uint8_t* data_;
  size_t size_;
  uint32_t version_ = 0;
  std::map<std::string, GgufValue> metadata_;
  std::vector<GgufTensorInfo> tensors_;
  size_t data_start_ = 0;
};

}  // namespace kvlab
