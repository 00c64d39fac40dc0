#include "common/input_error.h"

namespace kvlab {

namespace {

// "options.runs" + "must be ..." -> "options.runs must be ...", and "workload" + ": the longest ..." ->
// "workload: the longest ...".
std::string path_and_problem(const std::string& path, const std::string& problem) {
  if (path.empty()) return problem;
  return path + (!problem.empty() && problem[0] == ':' ? "" : " ") + problem;
}

}  // namespace

InputError::InputError(ErrorKind kind, FieldError field, const std::string& context, const std::string& problem)
    : std::runtime_error(context + path_and_problem(field.path, problem)),
      kind_(kind),
      field_(std::move(field)),
      context_(context),
      problem_(problem) {}

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
