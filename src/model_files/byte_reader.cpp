#include "model_files/byte_reader.h"

#include <cstring>

#include "common/input_error.h"

namespace kvlab {

namespace {

template <typename T>
T little_endian(const uint8_t* bytes) {
  uint64_t value = 0;
  for (size_t i = 0; i < sizeof(T); ++i) value |= static_cast<uint64_t>(bytes[i]) << (8 * i);
  T out;
  if constexpr (sizeof(T) == 8) {
    std::memcpy(&out, &value, sizeof out);
  } else {
    const auto narrow = static_cast<uint32_t>(value);
    if constexpr (sizeof(T) == 4)
      std::memcpy(&out, &narrow, sizeof out);
    else
      out = static_cast<T>(narrow);
  }
  return out;
}

}  // namespace

ByteReader::ByteReader(const uint8_t* data, size_t size, std::string file)
    : data_(data), size_(size), file_(std::move(file)) {}

std::string ByteReader::path(const std::string& field) const { return field.empty() ? file_ : file_ + "." + field; }

void ByteReader::fail(const std::string& field, const std::string& given, const std::string& problem) const {
  throw_range({path(field), given, {}}, problem);
}

void ByteReader::require_fits(uint64_t count, uint64_t item_bytes, const std::string& field) const {
  const uint64_t left = remaining();
  if (item_bytes > 0 && count > left / item_bytes)
    fail(field, std::to_string(count),
         "runs past the end of the file: " + std::to_string(count) + " x " + std::to_string(item_bytes) +
             " bytes from offset " + std::to_string(position_) + ", the file has " + std::to_string(size_) + " bytes");
}

const uint8_t* ByteReader::take(size_t n_bytes, const std::string& field) {
  require_fits(n_bytes, 1, field);
  const uint8_t* start = data_ + position_;
  position_ += n_bytes;
  return start;
}

void ByteReader::seek(size_t offset, const std::string& field) {
  if (offset > size_)
    fail(field, std::to_string(offset), "is past the end of the file (" + std::to_string(size_) + " bytes)");
  position_ = offset;
}

uint8_t ByteReader::u8(const std::string& field) { return *take(1, field); }
uint16_t ByteReader::u16(const std::string& field) { return little_endian<uint16_t>(take(2, field)); }
uint32_t ByteReader::u32(const std::string& field) { return little_endian<uint32_t>(take(4, field)); }
int32_t ByteReader::i32(const std::string& field) { return little_endian<int32_t>(take(4, field)); }
uint64_t ByteReader::u64(const std::string& field) { return little_endian<uint64_t>(take(8, field)); }
float ByteReader::f32(const std::string& field) { return little_endian<float>(take(4, field)); }
double ByteReader::f64(const std::string& field) { return little_endian<double>(take(8, field)); }

std::string ByteReader::text(size_t n_bytes, const std::string& field) {
  const uint8_t* start = take(n_bytes, field);
  return std::string(reinterpret_cast<const char*>(start), n_bytes);
}

}  // namespace kvlab
