#pragma once
// Bad input from any boundary (CLI flag, JSON file, Embind call) is reported as an InputError whose
// message names the field and the allowed range. The kind picks the JS error class at the wasm boundary.
#include <stdexcept>
#include <string>

namespace kvlab {

enum class ErrorKind { range, type };

class InputError : public std::runtime_error {
 public:
  InputError(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const { return kind_; }
  // Name of the JavaScript error class that carries this error across Embind.
  const char* js_class() const { return kind_ == ErrorKind::type ? "TypeError" : "RangeError"; }

 private:
  ErrorKind kind_;
};

[[noreturn]] void throw_range(const std::string& message);
[[noreturn]] void throw_type(const std::string& message);

}  // namespace kvlab
