#include "common/input_error.h"

#include "common/text_format.h"
#include "common/utf8.h"

namespace kvlab {

namespace {

// "options.runs" + "must be ..." -> "options.runs must be ...", and "workload" + ": the longest ..." ->
// "workload: the longest ...".
std::string path_and_problem(const std::string& path, const std::string& problem) {
  if (path.empty()) return problem;
  return path + (!problem.empty() && problem[0] == ':' ? "" : " ") + problem;
}

std::string scalar_text(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Appends `value` as JSON to `out`, stopping once `out` holds more than `max_bytes`: a large list is
// never rendered whole.
void append_json(const nlohmann::json& value, std::string& out, size_t max_bytes) {
  if (!value.is_structured()) {
    out += scalar_text(value);
    return;
  }
  out += value.is_array() ? '[' : '{';
  bool first = true;
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (out.size() > max_bytes) return;
    if (!first) out += ',';
    first = false;
    if (value.is_object()) out += scalar_text(it.key()) + ':';
    append_json(*it, out, max_bytes);
  }
  out += value.is_array() ? ']' : '}';
}

}  // namespace

std::string echo_value(const nlohmann::json& value) {
  try {
    if (value.is_string()) {
      const std::string& text = value.get_ref<const std::string&>();
      const size_t chars = utf8_length(text);
      if (chars <= kMaxEchoedChars) return "\"" + text + "\"";
      return "\"" + utf8_prefix(text, kMaxEchoedChars) + "\"… (" + grouped(chars) + " characters)";
    }
    std::string text;
    // A character is at most 4 bytes: this renders enough for the cap and little more.
    append_json(value, text, 4 * kMaxEchoedChars);
    if (utf8_length(text) <= kMaxEchoedChars) return text;
    const char* unit = value.is_array() ? " elements)" : value.is_object() ? " members)" : " characters)";
    const size_t count = value.is_structured() ? value.size() : utf8_length(text);
    return utf8_prefix(text, kMaxEchoedChars) + "… (" + grouped(count) + unit;
  } catch (...) {
    return "(a value that cannot be shown)";
  }
}
std::string bounded_text(const std::string& text, size_t max_chars) {
  // Room for the size note an echo already cut carries ("\"… (1,000,000,000 characters)"): such an
  // echo is kept as echo_value made it. A character is at least one byte: a text of no more bytes than
  // that is short enough without counting.
  constexpr size_t kNoteChars = 40;
  if (text.size() <= max_chars + kNoteChars) return text;
  const size_t chars = utf8_length(text);
  if (chars <= max_chars + kNoteChars) return text;
  return utf8_prefix(text, max_chars) + "… (" + grouped(chars) + " characters)";
}

namespace {

FieldError bounded_field(FieldError field) {
  field.path = bounded_text(field.path, kMaxEchoedChars);
  field.given = bounded_text(field.given, kMaxEchoedChars);
  return field;
}

}  // namespace

InputError::InputError(ErrorKind kind, FieldError field, const std::string& context, const std::string& problem)
    : std::runtime_error(
          bounded_text(context, kMaxProblemChars) +
          path_and_problem(bounded_text(field.path, kMaxEchoedChars), bounded_text(problem, kMaxProblemChars))),
      kind_(kind),
      field_(bounded_field(std::move(field))),
      context_(bounded_text(context, kMaxProblemChars)),
      problem_(bounded_text(problem, kMaxProblemChars)) {}

InputError InputError::as_typed(const std::string& typed) const {
  const std::string old_echo = "(got " + field_.given + ")";
  const size_t at = problem_.rfind(old_echo);
  if (field_.given.empty() || at == std::string::npos || utf8_length(typed) > kMaxEchoedChars) return *this;
  FieldError field = field_;
  field.given = typed;
  std::string problem = problem_;
  problem.replace(at, old_echo.size(), "(got " + typed + ")");
  return InputError(kind_, std::move(field), context_, problem);
}

nlohmann::json InputError::to_json() const {
  nlohmann::json error = {{"type", js_class()}, {"message", what()}};
  if (field_.path.empty()) return error;
  error["path"] = field_.path;
  if (!field_.given.empty()) error["given"] = field_.given;
  nlohmann::json allowed = nlohmann::json::object();
  if (field_.allowed.min) allowed["min"] = *field_.allowed.min;
  if (field_.allowed.max) allowed["max"] = *field_.allowed.max;
  if (field_.allowed.integer) allowed["integer"] = true;
  if (!field_.allowed.choices.empty()) allowed["choices"] = field_.allowed.choices;
  error["allowed"] = allowed;
  return error;
}

void throw_range(FieldError field, const std::string& problem) {
  throw InputError(ErrorKind::range, std::move(field), problem);
}
void throw_type(FieldError field, const std::string& problem) {
  throw InputError(ErrorKind::type, std::move(field), problem);
}
void throw_range(const std::string& message) { throw InputError(ErrorKind::range, message); }
void throw_type(const std::string& message) { throw InputError(ErrorKind::type, message); }

Allowed integers_from(long long lo, long long hi) {
  return {static_cast<double>(lo), static_cast<double>(hi), true, {}};
}
Allowed numbers_from(double lo, double hi) { return {lo, hi, false, {}}; }
Allowed one_of(std::vector<std::string> choices) { return {std::nullopt, std::nullopt, false, std::move(choices)}; }

}  // namespace kvlab
