#pragma once
// Where each part of a command's input came from, so that an InputError is reported in the words the
// user typed: the file and the field inside it for a JSON file, the flag for a flag. The library names
// fields by their path in the options it reads ("steps.decode.ms[0][0]", "options.model.d_model"); each
// command says which of those paths came from which file or flag.
#include <functional>
#include <string>
#include <vector>

#include "cli/flags.h"
#include "common/input_error.h"

namespace kvlab::cli {

class InputSources {
 public:
  // The fields under `root` ("steps", "options.workload") were read from `file`, given with `flag`;
  // inside the file they sit under `root_in_file` ("" at its top level, "steps" in a measure result).
  void add_file(const std::string& root, const std::string& flag, const std::string& file,
                const std::string& root_in_file = "");
  // The fields under `root` were filled by `flags`, each flag the field named after it.
  void add_flags(const std::string& root, const JsonFlags& flags);
  // The field at `root` (and its entries, for a list) came from `flag`, typed as `typed` (if given).
  void add_flag(const std::string& root, const std::string& flag, const std::string& typed = "");

  // The error as one line for stderr, "kvlab: ...", naming the file and field or the flag.
  std::string describe(const InputError& error) const;

 private:
  struct Source {
    std::string root, flag, file, root_in_file;
    const JsonFlags* flags;
    std::string typed;
  };
  std::vector<Source> sources_;
};

// Runs a command's body; an InputError is printed as `sources` describe it, with exit status 2.
int run_reporting(const InputSources& sources, const std::function<int()>& body);

}  // namespace kvlab::cli
