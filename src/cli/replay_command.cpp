#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/flags.h"
#include "cli/input_sources.h"
#include "cli/model_source.h"
#include "cli/output.h"
#include "cli/policy_help.h"
#include "common/input_error.h"
#include "experiments/replay.h"
#include "experiments/replay_report.h"
#include "policy/policy_registry.h"

namespace kvlab::cli {

struct ReplayFlags {
  std::string workload_file;
  std::string requests;
  std::string nocache_requests;
  std::string slots;
  std::vector<std::string> policies;
  std::string timeline_requests;
  std::string kv_tokens;
  std::string block_tokens;
  std::string after_prompt_rounds;
  bool as_json = false;
};

Action add_replay_command(CLI::App& app) {
  CLI::App* command = app.add_subcommand(
      "replay",
      "measure, serve a request queue for real under each policy, and compare with the simulator's prediction; "
      "on a model read from files (--model, --checkpoint, --gguf) the queue is story openings and the report "
      "shows the stories");
  auto measure_flags = std::make_shared<JsonFlags>(add_measure_flags(*command));
  auto model_flags = add_model_source_flags(*command);
  command->footer(policy_help_footer());
  auto flags = std::make_shared<ReplayFlags>();
  command->add_option("--workload", flags->workload_file,
                      "workload.json instead of the default queue (64 requests at t = 0, prompts 8-32, answers 16-48)");
  command->add_option("--requests", flags->requests, "requests in the generated queue (default 64)");
  command->add_option("--nocache-requests", flags->nocache_requests,
                      uncached_families_text() + " replays only the first this many (default 16)");
  command->add_option("--slots", flags->slots, "B of static:B and continuous:B in the default policies (default 8)");
  command->add_option("--policy", flags->policies,
                      "policy, repeatable: " + policy::policy_registry().name_forms_text());
  command->add_option("--kv-tokens", flags->kv_tokens,
                      "KV memory budget of " + kv_budget_families_text() + ", in tokens (default: no limit)");
  command->add_option("--block-tokens", flags->block_tokens, "KV block size in tokens (default 16)");
  command->add_option("--timeline", flags->timeline_requests, "requests kept in each slot timeline (default 60)");
  command->add_option(
      "--after-prompt-rounds", flags->after_prompt_rounds,
      "rounds of each cell in measuring passes by what ran before them (the after-prompt and prompt-pass parts), 0 for none (default 8)");
  command->add_flag("--json", flags->as_json,
                    "print one JSON object with a key per policy (what Embind's replay returns)");
  return [command, measure_flags, model_flags, flags]() -> int {
    if (!command->parsed()) return -1;
    InputSources sources;
    sources.add_flags("options.measure", *measure_flags);
    if (!flags->workload_file.empty()) sources.add_file("options.workload", "--workload", flags->workload_file);
    sources.add_flag("options.workload.count", "--requests", flags->requests);
    sources.add_flag("options.policies", flags->policies.empty() ? "--slots" : "--policy", flags->slots);
    sources.add_flag("options.nocache_requests", "--nocache-requests", flags->nocache_requests);
    sources.add_flag("options.timeline_requests", "--timeline", flags->timeline_requests);
    sources.add_flag("options.kv_tokens", "--kv-tokens", flags->kv_tokens);
    sources.add_flag("options.block_tokens", "--block-tokens", flags->block_tokens);
    sources.add_flag("options.after_prompt_rounds", "--after-prompt-rounds", flags->after_prompt_rounds);
    return run_reporting(sources, [&] {
      nlohmann::json options = {{"measure", measure_flags->to_json()}};
      const LoadedModel loaded = load_measured_model(*model_flags, options["measure"], "options.measure", sources);
      if (!flags->workload_file.empty()) options["workload"] = read_json_file(flags->workload_file, "--workload");
      if (command->count("--requests")) {
        nlohmann::json workload = options.value("workload", experiments::default_replay_workload(loaded.ref()));
        if (!workload.is_object() || !workload.contains("count"))
          throw_range("--requests sets the count of a generated workload; this workload lists its requests");
        workload["count"] = flag_value(flags->requests);
        options["workload"] = workload;
      }
      if (command->count("--nocache-requests")) options["nocache_requests"] = flag_value(flags->nocache_requests);
      if (command->count("--timeline")) options["timeline_requests"] = flag_value(flags->timeline_requests);
      if (command->count("--kv-tokens")) options["kv_tokens"] = flag_value(flags->kv_tokens);
      if (command->count("--block-tokens")) options["block_tokens"] = flag_value(flags->block_tokens);
      if (command->count("--after-prompt-rounds"))
        options["after_prompt_rounds"] = flag_value(flags->after_prompt_rounds);
      if (!flags->policies.empty()) {
        options["policies"] = flags->policies;
      } else if (command->count("--slots")) {
        options["policies"] = policy::default_policies(slots_flag(flags->slots));
      }
      const experiments::ReplayResult result =
          experiments::replay(experiments::read_replay_options(options, "options", loaded.ref()), terminal_progress());
      if (flags->as_json)
        print_json(result.to_json());
      else
        std::cout << experiments::format_replay_report(result);
      return 0;
    });
  };
}

}  // namespace kvlab::cli
