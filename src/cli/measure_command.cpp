#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/flags.h"
#include "cli/input_sources.h"
#include "cli/model_source.h"
#include "cli/output.h"
#include "measure/measure.h"
#include "measure/measure_report.h"

namespace kvlab::cli {

Action add_measure_command(CLI::App& app) {
  CLI::App* command =
      app.add_subcommand("measure", "time one answer with and without a KV cache, and the step-time grid");
  auto flags = std::make_shared<JsonFlags>(add_measure_flags(*command));
  auto model_flags = add_model_source_flags(*command);
  auto as_json = std::make_shared<bool>(false);
  command->add_flag("--json", *as_json, "print the result as JSON (the object Embind's measure returns)");
  return [command, flags, model_flags, as_json]() -> int {
    if (!command->parsed()) return -1;
    InputSources sources;
    sources.add_flags("options", *flags);
    return run_reporting(sources, [&] {
      const nlohmann::json given = flags->to_json();
      const LoadedModel loaded = load_measured_model(*model_flags, given, "options", sources);
      MeasureOptions options = read_measure_options(given, "options", loaded.ref());
      const nlohmann::json result = measure(options, terminal_progress()).to_json();
      if (*as_json)
        print_json(result);
      else
        std::cout << format_measure_report(result);
      return 0;
    });
  };
}

Action add_info_command(CLI::App& app) {
  CLI::App* command = app.add_subcommand("info", "print the model's size and the kernels' instruction set as JSON");
  auto flags = std::make_shared<JsonFlags>(add_measure_flags(*command));
  auto model_flags = add_model_source_flags(*command);
  return [command, flags, model_flags]() -> int {
    if (!command->parsed()) return -1;
    InputSources sources;
    sources.add_flags("options", *flags);
    return run_reporting(sources, [&] {
      const nlohmann::json given = flags->to_json();
      const LoadedModel loaded = load_measured_model(*model_flags, given, "options", sources);
      print_json(model_info(read_measure_options(given, "options", loaded.ref())));
      return 0;
    });
  };
}

}  // namespace kvlab::cli
