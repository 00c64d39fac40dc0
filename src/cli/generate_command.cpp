#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/flags.h"
#include "cli/input_sources.h"
#include "cli/model_source.h"
#include "model_files/text_generation.h"

namespace kvlab::cli {

namespace {

struct GenerateFlags {
  std::string prompt, tokens = "64", weights = "f32", kv = "f32";
  bool json = false;
};

// --tokens as an integer; its exact range depends on the model and the prompt (generate_text checks it).
int parse_tokens(const std::string& text) {
  const nlohmann::json value = flag_value(text);
  if (!value.is_number_integer() || value.get<long long>() < 1 || value.get<long long>() > 8192)
    throw_range(
        {"tokens", text, integers_from(1, 8192)},
        "must be an integer from 1 to 8192, at most the model's positions less the prompt's (got " + text + ")");
  return value.get<int>();
}

}  // namespace

Action add_generate_command(CLI::App& app) {
  CLI::App* command = app.add_subcommand("generate", "write text with a real model (greedy), from a prompt");
  auto model_flags = add_model_source_flags(*command);
  auto flags = std::make_shared<GenerateFlags>();
  command->add_option("--prompt", flags->prompt, "the text to continue (default: none, a story from its start)");
  command->add_option("--tokens", flags->tokens, "tokens to generate, from 1 (default 64); BOS or EOS stops sooner");
  command->add_option("--weights", flags->weights, "weight format: f32 (default) or bf16");
  command->add_option("--kv", flags->kv, "KV cache format: f32 (default), bf16 or f16");
  command->add_flag("--json", flags->json, "print {\"prompt_tokens\", \"tokens\", \"text\"} as JSON");
  return [command, model_flags, flags]() -> int {
    if (!command->parsed()) return -1;
    InputSources sources;
    for (const char* name : {"prompt", "tokens", "weights", "kv"}) sources.add_flag(name, std::string("--") + name);
    return run_reporting(sources, [&] {
      const int n_tokens = parse_tokens(flags->tokens);
      const NumberFormat weights = parse_number_format(flags->weights, model_weight_formats(), "weights");
      const NumberFormat kv = parse_number_format(flags->kv, model_kv_formats(), "kv");
      LoadedModel loaded = load_model_source(*model_flags, weights, kv, sources);
      const TextGeneration out = generate_text(*loaded.model, *loaded.tokenizer, flags->prompt, n_tokens);
      if (flags->json) {
        const nlohmann::ordered_json result = {
            {"prompt_tokens", out.prompt_tokens}, {"tokens", out.tokens}, {"text", out.text}};
        // Byte tokens may leave a character unfinished where generation stopped: shown as U+FFFD.
        std::cout << result.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
      } else {
        const Tokenizer& tokenizer = *loaded.tokenizer;
        const size_t bos = tokenizer.adds_bos() ? 1 : 0;
        const std::vector<int> prompt_text(out.prompt_tokens.begin() + bos, out.prompt_tokens.end());
        std::cout << tokenizer.decode(prompt_text, bos ? out.prompt_tokens.front() : -1) << out.text << "\n";
      }
      return 0;
    });
  };
}

}  // namespace kvlab::cli
