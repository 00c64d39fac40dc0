#include "model_files/gguf_file.h"

#include "common/input_error.h"
#include "model_files/byte_reader.h"
#include "model_files/ggml_tensor_types.h"

namespace kvlab {

namespace {

constexpr uint32_t kMagic = 0x46554747;  // "GGUF" read as a little-endian uint32
constexpr int kMaxArrayDepth = 2;        // an array of arrays, at most
constexpr int kMaxDims = 4;              // GGML_MAX_DIMS
constexpr uint64_t kMaxElements = uint64_t{1} << 40;

const char* type_name(GgufType type) {
  static const char* const names[] = {"uint8", "int8",   "uint16", "int16",  "uint32", "int32",  "float32",
                                      "bool",  "string", "array",  "uint64", "int64",  "float64"};
  const auto index = static_cast<uint32_t>(type);
  return index < sizeof names / sizeof names[0] ? names[index] : "unknown";
}

// Bytes of one element of a fixed-size type; 0 for string and array.
uint64_t fixed_size(GgufType type) {
  switch (type) {
    case GgufType::uint8:
    case GgufType::int8:
    case GgufType::boolean: return 1;
    case GgufType::uint16:
    case GgufType::int16: return 2;
    case GgufType::uint32:
    case GgufType::int32:
    case GgufType::float32: return 4;
    case GgufType::uint64:
    case GgufType::int64:
    case GgufType::float64: return 8;
    default: return 0;
  }
}

GgufType read_type(ByteReader& in, const std::string& field) {
  const uint32_t type = in.u32(field);
  if (type > static_cast<uint32_t>(GgufType::float64))
    in.fail(field, std::to_string(type), "must be a GGUF value type from 0 to 12 (got " + std::to_string(type) + ")");
  return static_cast<GgufType>(type);
}

std::string read_string(ByteReader& in, const std::string& field) {
  const uint64_t length = in.u64(field + ".length");
  in.require_fits(length, 1, field + ".length");
  return in.text(static_cast<size_t>(length), field);
}

// A key or a tensor name: a string of at most max_bytes, refused by its length before it is read.
std::string read_name(ByteReader& in, const std::string& field, uint64_t max_bytes, const std::string& what) {
  const uint64_t length = in.u64(field + ".length");
  if (length > max_bytes)
    throw_range(
        {in.path(field + ".length"), std::to_string(length), integers_from(0, static_cast<long long>(max_bytes))},
        "must be at most " + std::to_string(max_bytes) + " bytes, " + what + " (got " + std::to_string(length) + ")");
  return in.text(static_cast<size_t>(length), field);
}

// A count from the file's header, at most `limit`; `why` says where the limit comes from.
uint64_t read_count(ByteReader& in, const std::string& field, uint64_t limit, const std::string& why) {
  const uint64_t count = in.u64(field);
  if (count > limit)
    throw_range(
        {in.path(field), std::to_string(count), integers_from(0, static_cast<long long>(limit))},
        "must be an integer from 0 to " + std::to_string(limit) + ", " + why + " (got " + std::to_string(count) + ")");
  return count;
}

void skip_string(ByteReader& in, const std::string& field) {
  const uint64_t length = in.u64(field + ".length");
  in.require_fits(length, 1, field + ".length");
  in.take(static_cast<size_t>(length), field);
}

// Moves past `count` elements of `type`, checking that they fit.
void skip_elements(ByteReader& in, GgufType type, uint64_t count, int depth, const std::string& field);

GgufValue read_value(ByteReader& in, GgufType type, int depth, const std::string& field) {
  GgufValue v;
  v.type = type;
  switch (type) {
    case GgufType::uint8: v.unsigned_value = in.u8(field); break;
    case GgufType::int8: v.signed_value = static_cast<int8_t>(in.u8(field)); break;
    case GgufType::uint16: v.unsigned_value = in.u16(field); break;
    case GgufType::int16: v.signed_value = static_cast<int16_t>(in.u16(field)); break;
    case GgufType::uint32: v.unsigned_value = in.u32(field); break;
    case GgufType::int32: v.signed_value = in.i32(field); break;
    case GgufType::uint64: v.unsigned_value = in.u64(field); break;
    case GgufType::int64: v.signed_value = static_cast<int64_t>(in.u64(field)); break;
    case GgufType::float32: v.number = in.f32(field); break;
    case GgufType::float64: v.number = in.f64(field); break;
    case GgufType::boolean: v.unsigned_value = in.u8(field) != 0; break;
    case GgufType::string:
      v.count = in.u64(field + ".length");
      in.require_fits(v.count, 1, field + ".length");
      v.text_at = in.position();
      in.take(static_cast<size_t>(v.count), field);
      break;
    case GgufType::array:
      if (depth >= kMaxArrayDepth) in.fail(field, "", "nests arrays deeper than " + std::to_string(kMaxArrayDepth));
      v.element_type = read_type(in, field + ".element_type");
      v.count = in.u64(field + ".count");
      v.elements_at = in.position();
      skip_elements(in, v.element_type, v.count, depth + 1, field);
      break;
  }
  return v;
}

void skip_elements(ByteReader& in, GgufType type, uint64_t count, int depth, const std::string& field) {
  const uint64_t size = fixed_size(type);
  if (size > 0) {
    in.require_fits(count, size, field + ".count");
    in.take(static_cast<size_t>(count * size), field);
    return;
  }
  in.require_fits(count, type == GgufType::string ? 8 : 12, field + ".count");  // a length, or a type and a count
  for (uint64_t i = 0; i < count; ++i) {
    if (type == GgufType::string && in.remaining() >= 8) {
      // An element's name is built only for its error: a file of millions of strings is walked at the
      // speed of reading it.
      const size_t start = in.position();
      const uint64_t length = in.u64(field);
      if (length <= in.remaining()) {
        in.take(static_cast<size_t>(length), field);
        continue;
      }
      in.seek(start, field);
    }
    const std::string element = field + "[" + std::to_string(i) + "]";
    if (type == GgufType::string)
      skip_string(in, element);  // throws, naming the element
    else
      read_value(in, type, depth, element);
  }
}

}  // namespace

GgufFile::GgufFile(const uint8_t* data, size_t size) : data_(data), size_(size) {
  ByteReader in(data, size, "gguf");
  const uint32_t magic = in.u32("magic");
  if (magic != kMagic) in.fail("magic", "", "must be the bytes \"GGUF\": this is not a GGUF file");
  version_ = in.u32("version");
  if (version_ != 2 && version_ != 3)
    throw_range({path("version"), std::to_string(version_), integers_from(2, 3)},
                "must be 2 or 3 (got " + std::to_string(version_) + ")");
  const uint64_t tensor_count =
      read_count(in, "tensor_count", kMaxGgufTensors, "the most tensors kvlab reads (a model of 64 layers has 771)");
  const uint64_t kv_count =
      read_count(in, "metadata_kv_count", kMaxGgufMetadataKeys, "the most metadata keys kvlab reads");
  in.require_fits(kv_count, 8 + 4 + 1, "metadata_kv_count");  // the smallest: an empty key and a uint8
  for (uint64_t i = 0; i < kv_count; ++i) {
    const std::string key =
        read_name(in, "metadata[" + std::to_string(i) + "].key", kMaxGgufKeyBytes, "the longest key kvlab reads");
    const GgufType type = read_type(in, key + ".type");
    GgufValue v = read_value(in, type, 0, key);
    if (!metadata_.emplace(key, std::move(v)).second) in.fail(key, "", "appears twice in the metadata");
  }
  in.require_fits(tensor_count, 8 + 4 + 4 + 8, "tensor_count");  // an empty name, no dims, type, offset
  tensors_.reserve(static_cast<size_t>(tensor_count));
  for (uint64_t i = 0; i < tensor_count; ++i) {
    GgufTensorInfo t;
    t.name = read_name(in, "tensors[" + std::to_string(i) + "].name", kMaxGgufTensorNameBytes,
                       "as ggml's GGML_MAX_NAME allows");
    const std::string field = "tensors[" + t.name + "]";
    const uint32_t n_dims = in.u32(field + ".n_dims");
    if (n_dims < 1 || n_dims > kMaxDims)
      throw_range({path(field + ".n_dims"), std::to_string(n_dims), integers_from(1, kMaxDims)},
                  "must be an integer from 1 to " + std::to_string(kMaxDims) + " (got " + std::to_string(n_dims) + ")");
    t.n_elements = 1;
    for (uint32_t d = 0; d < n_dims; ++d) {
      const uint64_t dim = in.u64(field + ".dims[" + std::to_string(d) + "]");
      if (dim < 1 || dim > kMaxElements / t.n_elements)
        in.fail(field + ".dims[" + std::to_string(d) + "]", std::to_string(dim),
                "must be at least 1, with at most 2^40 elements in the tensor (got " + std::to_string(dim) + ")");
      t.dims.push_back(dim);
      t.n_elements *= dim;
    }
    t.type = in.u32(field + ".type");
    t.offset = in.u64(field + ".offset");
    tensors_.push_back(std::move(t));
  }
  uint64_t alignment = 32;
  if (has("general.alignment")) {
    alignment = unsigned_integer("general.alignment");
    if (alignment == 0 || alignment > (1u << 16) || (alignment & (alignment - 1)) != 0)
      in.fail("general.alignment", std::to_string(alignment), "must be a power of two up to 65536");
  }
  const uint64_t start = (in.position() + alignment - 1) / alignment * alignment;
  if (start > size_ && !tensors_.empty())
    in.fail("tensor_data", std::to_string(start),
            "starts past the end of the file (" + std::to_string(size_) + " bytes)");
  data_start_ = static_cast<size_t>(start > size_ ? size_ : start);
  check_tensor_layout(alignment);
}

void GgufFile::check_tensor_layout(uint64_t alignment) const {
  // llama.cpp's gguf_init_from_file_impl: each tensor's offset must be the sum of the sizes before it,
  // each padded to the alignment; so tensors are in order, aligned and apart. Sizes are at most 2^40
  // elements of at most 4 bytes each, and there are at most kMaxGgufTensors of them: no overflow.
  uint64_t expected = 0, end = 0;
  for (const GgufTensorInfo& t : tensors_) {
    const std::string field = "tensors[" + t.name + "]";
    const GgmlType* type = supported_ggml_type(t.type);
    if (!type)
      throw_range({path(field + ".type"), ggml_type_name(t.type), one_of({})},
                  "is " + ggml_type_name(t.type) + " (" + std::to_string(t.type) + "); kvlab reads " +
                      supported_ggml_type_names());
    if (t.dims[0] % static_cast<uint64_t>(type->block_elements) != 0)
      throw_range(
          {path(field + ".dims"), std::to_string(t.dims[0]), {}},
          "must be rows of whole " + std::string(type->name) + " blocks of " + std::to_string(type->block_elements));
    if (t.offset != expected)
      throw_range({path(field + ".offset"), std::to_string(t.offset),
                   integers_from(static_cast<long long>(expected), static_cast<long long>(expected))},
                  "must be " + std::to_string(expected) +
                      ", where the tensor before it ends padded to general.alignment " + std::to_string(alignment) +
                      ": tensors lie in order, aligned and apart, as llama.cpp requires (got " +
                      std::to_string(t.offset) + ")");
    const uint64_t n_bytes = file_bytes(*type, t.n_elements);
    end = t.offset + n_bytes;
    expected = (end + alignment - 1) / alignment * alignment;
  }
  if (end > size_ - data_start_)
    throw_range({path("tensors[" + tensors_.back().name + "].offset"), std::to_string(tensors_.back().offset), {}},
                "puts the tensor data's end at byte " + std::to_string(data_start_ + end) +
                    ", past the end of the file (" + std::to_string(size_) + " bytes)");
}

const GgufValue& GgufFile::value(const std::string& key, GgufType type) const {
  auto found = metadata_.find(key);
  if (found == metadata_.end()) throw_range({path(key), "", {}}, "is missing from the file's metadata");
  const GgufValue& v = found->second;
  const bool integer = fixed_size(v.type) > 0 && v.type != GgufType::float32 && v.type != GgufType::float64;
  const bool fits = v.type == type || (type == GgufType::uint64 && integer) ||
                    (type == GgufType::float64 && (integer || v.type == GgufType::float32)) ||
                    (type == GgufType::array && v.type == GgufType::array);
  if (!fits)
    throw_type({path(key), type_name(v.type), {}}, std::string("must be ") +
                                                       (type == GgufType::uint64 ? "an integer" : type_name(type)) +
                                                       " (got " + type_name(v.type) + ")");
  return v;
}

uint64_t GgufFile::unsigned_integer(const std::string& key) const {
  const GgufValue& v = value(key, GgufType::uint64);
  const bool is_signed =
      v.type == GgufType::int8 || v.type == GgufType::int16 || v.type == GgufType::int32 || v.type == GgufType::int64;
  if (!is_signed) return v.unsigned_value;
  if (v.signed_value < 0) throw_range({path(key), std::to_string(v.signed_value), {}}, "must not be negative");
  return static_cast<uint64_t>(v.signed_value);
}

double GgufFile::number(const std::string& key) const {
  const GgufValue& v = value(key, GgufType::float64);
  if (v.type == GgufType::float32 || v.type == GgufType::float64) return v.number;
  const bool is_signed =
      v.type == GgufType::int8 || v.type == GgufType::int16 || v.type == GgufType::int32 || v.type == GgufType::int64;
  return is_signed ? static_cast<double>(v.signed_value) : static_cast<double>(v.unsigned_value);
}

std::string GgufFile::text(const std::string& key) const {
  const GgufValue& v = value(key, GgufType::string);
  return std::string(reinterpret_cast<const char*>(data_ + v.text_at), static_cast<size_t>(v.count));
}

namespace {

void require_elements(const GgufValue& v, GgufType element, const std::string& key) {
  if (v.element_type != element)
    throw_type({GgufFile::path(key), "", {}}, std::string("must be an array of ") + type_name(element) +
                                                  " (got an array of " + type_name(v.element_type) + ")");
}

}  // namespace

size_t GgufFile::array_at(const std::string& key, GgufType element, uint64_t max_count) const {
  const GgufValue& v = value(key, GgufType::array);
  require_elements(v, element, key);
  if (v.count > max_count)
    throw_range({path(key), std::to_string(v.count), integers_from(0, static_cast<long long>(max_count))},
                "must hold at most " + std::to_string(max_count) + " elements (got " + std::to_string(v.count) + ")");
  return v.elements_at;
}

std::vector<std::string> GgufFile::strings(const std::string& key, uint64_t max_count, uint64_t max_bytes) const {
  const size_t first = array_at(key, GgufType::string, max_count);
  const uint64_t count = value(key, GgufType::array).count;
  ByteReader in(data_, size_, "gguf");
  in.seek(first, key);
  uint64_t total = 0;  // each length was checked to fit in the file: no overflow
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t length = in.u64(key);
    total += length;
    in.take(static_cast<size_t>(length), key);
  }
  if (total > max_bytes)
    throw_range(
        {path(key), std::to_string(total), integers_from(0, static_cast<long long>(max_bytes))},
        "must hold at most " + std::to_string(max_bytes) + " bytes of text (got " + std::to_string(total) + ")");
  in.seek(first, key);
  std::vector<std::string> out;
  out.reserve(static_cast<size_t>(count));
  for (uint64_t i = 0; i < count; ++i) out.push_back(read_string(in, key + "[" + std::to_string(i) + "]"));
  return out;
}

std::vector<float> GgufFile::floats(const std::string& key, uint64_t max_count) const {
  ByteReader in(data_, size_, "gguf");
  in.seek(array_at(key, GgufType::float32, max_count), key);
  std::vector<float> out(static_cast<size_t>(value(key, GgufType::array).count));
  for (float& x : out) x = in.f32(key);
  return out;
}

std::vector<int32_t> GgufFile::int32s(const std::string& key, uint64_t max_count) const {
  ByteReader in(data_, size_, "gguf");
  in.seek(array_at(key, GgufType::int32, max_count), key);
  std::vector<int32_t> out(static_cast<size_t>(value(key, GgufType::array).count));
  for (int32_t& x : out) x = in.i32(key);
  return out;
}

const uint8_t* GgufFile::tensor_bytes(const GgufTensorInfo& tensor, uint64_t n_bytes) const {
  const uint64_t available = size_ - data_start_;
  const std::string field = "tensors[" + tensor.name + "]";
  if (tensor.offset > available || n_bytes > available - tensor.offset)
    throw_range({path(field + ".offset"), std::to_string(tensor.offset), {}},
                "puts the tensor's " + std::to_string(n_bytes) +
                    " bytes past the end of the file (the data section has " + std::to_string(available) + " bytes)");
  return data_ + data_start_ + tensor.offset;
}

}  // namespace kvlab
