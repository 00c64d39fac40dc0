#pragma once
// The flags that choose a model read from files, for any command that runs one:
//   --model NAME                          a model the build provides (model_files/shipped_models.h)
//   --checkpoint FILE --tokenizer FILE    a llama2.c checkpoint and its tokenizer file
//   --gguf FILE                           a GGUF file of the Llama or Qwen2 architecture
// and loading it. An error inside a file names the flag, the file and the field.
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/input_sources.h"
#include "measure/measure_options.h"
#include "model/model.h"
#include "model_files/tokenizer.h"

namespace kvlab::cli {

struct ModelSourceFlags {
  std::string model, checkpoint, tokenizer, gguf;
};

// Adds the flags to `command`; CLI11 fills the returned struct.
std::shared_ptr<ModelSourceFlags> add_model_source_flags(CLI::App& command);

struct LoadedModel {
  std::unique_ptr<Model> model;
  std::unique_ptr<Tokenizer> tokenizer;
  std::string name;  // what --model named, or the file's name

  // The loaded model for measuring options (read_measure_options); empty when nothing is loaded.
  FileModelRef ref() const { return {model.get(), tokenizer.get(), name}; }
};

// Reads the chosen files, its weights stored in `weights` and its KV cache in `kv`, registering the
// files with `sources` so that errors name them. Throws InputError unless exactly one source is given.
LoadedModel load_model_source(const ModelSourceFlags& flags, NumberFormat weights, NumberFormat kv,
                              InputSources& sources);

// For the commands that measure (measure, info, lab, bench): the model the flags choose, loaded in the
// weight and KV formats of `measure_options` (the measure options object at `path`, built from flags);
// nothing when no model flag is given (the options' preset is measured).
LoadedModel load_measured_model(const ModelSourceFlags& flags, const nlohmann::json& measure_options,
                                const std::string& path, InputSources& sources);

}  // namespace kvlab::cli
