#include "cli/input_sources.h"

#include <iostream>
#include <optional>

namespace kvlab::cli {

namespace {

// The part of `path` below `root` ("steps.decode.ms[0]" under "steps": "decode.ms[0]"), or nothing
// if `path` is not under it.
std::optional<std::string> below(const std::string& path, const std::string& root) {
  if (path == root) return std::string();
  if (path.compare(0, root.size(), root) != 0) return std::nullopt;
  if (path[root.size()] == '.') return path.substr(root.size() + 1);
  if (path[root.size()] == '[') return path.substr(root.size());
  return std::nullopt;
}

std::string joined(const std::string& parent, const std::string& rest) {
  if (parent.empty() || rest.empty()) return parent + rest;
  return parent + (rest[0] == '[' ? "" : ".") + rest;
}

// "field decode.ms[0][0]" + "must be ..." as the message would join them.
std::string with_problem(const std::string& subject, const std::string& problem) {
  return subject + (!problem.empty() && problem[0] == ':' ? "" : " ") + problem;
}

// The last name in a path: "model" of "options.model".
std::string last_name(const std::string& path) { return path.substr(path.rfind('.') + 1); }

}  // namespace

void InputSources::add_file(const std::string& root, const std::string& flag, const std::string& file,
                            const std::string& root_in_file) {
  sources_.push_back({root, flag, file, root_in_file, nullptr, ""});
}

void InputSources::add_flags(const std::string& root, const JsonFlags& flags) {
  sources_.push_back({root, "", "", "", &flags, ""});
}

void InputSources::add_flag(const std::string& root, const std::string& flag, const std::string& typed) {
  sources_.push_back({root, flag, "", "", nullptr, typed});
}

std::string InputSources::describe(const InputError& error) const {
  const std::string& path = error.field().path;
  const Source* best = nullptr;
  std::string rest;
  for (const Source& source : sources_) {
    auto under = below(path, source.root);
    if (under && (!best || source.root.size() > best->root.size())) {
      best = &source;
      rest = *under;
    }
  }
  const std::string plain = "kvlab: " + std::string(error.what());
  if (path.empty() || !best) return plain;
  const std::string start = "kvlab: " + error.context();
  if (!best->file.empty()) {
    const std::string field = joined(best->root_in_file, rest);
    const std::string where = best->flag + " " + best->file + ": ";
    return field.empty() ? "kvlab: " + where + error.what()
                         : start + where + with_problem("field " + field, error.problem());
  }
  const std::string flag = best->flags ? best->flags->flag_for(rest) : best->flag;
  if (flag.empty()) {
    // An object whose fields flags fill (a model too large): the flags given for it are to blame.
    const std::string given = best->flags && !rest.empty() ? best->flags->given_under(rest) : "";
    return given.empty() ? plain : start + with_problem("the " + last_name(rest) + " of " + given, error.problem());
  }
  const std::string typed = best->flags ? best->flags->typed_for(rest) : rest.empty() ? best->typed : "";
  const InputError shown = number_shown_otherwise(typed) ? error.as_typed(typed) : error;
  // A flag left out holds its default, which clashes with a flag given ("--n-heads" of a preset).
  const bool left_out = best->flags && !best->flags->given(rest);
  return "kvlab: " + shown.context() +
         with_problem(flag + (left_out ? " (not given, so its default)" : ""), shown.problem());
}

int run_reporting(const InputSources& sources, const std::function<int()>& body) {
  try {
    return body();
  } catch (const InputError& error) {
    std::cerr << sources.describe(error) << "\n";
    return 2;
  }
}

}  // namespace kvlab::cli
