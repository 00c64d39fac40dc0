#include <iostream>
#include <memory>

#include "bench/kernel_bench.h"
#include "cli/commands.h"
#include "cli/flags.h"

namespace kvlab::cli {

struct BenchFlags {
  int answer_runs = 5;
  bool no_simulator = false;
  bool as_json = false;
};

Action add_bench_command(CLI::App& app) {
  CLI::App* command = app.add_subcommand("bench", "time the kernels, the decode step, one answer and the simulator");
  auto measure_flags = std::make_shared<JsonFlags>(add_measure_flags(*command));
  auto flags = std::make_shared<BenchFlags>();
  command->add_option("--answer-runs", flags->answer_runs, "runs per path of the one-answer timing (0 skips it; default 5)")
      ->check(CLI::Range(0, 100));
  command->add_flag("--no-simulator", flags->no_simulator, "skip timing the simulator");
  command->add_flag("--json", flags->as_json, "print the result as JSON");
  return [command, measure_flags, flags]() -> int {
    if (!command->parsed()) return -1;
    nlohmann::json given = measure_flags->to_json();
    if (!given.contains("min_sample_ms")) given["min_sample_ms"] = 20;  // longer samples than measure: less noise
    if (!given.contains("samples")) given["samples"] = 7;
    BenchOptions options{read_measure_options(given), flags->answer_runs, !flags->no_simulator};
    nlohmann::json result = run_kernel_bench(options, terminal_progress());
    std::cout << (flags->as_json ? result.dump(2) + "\n" : format_kernel_bench(result));
    return 0;
  };
}

}  // namespace kvlab::cli
