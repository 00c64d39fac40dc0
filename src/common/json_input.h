#pragma once
// JSON text from outside (CLI files, Embind strings) parsed within structural limits. The limits are
// checked while the parser runs (a SAX handler that builds the document), so a hostile shape (a
// million '[', a gigabyte of zeros, a megabyte-long key) is refused before it can build a large
// document or reach a recursive walk such as dump(). Bytes after the JSON value are refused too. Each
// refusal is an InputError that names the input, where in it, and the limit. The values and why they
// are what they are: docs/RELIABILITY.md, "Structural limits".
#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

namespace kvlab::json_input {

// Structural limits of one JSON document.
struct Limits {
  size_t max_bytes;
  size_t max_values;        // numbers, strings, booleans, nulls, lists and objects, all counted
  int max_depth;            // lists and objects inside one another
  size_t max_members;       // keys of one object
  size_t max_string_bytes;  // of a string or a key, in UTF-8 bytes
};

// Every input's limits. The largest real document is an explicit workload of 1,000,000 requests (the
// workload reader's cap): 5 values and 88-141 bytes a request, 5 M values and up to 141 MB. The deepest is a `measure --json` result read as a step table: 5 levels. No reader knows
// more than about 20 keys in one object, and real strings are names (presets, policies such as
// "chunked:16,256", keys).
constexpr Limits kLimits = {size_t{256} << 20, 8'000'000, 32, 1024, 4096};

// Parses `text`; `what` names the source in errors ("--steps file", "options").
nlohmann::json parse(const std::string& text, const std::string& what, const Limits& limits = kLimits);

// "more than 268,435,456 bytes (256 MiB), the limit on input size": shared with the file reader and
// the wasm wrapper, which refuse an input of that size before copying it.
std::string size_limit_text(size_t max_bytes = kLimits.max_bytes);

}  // namespace kvlab::json_input
