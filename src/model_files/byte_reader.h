#pragma once
// Reads a model file's bytes front to back, little-endian, never past the end. A model file is input
// like any other: each read names the field it reads, and a file that ends before it, or a count whose
// items could not fit in what is left of it, is an InputError naming that field ("checkpoint.wq: needs
// 497664 bytes at offset 28, the file has 1000"). Readers check every count with fits() before they
// allocate for it, so a lying header cannot make them allocate more than the file could hold.
#include <cstddef>
#include <cstdint>
#include <string>

namespace kvlab {

class ByteReader {
 public:
  // `file` starts every field's path ("checkpoint", "gguf").
  ByteReader(const uint8_t* data, size_t size, std::string file);

  size_t position() const { return position_; }
  size_t size() const { return size_; }
  size_t remaining() const { return size_ - position_; }
  // "<file>.<field>": the path errors name.
  std::string path(const std::string& field) const;

  uint8_t u8(const std::string& field);
  uint16_t u16(const std::string& field);
  uint32_t u32(const std::string& field);
  int32_t i32(const std::string& field);
  uint64_t u64(const std::string& field);
  float f32(const std::string& field);
  double f64(const std::string& field);
  std::string text(size_t n_bytes, const std::string& field);
  // The next n_bytes, read in place; the reader moves past them.
  const uint8_t* take(size_t n_bytes, const std::string& field);
  void seek(size_t offset, const std::string& field);

  // Throws unless `count` items of at least `item_bytes` each fit in what is left after the position:
  // the bound on any count read from the file.
  void require_fits(uint64_t count, uint64_t item_bytes, const std::string& field) const;
  // Throws InputError "<file>.<field> <problem>".
  [[noreturn]] void fail(const std::string& field, const std::string& given, const std::string& problem) const;

 private:
  const uint8_t* data_;
  size_t size_;
  size_t position_ = 0;
  std::string file_;
};

}  // namespace kvlab
