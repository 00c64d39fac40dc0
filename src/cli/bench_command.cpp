#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/flags.h"
#include "cli/input_sources.h"
#include "cli/model_source.h"
#include "cli/output.h"
#include "experiments/kernel_bench.h"
#include "model/block_format.h"

namespace kvlab::cli {

struct BenchFlags {
  std::string answer_runs;
  bool no_simulator = false;
  bool weight_formats = false;
  bool kv_formats = false;
  bool thread_scaling = false;
  bool as_json = false;
};

Action add_bench_command(CLI::App& app) {
  CLI::App* command = app.add_subcommand("bench", "time the kernels, the decode step, one answer and the simulator");
  auto measure_flags = std::make_shared<JsonFlags>(add_measure_flags(*command));
  auto model_flags = add_model_source_flags(*command);
  auto flags = std::make_shared<BenchFlags>();
  command->add_option("--answer-runs", flags->answer_runs,
                      "runs per path of the one-answer timing (0 skips it; default 5)");
  command->add_flag("--no-simulator", flags->no_simulator, "skip timing the simulator");
  std::string stored = "f32, bf16";
  for (const BlockFormatTraits& t : block_formats()) stored += std::string(", ") + t.name;
  command->add_flag("--weight-formats", flags->weight_formats,
                    "also time the 1- and 16-row steps with the weights in " + stored + ", interleaved");
  command->add_flag(
      "--kv-formats", flags->kv_formats,
      "also time 1 and 16 rows at context 64 and the longest with the KV cache in f32, bf16 and f16, interleaved");
  command->add_flag("--thread-scaling", flags->thread_scaling,
                    "also time the 1- and 16-row steps and a 128-token prefill on 1, 2, 4 .. --threads threads, "
                    "and an empty fork and join (the other sections run on one thread)");
  command->add_flag("--json", flags->as_json, "print the result as JSON");
  return [command, measure_flags, model_flags, flags]() -> int {
    if (!command->parsed()) return -1;
    InputSources sources;
    sources.add_flags("options.measure", *measure_flags);
    sources.add_flag("options.answer_runs", "--answer-runs");
    return run_reporting(sources, [&] {
      nlohmann::json given = {{"measure", measure_flags->to_json()},
                              {"simulator", !flags->no_simulator},
                              {"weight_formats", flags->weight_formats},
                              {"kv_formats", flags->kv_formats},
                              {"thread_scaling", flags->thread_scaling}};
      if (command->count("--answer-runs")) given["answer_runs"] = flag_value(flags->answer_runs);
      const LoadedModel loaded = load_measured_model(*model_flags, given["measure"], "options.measure", sources);
      experiments::BenchOptions options = experiments::read_bench_options(given, "options", loaded.ref());
      nlohmann::json result = experiments::run_kernel_bench(options, terminal_progress());
      if (flags->as_json)
        print_json(result);
      else
        std::cout << experiments::format_kernel_bench(result);
      return 0;
    });
  };
}

}  // namespace kvlab::cli
