#pragma once
// Typed, range-checked reads of fields from JSON objects (option objects, steps.json, workload.json).
// Every failure throws InputError with the field's full path, the allowed range and what was given.
// An absent field takes its default; a present null (or a JS NaN, which the wasm wrapper passes as the
// string "NaN") is an error, never a silent default.
#include <initializer_list>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kvlab::fields {

using nlohmann::json;

// Throws a TypeError unless `value` is an object; `path` is how the user would name it.
const json& require_object(const json& value, const std::string& path);

// Rejects keys other than `known`, so that a misspelt option is not silently ignored.
void reject_unknown(const json& object, const std::string& path, std::initializer_list<const char*> known);

// Joins a parent path and a field name: "options" + "runs" -> "options.runs".
std::string join(const std::string& path, const std::string& name);

// A value (not a field) checked to be an integer / a finite number in [lo, hi].
long long as_int(const json& value, const std::string& path, long long lo, long long hi);
double as_number(const json& value, const std::string& path, double lo, double hi);

long long read_int(const json& object, const std::string& path, const char* name, long long fallback, long long lo,
                   long long hi);
double read_number(const json& object, const std::string& path, const char* name, double fallback, double lo,
                   double hi);
bool read_bool(const json& object, const std::string& path, const char* name, bool fallback);
std::string read_string(const json& object, const std::string& path, const char* name, const std::string& fallback);

// A list of integers in [lo, hi] with between 1 and max_count entries, strictly increasing if asked.
std::vector<int> read_int_list(const json& object, const std::string& path, const char* name,
                               const std::vector<int>& fallback, long long lo, long long hi, size_t max_count,
                               bool strictly_increasing);

// Checks that an already-read list is strictly increasing; names the first offending index.
void require_increasing(const std::vector<double>& values, const std::string& path);

}  // namespace kvlab::fields
