#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/flags.h"
#include "cli/input_sources.h"
#include "cli/output.h"
#include "cli/policy_help.h"
#include "policy/policy_registry.h"
#include "sim/simulate.h"

namespace kvlab::cli {

struct SimulateFlags {
  std::string steps_file, workload_file;
  std::vector<std::string> policies;
  std::string timeline_requests = "60";
  bool queue_timeline = false;
  bool as_json = false;
  JsonFlags options;  // the KV memory and goodput fields of SimulateOptions, read as Embind reads them
};

Action add_simulate_command(CLI::App& app) {
  CLI::App* command =
      app.add_subcommand("simulate", "replay a request queue on a step-time table under serving policies");
  command->footer(policy_help_footer());
  auto flags = std::make_shared<SimulateFlags>();
  command
      ->add_option("--steps", flags->steps_file,
                   "step-time table (steps.json, as `measure --json` prints under \"steps\")")
      ->required();
  command->add_option("--workload", flags->workload_file, "workload.json: generated or explicit requests")->required();
  command->add_option("--policy", flags->policies,
                      "policy, repeatable: " + policy::policy_registry().name_forms_text() +
                          " (default: the first four, B = " + std::to_string(policy::kLabBatchRows) + ")");
  command->add_option("--timeline", flags->timeline_requests,
                      "requests kept in each policy's slot timeline (default 60)");
  command->add_flag("--queue-timeline", flags->queue_timeline,
                    "with --json: add each policy's whole-queue playback (queue_timeline, memory_timeline)");
  flags->options.add(*command, "kv_tokens", "",
                     "KV memory budget of " + kv_budget_families_text() + ", in tokens (default: no limit)");
  flags->options.add(*command, "kv_bytes", "",
                     "KV memory budget in bytes, at the table's model.kv_bytes_per_token (instead of --kv-tokens)");
  flags->options.add(*command, "block_tokens", "", "KV block size in tokens (default 16)");
  flags->options.add(*command, "ttft_target_ms", "", "goodput: time-to-first-token target, ms (default 1000)");
  flags->options.add(*command, "tpot_target_ms", "", "goodput: time-per-output-token target, ms (default 100)");
  command->add_flag("--json", flags->as_json, "print one JSON object with a key per policy");
  return [command, flags]() -> int {
    if (!command->parsed()) return -1;
    InputSources sources;
    sources.add_file("workload", "--workload", flags->workload_file);
    sources.add_flags("options", flags->options);
    sources.add_flag("options.timeline_requests", "--timeline", flags->timeline_requests);
    sources.add_flag("policies", "--policy");
    return run_reporting(sources, [&] {
      nlohmann::json steps = read_json_file(flags->steps_file, "--steps");
      nlohmann::json workload = read_json_file(flags->workload_file, "--workload");
      // A whole `measure --json` result is accepted too: its table is under "steps".
      const bool measure_result = steps.is_object() && steps.contains("steps") && !steps.contains("decode");
      if (measure_result) steps = steps["steps"];
      sources.add_file("steps", "--steps", flags->steps_file, measure_result ? "steps" : "");
      std::vector<std::string> policies = flags->policies.empty() ? policy::default_policies() : flags->policies;
      nlohmann::json options = flags->options.to_json();
      options["timeline_requests"] = flag_value(flags->timeline_requests);
      options["queue_timeline"] = flags->queue_timeline;
      nlohmann::json result =
          sim::simulate_json(steps, workload, policies, sim::read_simulate_options(options), terminal_progress());
      if (flags->as_json)
        print_json(result);
      else
        std::cout << sim::format_policy_table(result);
      return 0;
    });
  };
}

}  // namespace kvlab::cli
