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
#include "measure/measure_options.h"
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

// Whether any of the flags was given (a command that also runs presets measures a preset without them).
bool model_source_given(const ModelSourceFlags& flags);

// Reads the chosen files, its weights stored in `weights` and its KV cache in `kv`, registering the
// files with `sources` so that errors name them. Throws InputError unless exactly one source is given.
LoadedModel load_model_source(const ModelSourceFlags& flags, NumberFormat weights, NumberFormat kv,
                              InputSources& sources);

// For a command that measures (replay): the model the flags choose, loaded with the formats of its
// measure options' "weights" and "kv" (default f32), and the reference the options take (named as the
// results name it: the shipped model's name, or the file's base name).
struct MeasuredFileModel {
  LoadedModel loaded;
  FileModelRef ref;
};
MeasuredFileModel load_measured_model(const ModelSourceFlags& flags, const nlohmann::json& measure,
                                      InputSources& sources);

}  // namespace kvlab::cli
