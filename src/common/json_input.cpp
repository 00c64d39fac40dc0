#include "common/json_input.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "common/input_error.h"
#include "common/text_format.h"
#include "common/utf8.h"

namespace kvlab::json_input {

using nlohmann::json;

namespace {

// nlohmann's SAX interface: builds the document as its DOM parser would, and checks every limit as
// the events come, refusing at the first one passed. (Its parser callback would do the checks too,
// but at the end of each object it scans the enclosing object or list: quadratic in a list of
// objects, minutes for a workload of a few thousand requests.)
class LimitedBuilder {
 public:
  LimitedBuilder(const std::string& what, const Limits& limits) : what_(what), limits_(limits) {}

  bool null() { return add(nullptr); }
  bool boolean(bool value) { return add(value); }
  bool number_integer(json::number_integer_t value) { return add(value); }
  bool number_unsigned(json::number_unsigned_t value) { return add(value); }
  bool number_float(json::number_float_t value, const std::string&) { return add(value); }
  bool binary(json::binary_t&) { return add(nullptr); }  // JSON text has no binary values
  bool string(std::string& value) {
    if (value.size() > limits_.max_string_bytes) {
      count_value();
      fail("a string of " + grouped(value.size()) + " bytes, more than " + grouped(limits_.max_string_bytes) +
           ", the limit on string length");
    }
    return add(std::move(value));
  }
  bool start_object(size_t) { return open(json::object(), true); }
  bool start_array(size_t) { return open(json::array(), false); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(std::string& key) {
    Frame& object = frames_.back();
    ++object.count;
    object.key = key.substr(0, 41);  // enough to name it (path() cuts it at 40)
    if (key.size() > limits_.max_string_bytes)
      fail("a key of " + grouped(key.size()) + " bytes, more than " + grouped(limits_.max_string_bytes) +
           ", the limit on string length");
    if (object.count > limits_.max_members)
      fail("more than " + grouped(limits_.max_members) + " members in one object, the limit on object members");
    member_ = &(*object.value)[key];
    return true;
  }
  bool parse_error(size_t position, const std::string&, const nlohmann::detail::exception&) {
    error_byte_ = position;
    return false;
  }

  json& root() { return root_; }
  size_t error_byte() const { return error_byte_; }
  // Whether the top-level value has ended (so a parse error after it is about trailing bytes).
  bool complete() const { return complete_; }

 private:
  struct Frame {
    json* value;
    bool is_object;
    std::string key;  // the current member's key, cut short
    size_t count;     // members or elements so far
  };

  // Puts a value where the parser is: the root, the end of a list, or the member whose key came last.
  template <typename Value>
  json* place(Value&& value) {
    if (frames_.empty()) {
      root_ = json(std::forward<Value>(value));
      return &root_;
    }
    if (!frames_.back().is_object) {
      json& list = *frames_.back().value;
      list.push_back(json(std::forward<Value>(value)));
      return &list.back();
    }
    *member_ = json(std::forward<Value>(value));
    return member_;
  }

  template <typename Value>
  bool add(Value&& value) {
    count_value();
    place(std::forward<Value>(value));
    complete_ = frames_.empty();
    return true;
  }

  bool open(json&& empty, bool is_object) {
    count_value();
    if (frames_.size() + 1 > static_cast<size_t>(limits_.max_depth))
      fail("nests deeper than " + std::to_string(limits_.max_depth) + " levels, the limit on nesting depth");
    json* value = place(std::move(empty));
    frames_.push_back({value, is_object, "", 0});
    return true;
  }

  bool close() {
    frames_.pop_back();
    complete_ = frames_.empty();
    return true;
  }

  // A value starts: one more element of the list it is in, and one more for the document.
  void count_value() {
    if (!frames_.empty() && !frames_.back().is_object) ++frames_.back().count;
    if (++values_ > limits_.max_values)
      fail("more than " + grouped(limits_.max_values) +
           " values (numbers, strings, lists, objects), the limit on values");
  }

  // Where the parser is, as a field path: "decode.ms[3][7]" (cut short if long).
  std::string path() const {
    std::string text;
    for (const Frame& frame : frames_) {
      if (frame.is_object && frame.count > 0)
        text += (text.empty() ? "" : ".") + (frame.key.size() > 40 ? utf8_prefix(frame.key, 40) + "..." : frame.key);
      else if (!frame.is_object && frame.count > 0)
        text += "[" + std::to_string(frame.count - 1) + "]";
      if (text.size() > 200) return utf8_prefix(text, 200) + "...";
    }
    return text.empty() ? "the top level" : text;
  }

  [[noreturn]] void fail(const std::string& problem) const { throw_range(what_ + " at " + path() + ": " + problem); }

  const std::string& what_;
  const Limits& limits_;
  json root_;
  std::vector<Frame> frames_;
  json* member_ = nullptr;
  size_t values_ = 0;
  size_t error_byte_ = 0;
  bool complete_ = false;
};

// "line 3, column 7" of the character at a 1-based byte position, as an editor shows it.
std::string position_text(const std::string& text, size_t byte) {
  const size_t at = std::min(byte > 0 ? byte - 1 : 0, text.size());
  size_t line = 1, line_start = 0;
  for (size_t i = 0; i < at; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(at - line_start + 1);
}

}  // namespace

std::string size_limit_text(size_t max_bytes) {
  return "more than " + grouped(max_bytes) + " bytes (" + std::to_string(max_bytes >> 20) +
         " MiB), the limit on input size";
}

json parse(const std::string& text, const std::string& what, const Limits& limits) {
  if (text.size() > limits.max_bytes)
    throw_range(what + " is " + grouped(text.size()) + " bytes: " + size_limit_text(limits.max_bytes));
  LimitedBuilder builder(what, limits);
  if (!json::sax_parse(text, &builder, json::input_format_t::json, true)) {
    const std::string where = position_text(text, builder.error_byte());
    if (builder.complete()) throw_type(what + " has bytes after its JSON value, from " + where);
    throw_type(what + " is not valid JSON (at " + where + ")");
  }
  // The parser takes a NUL byte for the end of the input: a value read whole before one is followed by
  // bytes all the same (a NUL cannot be inside a JSON value).
  const size_t nul = text.find('\0');
  if (nul != std::string::npos)
    throw_type(what + " has bytes after its JSON value, from " + position_text(text, nul + 1));
  return std::move(builder.root());
}

}  // namespace kvlab::json_input
