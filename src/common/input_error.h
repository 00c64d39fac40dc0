#pragma once
// Bad input from any boundary (CLI flag, JSON file, Embind call) is reported as an InputError. Its
// message names the field and the allowed range for a person; the same facts travel as data (the
// field's path, what was given, what is allowed), so that the page can mark the form field an error is
// about and the CLI can name the file and field, or the flag, that held it. The kind picks the JS error
// class at the wasm boundary.
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kvlab {

enum class ErrorKind { range, type };

// What a field may hold: numbers in [min, max] (whole ones if `integer`), or one of `choices`; either
// may be absent where the rule is not a range or a list (a list that must be increasing, a budget that
// must hold the longest request).
struct Allowed {
  std::optional<double> min, max;
  bool integer = false;
  std::vector<std::string> choices;
};

// The field an error is about: its path as the user would name it ("workload.requests[3].prompt"), what
// was given there as the message shows it ("0", "\"b200\""; empty when nothing was), and what is allowed.
struct FieldError {
  std::string path;
  std::string given;
  Allowed allowed;
};

class InputError : public std::runtime_error {
 public:
  // An error about one field: the message is the field's path, then `problem` ("must be an integer
  // from 1 to 100 (got 0)"), a space between them unless the problem starts with a colon.
  InputError(ErrorKind kind, FieldError field, const std::string& problem)
      : InputError(kind, std::move(field), "", problem) {}
  // An error about an input as a whole (a file that cannot be read, text that is not JSON): no field.
  InputError(ErrorKind kind, const std::string& message) : InputError(kind, FieldError{}, "", message) {}

  ErrorKind kind() const { return kind_; }
  // Name of the JavaScript error class that carries this error across Embind.
  const char* js_class() const { return kind_ == ErrorKind::type ? "TypeError" : "RangeError"; }
  // The field; its path is empty for an error about no one field.
  const FieldError& field() const { return field_; }
  // What the message says before the field's path ("policy paged:4: "; usually nothing).
  const std::string& context() const { return context_; }
  // What the message says after the field's path (all of it when there is no field).
  const std::string& problem() const { return problem_; }
  // The same error with `context` put before its message, the field kept.
  InputError in_context(const std::string& context) const {
    return InputError(kind_, field_, context + context_, problem_);
  }
  // The same error echoing `typed`, the text the user typed, as the value given: the JSON a flag's text
  // becomes can show it otherwise ("99999999999999999999" is read as 1e+20). Unchanged past the echo cap.
  InputError as_typed(const std::string& typed) const;
  // {"type", "message", "path", "given", "allowed": {"min", "max", "integer", "choices"}}, the absent
  // parts left out: what Embind hands to JS.
  nlohmann::json to_json() const;

 private:
  InputError(ErrorKind kind, FieldError field, const std::string& context, const std::string& problem);

  ErrorKind kind_;
  FieldError field_;
  std::string context_, problem_;
};

[[noreturn]] void throw_range(FieldError field, const std::string& problem);
[[noreturn]] void throw_type(FieldError field, const std::string& problem);
[[noreturn]] void throw_range(const std::string& message);
[[noreturn]] void throw_type(const std::string& message);

// Allowed values: integers or numbers from lo to hi, or one of a list of names.
Allowed integers_from(long long lo, long long hi);
Allowed numbers_from(double lo, double hi);
Allowed one_of(std::vector<std::string> choices);

// The most characters of a given value a message echoes: enough to recognise it, small enough that a
// seven-million-element list makes a one-line message.
constexpr size_t kMaxEchoedChars = 200;

// The most characters of the problem an error states (after the field's path): our own words, with the
// values they echo; none of ours is longer than a few hundred.
constexpr size_t kMaxProblemChars = 1000;

// `text` cut after max_chars characters (never inside a UTF-8 character), followed by its whole size:
// "aaa… (1,048,576 characters)"; kept whole within a size note's 40 characters of max_chars. Every InputError bounds its path and given value so
// (kMaxEchoedChars) and its problem and context (kMaxProblemChars): a message is one short line whatever
// the input held.
std::string bounded_text(const std::string& text, size_t max_chars);

// What the user gave, as every message and FieldError::given echo it: a string as its text in quotes,
// anything else as JSON; past kMaxEchoedChars characters the text stops and the whole size follows
// ("[1,2,3,… (7,000,000 elements)", "\"aaa…\"… (5,000 characters)"). Renders little more than it shows,
// and never throws.
std::string echo_value(const nlohmann::json& value);

}  // namespace kvlab
