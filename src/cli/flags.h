#pragma once
// Flags that fill a JSON options object, so that the command line goes through the very validation
// the Embind interface uses. A flag is named after its field (`--prompt-tokens` fills `prompt_tokens`).
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "measure/measure.h"
#include "model/buffer.h"

namespace kvlab::cli {

class JsonFlags {
 public:
  // Adds `--field-name` (underscores become dashes) for `field` of the object at `object_path`
  // ("" for the top level, "model" for options.model). Lists are given comma-separated. An error about
  // the field is reported with its flag (input_sources.h). `absent`, if not null, is the field's value
  // when the flag is not given (a command-line default that differs from the library's).
  void add(CLI::App& command, const std::string& field, const std::string& object_path, const std::string& help,
           bool is_list = false, bool is_string = false, const nlohmann::json& absent = nullptr);

  // The given flags as a JSON object (absent flags are absent fields, so they take defaults).
  nlohmann::json to_json() const;

  // The flag that fills the field at `path` in that object ("model.d_model" or "decode_rows[2]"), or ""
  // if none does.
  std::string flag_for(const std::string& path) const;
  // Whether the flag filling the field at `path` was given on the command line.
  bool given(const std::string& path) const;
  // The text typed for the flag that fills exactly the field at `path`, or "" if none did.
  std::string typed_for(const std::string& path) const;
  // The given flags filling fields of the object at `path`, as typed: "--vocab 65536 --d-model 4096".
  std::string given_under(const std::string& path) const;

 private:
  struct Flag {
    std::string field, object_path, value;
    bool is_list, is_string;
    nlohmann::json absent;
    CLI::Option* option;
  };
  static std::string field_path(const Flag& flag);  // "model.d_model"
  // The flag filling the field at `path` (or an entry of it, for a list), or null.
  const Flag* flag_at(const std::string& path) const;
  std::vector<std::unique_ptr<Flag>> flags_;  // CLI11 holds pointers to each value: keep them in place
};

// A flag's text as JSON: a number if it reads as one, else the string (for the validator to name).
nlohmann::json flag_value(const std::string& text, bool is_string = false);

// Whether `text` reads as a number that JSON shows otherwise ("1e9" as 1000000000.0, an integer past
// 64 bits as 1e+20): an error about it then echoes the text as typed.
bool number_shown_otherwise(const std::string& text);

// The batch size --slots gives: a whole number goes on to the policy names, which check its range; any
// other text is refused here with that range, naming the flag.
int slots_flag(const std::string& text);

// Adds the flags of MeasureOptions (and its model fields) to a command.
JsonFlags add_measure_flags(CLI::App& command);

// Reads a whole file; throws InputError naming `flag` if it cannot be read.
std::string read_file(const std::string& path, const std::string& flag);

// Reads a whole model file (up to kMaxModelFileBytes, model_file.h), once into its buffer; throws
// InputError naming `flag` if it cannot be read, is larger, or is not a regular file (/dev/zero, a pipe).
ByteBuffer read_model_file(const std::string& path, const std::string& flag);

// Reads and parses a JSON file given with `flag`; an error names both ("--steps bad.json is not valid JSON").
nlohmann::json read_json_file(const std::string& path, const std::string& flag);

// A progress callback that draws a one-line bar on stderr when stderr is a terminal, else nothing.
ProgressFn terminal_progress();

}  // namespace kvlab::cli
