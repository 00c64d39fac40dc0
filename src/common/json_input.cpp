#include "common/json_input.h"

#include <algorithm>
#include <vector>

#include "common/input_error.h"
#include "common/text_format.h"

namespace kvlab::json_input {

using nlohmann::json;

namespace {

// Follows the parser's events: where it is (for messages) and how much it has read so far.
class ShapeCheck {
 public:
  ShapeCheck(const std::string& what, const Limits& limits) : what_(what), limits_(limits) {}

  // nlohmann's parser callback; returning true keeps every value. Throws at the first limit passed.
  bool on_event(json::parse_event_t event, const json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        count_value();
        if (frames_.size() + 1 > static_cast<size_t>(limits_.max_depth))
          fail("nests deeper than " + std::to_string(limits_.max_depth) + " levels, the limit on nesting depth");
        frames_.push_back({event == json::parse_event_t::object_start, "", 0});
        break;
      case json::parse_event_t::key: {
        Frame& object = frames_.back();
        const auto& key = parsed.get_ref<const std::string&>();
        ++object.count;
        object.key = key.substr(0, 41);  // enough to name it (path() cuts it at 40)
        if (key.size() > limits_.max_string_bytes)
          fail("a key of " + grouped(key.size()) + " bytes, more than " + grouped(limits_.max_string_bytes) +
               ", the limit on string length");
        if (object.count > limits_.max_members)
          fail("more than " + grouped(limits_.max_members) + " members in one object, the limit on object members");
        break;
      }
      case json::parse_event_t::value:
        count_value();
        if (parsed.is_string() && parsed.get_ref<const std::string&>().size() > limits_.max_string_bytes)
          fail("a string of " + grouped(parsed.get_ref<const std::string&>().size()) + " bytes, more than " +
               grouped(limits_.max_string_bytes) + ", the limit on string length");
        complete_ = frames_.empty();
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        frames_.pop_back();
        complete_ = frames_.empty();
        break;
    }
    return true;
  }

  // Whether the top-level value has ended (so a parse error after it is about trailing bytes).
  bool complete() const { return complete_; }

 private:
  struct Frame {
    bool is_object;
    std::string key;  // the current member's key
    size_t count;     // members or elements so far
  };

  // A value starts: one more for the document, and one more element of the list it is in.
  void count_value() {
    if (!frames_.empty() && !frames_.back().is_object) ++frames_.back().count;
    if (++values_ > limits_.max_values)
      fail("more than " + grouped(limits_.max_values) + " values (numbers, strings, lists, objects), the limit on values");
  }

  // Where the parser is, as a field path: "decode.ms[3][7]" (cut short if long).
  std::string path() const {
    std::string text;
    for (const Frame& frame : frames_) {
      if (frame.is_object && frame.count > 0)
        text += (text.empty() ? "" : ".") + (frame.key.size() > 40 ? frame.key.substr(0, 40) + "..." : frame.key);
      else if (!frame.is_object && frame.count > 0)
        text += "[" + std::to_string(frame.count - 1) + "]";
      if (text.size() > 200) return text.substr(0, 200) + "...";
    }
    return text.empty() ? "the top level" : text;
  }

  [[noreturn]] void fail(const std::string& problem) const { throw_range(what_ + " at " + path() + ": " + problem); }

  const std::string& what_;
  const Limits& limits_;
  std::vector<Frame> frames_;
  size_t values_ = 0;
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
  ShapeCheck check(what, limits);
  json value;
  try {
    value = json::parse(
        text, [&check](int, json::parse_event_t event, json& parsed) { return check.on_event(event, parsed); },
        true);
  } catch (const json::parse_error& e) {
    if (check.complete()) throw_type(what + " has bytes after its JSON value, from " + position_text(text, e.byte));
    throw_type(what + " is not valid JSON (at " + position_text(text, e.byte) + ")");
  }
  // The parser takes a NUL byte for the end of the input: a value read whole before one is followed by
  // bytes all the same (a NUL cannot be inside a JSON value).
  const size_t nul = text.find('\0');
  if (nul != std::string::npos)
    throw_type(what + " has bytes after its JSON value, from " + position_text(text, nul + 1));
  return value;
}

}  // namespace kvlab::json_input
