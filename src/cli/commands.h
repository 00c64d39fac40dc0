#pragma once
// The kvlab command line: one function per subcommand registers its flags on the app and returns the
// action to run once the flags are parsed. The same source builds natively and, compiled to wasm, as
// the Node tool behind `scripts/kvlab --wasm`, so both take the same words and print the same output.
#include <functional>

#include <CLI/CLI.hpp>

namespace kvlab::cli {

using Action = std::function<int()>;  // returns the exit status

Action add_measure_command(CLI::App& app);
Action add_simulate_command(CLI::App& app);
Action add_lab_command(CLI::App& app);
Action add_info_command(CLI::App& app);
Action add_bench_command(CLI::App& app);
Action add_replay_command(CLI::App& app);
Action add_roofline_command(CLI::App& app);
Action add_generate_command(CLI::App& app);

}  // namespace kvlab::cli
