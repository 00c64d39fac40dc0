#include "cli/model_source.h"

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#endif

#include <filesystem>
#include <system_error>
#include <vector>

#include "cli/flags.h"
#include "common/input_error.h"
#include "common/json_fields.h"
#include "model_files/ggml_tensor_types.h"
#include "model_files/gguf_llama.h"
#include "model_files/model_file.h"
#include "model_files/shipped_models.h"

namespace kvlab::cli {

namespace fs = std::filesystem;

namespace {

#ifdef __EMSCRIPTEN__
// Under Node the tool is the script Node runs (process.argv[1]); its path, as UTF-8, into `buffer`.
// The body is JavaScript, which clang-format would rewrite ("!==" into "!= =").
// clang-format off
EM_JS(int, node_script_path, (char* buffer, int size), {
  var script = typeof process !== 'undefined' && process.argv && process.argv[1] ? process.argv[1] : '';
  return script ? stringToUTF8(require('path').resolve(script), buffer, size) : 0;
});
// clang-format on
#endif

// This program's file: the native executable, or the wasm tool's script; empty if unknown.
fs::path own_path() {
#ifdef __EMSCRIPTEN__
  char buffer[4096];
  return node_script_path(buffer, sizeof buffer) > 0 ? fs::path(buffer) : fs::path();
#else
  std::error_code error;
  const fs::path executable = fs::canonical("/proc/self/exe", error);
  return error ? fs::path() : executable;
#endif
}

// Where build/models/<directory> may be: beside the program (build/native/src/cli/kvlab, or the wasm
// tool build/wasm/src/cli/kvlab-cli.js, which sees the real file system through NODERAWFS), or under the
// current folder or one of its parents (the repository).
fs::path find_shipped_directory(const ShippedModel& shipped) {
  std::vector<fs::path> candidates;
  std::error_code error;
  const fs::path program = own_path();
  if (!program.empty()) candidates.push_back(program.parent_path() / "../../../models" / shipped.directory);
  for (fs::path folder = fs::current_path(error); !error && !folder.empty(); folder = folder.parent_path()) {
    candidates.push_back(folder / "build/models" / shipped.directory);
    if (folder == folder.parent_path()) break;
  }
  for (const fs::path& candidate : candidates)
    if (fs::is_regular_file(candidate / shipped.checkpoint, error)) return candidate;
  throw_range({"model", "\"" + shipped.name + "\"", {}},
              shipped.name + " is not in build/models/" + shipped.directory + ": run scripts/build, which extracts it");
}

}  // namespace

std::shared_ptr<ModelSourceFlags> add_model_source_flags(CLI::App& command) {
  auto flags = std::make_shared<ModelSourceFlags>();
  std::string names;
  for (const ShippedModel& shipped : shipped_models()) names += (names.empty() ? "" : ", ") + shipped.name;
  command.add_option("--model", flags->model, "a model the build provides: " + names);
  command.add_option("--checkpoint", flags->checkpoint, "a llama2.c checkpoint file (with --tokenizer)");
  command.add_option("--tokenizer", flags->tokenizer, "the llama2.c tokenizer file of --checkpoint");
  command.add_option("--gguf", flags->gguf,
                     "a GGUF file of the Llama or Qwen2 architecture (" + supported_ggml_type_names() + " weights)");
  return flags;
}

LoadedModel load_model_source(const ModelSourceFlags& flags, NumberFormat weights, NumberFormat kv,
                              InputSources& sources) {
  const int given = !flags.model.empty() + !flags.checkpoint.empty() + !flags.gguf.empty();
  if (given != 1 || flags.checkpoint.empty() != flags.tokenizer.empty())
    throw_range("give one model: --model NAME, --checkpoint FILE with --tokenizer FILE, or --gguf FILE");
  ModelFile file;
  LoadedModel loaded;
  if (!flags.gguf.empty()) {
    loaded.name = fs::path(flags.gguf).filename().string();
    sources.add_file("gguf", "--gguf", flags.gguf);
    file = read_gguf_llama(read_model_file(flags.gguf, "--gguf"));
  } else {
    std::string checkpoint_path = flags.checkpoint, tokenizer_path = flags.tokenizer;
    std::string checkpoint_flag = "--checkpoint", tokenizer_flag = "--tokenizer";
    loaded.name = fs::path(flags.checkpoint).filename().string();
    if (!flags.model.empty()) {
      loaded.name = flags.model;
      sources.add_flag("model", "--model");
      const ShippedModel& shipped = find_shipped_model(flags.model, "model");
      const fs::path directory = find_shipped_directory(shipped);
      checkpoint_path = (directory / shipped.checkpoint).string();
      tokenizer_path = (directory / shipped.tokenizer).string();
      checkpoint_flag = tokenizer_flag = "--model";
    }
    sources.add_file("checkpoint", checkpoint_flag, checkpoint_path);
    sources.add_file("tokenizer", tokenizer_flag, tokenizer_path);
    const ByteBuffer checkpoint = read_model_file(checkpoint_path, checkpoint_flag);
    const ByteBuffer tokenizer = read_model_file(tokenizer_path, tokenizer_flag);
    file = read_llama2c_files(checkpoint.data(), checkpoint.size(), tokenizer.data(), tokenizer.size());
  }
  file.tensors.config.weights = weights;
  file.tensors.config.kv = kv;
  loaded.tokenizer = std::make_unique<Tokenizer>(std::move(file.vocabulary));
  loaded.model = std::make_unique<Model>(pack_weights(std::move(file.tensors)));
  return loaded;
}

LoadedModel load_measured_model(const ModelSourceFlags& flags, const nlohmann::json& measure_options,
                                const std::string& path, InputSources& sources) {
  if (flags.model.empty() && flags.checkpoint.empty() && flags.tokenizer.empty() && flags.gguf.empty()) return {};
  const auto format = [&](const char* field, const std::vector<NumberFormat>& formats) {
    return parse_number_format(fields::read_string(measure_options, path, field, "f32"), formats,
                               fields::join(path, field));
  };
  return load_model_source(flags, format("weights", model_weight_formats()), format("kv", model_kv_formats()), sources);
}

}  // namespace kvlab::cli
