#include "sim/required_fields.h"

#include "common/input_error.h"
#include "common/json_fields.h"

namespace kvlab::sim {

const nlohmann::json& require_field(const nlohmann::json& object, const std::string& path, const char* name) {
  auto it = object.find(name);
  if (it == object.end()) throw_type({fields::join(path, name), "", {}}, "is missing (a required field)");
  return *it;
}

const nlohmann::json& require_object_field(const nlohmann::json& object, const std::string& path, const char* name) {
  return fields::require_object(require_field(object, path, name), fields::join(path, name));
}

std::vector<int> require_int_list(const nlohmann::json& object, const std::string& path, const char* name, long long lo,
                                  long long hi, size_t max_count, bool strictly_increasing) {
  require_field(object, path, name);
  return fields::read_int_list(object, path, name, {}, lo, hi, max_count, strictly_increasing);
}

void require_list_of(const nlohmann::json& value, const std::string& path, size_t count,
                     const std::string& count_reason) {
  std::string expected = "must be a list of " + std::to_string(count) + " entries, " + count_reason;
  if (!value.is_array())
    throw_type({path, value.type_name(), {}}, expected + " (got " + std::string(value.type_name()) + ")");
  if (value.size() != count)
    throw_range({path, std::to_string(value.size()) + " entries", {}},
                expected + " (got " + std::to_string(value.size()) + " entries)");
}

std::vector<double> require_number_list(const nlohmann::json& value, const std::string& path, size_t count, double lo,
                                        double hi, const std::string& count_reason) {
  require_list_of(value, path, count, count_reason);
  std::vector<double> numbers;
  numbers.reserve(count);
  for (size_t i = 0; i < count; ++i)
    numbers.push_back(fields::as_number(value[i], path + "[" + std::to_string(i) + "]", lo, hi));
  return numbers;
}

}  // namespace kvlab::sim
