#include "model_files/gguf_file.h"

#include "common/input_error.h"
#include "model_files/byte_reader.h"

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
    case GgufType::string: v.text = read_string(in, field); break;
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
    const std::string element = field + "[" + std::to_string(i) + "]";
    if (type == GgufType::string)
      skip_string(in, element);
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
  const uint64_t tensor_count = in.u64("tensor_count");
  const uint64_t kv_count = in.u64("metadata_kv_count");
  in.require_fits(kv_count, 8 + 4 + 1, "metadata_kv_count");  // the smallest: an empty key and a uint8
  for (uint64_t i = 0; i < kv_count; ++i) {
    const std::string key = read_string(in, "metadata[" + std::to_string(i) + "].key");
    const GgufType type = read_type(in, key + ".type");
    GgufValue v = read_value(in, type, 0, key);
    if (!metadata_.emplace(key, std::move(v)).second) in.fail(key, "", "appears twice in the metadata");
  }
  in.require_fits(tensor_count, 8 + 4 + 4 + 8, "tensor_count");  // an empty name, no dims, type, offset
  tensors_.reserve(static_cast<size_t>(tensor_count));
  for (uint64_t i = 0; i < tensor_count; ++i) {
    GgufTensorInfo t;
    t.name = read_string(in, "tensors[" + std::to_string(i) + "].name");
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
  for (const GgufTensorInfo& t : tensors_)
    if (t.offset % alignment != 0)
      in.fail("tensors[" + t.name + "].offset", std::to_string(t.offset),
              "must be a multiple of general.alignment " + std::to_string(alignment));
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

const std::string& GgufFile::text(const std::string& key) const { return value(key, GgufType::string).text; }

namespace {

void require_elements(const GgufValue& v, GgufType element, const std::string& key) {
  if (v.element_type != element)
    throw_type({GgufFile::path(key), "", {}}, std::string("must be an array of ") + type_name(element) +
                                                  " (got an array of " + type_name(v.element_type) + ")");
}

}  // namespace

std::vector<std::string> GgufFile::strings(const std::string& key) const {
  const GgufValue& v = value(key, GgufType::array);
  require_elements(v, GgufType::string, key);
  ByteReader in(data_, size_, "gguf");
  in.seek(v.elements_at, key);
  std::vector<std::string> out;
  out.reserve(static_cast<size_t>(v.count));  // the parse checked that they fit in the file
  for (uint64_t i = 0; i < v.count; ++i) out.push_back(read_string(in, key + "[" + std::to_string(i) + "]"));
  return out;
}

std::vector<float> GgufFile::floats(const std::string& key) const {
  const GgufValue& v = value(key, GgufType::array);
  require_elements(v, GgufType::float32, key);
  ByteReader in(data_, size_, "gguf");
  in.seek(v.elements_at, key);
  std::vector<float> out(static_cast<size_t>(v.count));
  for (float& x : out) x = in.f32(key);
  return out;
}

std::vector<int32_t> GgufFile::int32s(const std::string& key) const {
  const GgufValue& v = value(key, GgufType::array);
  require_elements(v, GgufType::int32, key);
  ByteReader in(data_, size_, "gguf");
  in.seek(v.elements_at, key);
  std::vector<int32_t> out(static_cast<size_t>(v.count));
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
