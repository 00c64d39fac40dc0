#pragma once
// Reads of fields that simulator inputs must carry: absence is an error naming the field, not a default.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kvlab::sim {

// The field `name` of `object` (at `path`); throws an InputError naming path.name when it is absent.
const nlohmann::json& require_field(const nlohmann::json& object, const std::string& path, const char* name);

// A required object field.
const nlohmann::json& require_object_field(const nlohmann::json& object, const std::string& path, const char* name);

// A required list of integers in [lo, hi], 1 to max_count entries, strictly increasing if asked.
std::vector<int> require_int_list(const nlohmann::json& object, const std::string& path, const char* name, long long lo,
                                  long long hi, size_t max_count, bool strictly_increasing);

// Checks that `value` (at `path`) is a list of exactly `count` entries; `count_reason` says why that many
// ("one per steps.prefill.tokens entry").
void require_list_of(const nlohmann::json& value, const std::string& path, size_t count,
                     const std::string& count_reason);

// A list of exactly `count` numbers in [lo, hi].
std::vector<double> require_number_list(const nlohmann::json& value, const std::string& path, size_t count, double lo,
                                        double hi, const std::string& count_reason);

}  // namespace kvlab::sim
