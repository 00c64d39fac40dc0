#pragma once
// The flags that choose a model read from files, for any command that runs one:
//   --model NAME                          a model the build provides (model/shipped_models.h)
//   --checkpoint FILE --tokenizer FILE    a llama2.c checkpoint and its tokenizer file
//   --gguf FILE                           a GGUF file of the Llama architecture
// and loading it. An error inside a file names the flag, the file and the field.
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/input_sources.h"
#include "model/model.h"
#include "model/tokenizer.h"

namespace kvlab::cli {

struct ModelSourceFlags {
  std::string model, checkpoint, tokenizer, gguf;
};

// Adds the flags to `command`; CLI11 fills the returned struct.
std::shared_ptr<ModelSourceFlags> add_model_source_flags(CLI::App& command);

struct LoadedModel {
  std::unique_ptr<Model> model;
  std::unique_ptr<Tokenizer> tokenizer;
};

// Reads the chosen files, its weights stored in `weights` and its KV cache in `kv`, registering the
// files with `sources` so that errors name them. Throws InputError unless exactly one source is given.
LoadedModel load_model_source(const ModelSourceFlags& flags, NumberFormat weights, NumberFormat kv,
                              InputSources& sources);

}  // namespace kvlab::cli
