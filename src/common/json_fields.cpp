#include "common/json_fields.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "common/input_error.h"
#include "common/text_format.h"

namespace kvlab::fields {

namespace {

std::string number_text(double x) {
  std::ostringstream out;
  out << x;
  return out.str();
}

// The string forms a JS non-finite number takes on its way through JSON.stringify in the wasm wrapper.
bool is_non_finite_marker(const json& value) {
  if (!value.is_string()) return false;
  const auto& s = value.get_ref<const std::string&>();
  return s == "NaN" || s == "Infinity" || s == "-Infinity";
}

}  // namespace

const json& require_object(const json& value, const std::string& path) {
  if (!value.is_object())
    throw_type({path, echo_value(value), {}}, "must be an object (got " + echo_value(value) + ")");
  return value;
}

void reject_unknown(const json& object, const std::string& path, std::initializer_list<const char*> known) {
  for (const auto& item : object.items()) {
    bool found = std::any_of(known.begin(), known.end(), [&](const char* k) { return item.key() == k; });
    if (!found) {
      const std::vector<std::string> names(known.begin(), known.end());
      throw_range({join(path, item.key()), "", one_of(names)},
                  "is not a known field (known: " + comma_list(names) + ")");
    }
  }
}

std::string join(const std::string& path, const std::string& name) { return path.empty() ? name : path + "." + name; }

long long as_int(const json& value, const std::string& path, long long lo, long long hi) {
  const std::string given = is_non_finite_marker(value) ? value.get<std::string>() : echo_value(value);
  const FieldError field{path, given, integers_from(lo, hi)};
  const std::string problem =
      "must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi) + " (got " + given + ")";
  if (is_non_finite_marker(value)) throw_range(field, problem);
  if (!value.is_number()) throw_type(field, problem);
  double x = value.get<double>();
  if (value.is_number_float() && (std::floor(x) != x || !std::isfinite(x))) throw_range(field, problem);
  if (x < static_cast<double>(lo) || x > static_cast<double>(hi)) throw_range(field, problem);
  return value.is_number_float() ? static_cast<long long>(x) : value.get<long long>();
}

double as_number(const json& value, const std::string& path, double lo, double hi) {
  const std::string given = is_non_finite_marker(value) ? value.get<std::string>() : echo_value(value);
  const FieldError field{path, given, numbers_from(lo, hi)};
  const std::string problem =
      "must be a number from " + number_text(lo) + " to " + number_text(hi) + " (got " + given + ")";
  if (is_non_finite_marker(value)) throw_range(field, problem);
  if (!value.is_number()) throw_type(field, problem);
  double x = value.get<double>();
  if (!std::isfinite(x) || x < lo || x > hi) throw_range(field, problem);
  return x;
}

long long read_int(const json& object, const std::string& path, const char* name, long long fallback, long long lo,
                   long long hi) {
  auto it = object.find(name);
  return it == object.end() ? fallback : as_int(*it, join(path, name), lo, hi);
}

double read_number(const json& object, const std::string& path, const char* name, double fallback, double lo,
                   double hi) {
  auto it = object.find(name);
  return it == object.end() ? fallback : as_number(*it, join(path, name), lo, hi);
}

bool read_bool(const json& object, const std::string& path, const char* name, bool fallback) {
  auto it = object.find(name);
  if (it == object.end()) return fallback;
  if (!it->is_boolean())
    throw_type({join(path, name), echo_value(*it), one_of({"true", "false"})},
               "must be true or false (got " + echo_value(*it) + ")");
  return it->get<bool>();
}

std::string read_string(const json& object, const std::string& path, const char* name, const std::string& fallback) {
  auto it = object.find(name);
  if (it == object.end()) return fallback;
  if (!it->is_string())
    throw_type({join(path, name), echo_value(*it), {}}, "must be a string (got " + echo_value(*it) + ")");
  return it->get<std::string>();
}

std::vector<int> read_int_list(const json& object, const std::string& path, const char* name,
                               const std::vector<int>& fallback, long long lo, long long hi, size_t max_count,
                               bool strictly_increasing) {
  auto it = object.find(name);
  if (it == object.end()) return fallback;
  std::string field = join(path, name);
  if (!it->is_array() || it->empty() || it->size() > max_count)
    throw_type({field, echo_value(*it), integers_from(lo, hi)},
               "must be a list of 1 to " + std::to_string(max_count) + " integers (got " + echo_value(*it) + ")");
  std::vector<int> values;
  std::vector<double> as_doubles;
  for (size_t i = 0; i < it->size(); ++i) {
    values.push_back(static_cast<int>(as_int((*it)[i], field + "[" + std::to_string(i) + "]", lo, hi)));
    as_doubles.push_back(values.back());
  }
  if (strictly_increasing) require_increasing(as_doubles, field);
  return values;
}

void require_increasing(const std::vector<double>& values, const std::string& path) {
  for (size_t i = 1; i < values.size(); ++i)
    if (!(values[i] > values[i - 1]))
      throw_range({path, number_text(values[i]), {}}, "must be strictly increasing (" + path + "[" + std::to_string(i) +
                                                          "] = " + number_text(values[i]) + " is not above " +
                                                          number_text(values[i - 1]) + ")");
}

}  // namespace kvlab::fields
