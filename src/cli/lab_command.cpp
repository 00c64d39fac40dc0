#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/flags.h"
#include "cli/input_sources.h"
#include "cli/model_source.h"
#include "cli/output.h"
#include "common/input_error.h"
#include "experiments/lab.h"
#include "policy/policy_registry.h"

namespace kvlab::cli {

struct LabFlags {
  std::string workload_file;
  std::string requests;
  std::string slots;
  bool as_json = false;
};

Action add_lab_command(CLI::App& app) {
  CLI::App* command = app.add_subcommand(
      "lab", "measure, then replay 1,000 requests under the four policies: the whole published lab on this machine");
  auto measure_flags = std::make_shared<JsonFlags>(add_measure_flags(*command));
  auto model_flags = add_model_source_flags(*command);
  auto flags = std::make_shared<LabFlags>();
  command->add_option("--workload", flags->workload_file, "workload.json instead of the published lab's queue");
  command->add_option("--requests", flags->requests,
                      "requests in the default queue (default 1000; a --workload file sets its own)");
  command->add_option("--slots", flags->slots, "batch size B of static:B and continuous:B (default 16)");
  command->add_flag("--json", flags->as_json, "print the whole result as JSON (what Embind's run returns)");
  return [command, measure_flags, model_flags, flags]() -> int {
    if (!command->parsed()) return -1;
    InputSources sources;
    sources.add_flags("options.measure", *measure_flags);
    if (!flags->workload_file.empty()) sources.add_file("options.workload", "--workload", flags->workload_file);
    sources.add_flag("options.workload.count", "--requests", flags->requests);
    sources.add_flag("options.policies", "--slots", flags->slots);
    return run_reporting(sources, [&] {
      // A file's queue is the file's: --requests changing it would make the report describe a queue
      // the file does not hold.
      if (!flags->workload_file.empty() && command->count("--requests"))
        throw_range(
            "--requests sets the size of the published lab's queue, not of a --workload file's (set \"count\" in the file)");
      nlohmann::json options = {{"measure", measure_flags->to_json()}};
      const LoadedModel loaded = load_measured_model(*model_flags, options["measure"], "options.measure", sources);
      options["workload"] = flags->workload_file.empty() ? experiments::default_workload()
                                                         : read_json_file(flags->workload_file, "--workload");
      if (command->count("--requests")) options["workload"]["count"] = flag_value(flags->requests);
      if (command->count("--slots")) options["policies"] = policy::default_policies(slots_flag(flags->slots));
      nlohmann::json result =
          experiments::run_lab(experiments::read_lab_options(options, "options", loaded.ref()), terminal_progress());
      if (flags->as_json)
        print_json(result);
      else
        std::cout << experiments::format_lab_report(result);
      return 0;
    });
  };
}

}  // namespace kvlab::cli
