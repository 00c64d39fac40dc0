#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/flags.h"
#include "cli/input_sources.h"
#include "cli/output.h"
#include "common/text_format.h"
#include "roofline/deployment.h"
#include "roofline/presets.h"
#include "roofline/published_figures.h"
#include "roofline/roofline_options.h"
#include "roofline/table.h"

namespace kvlab::cli {

namespace {

// The presets' names, in their order, for the help: the list is the presets' own, never retyped here.
template <typename Preset>
std::string preset_names(const std::vector<Preset>& presets) {
  std::vector<std::string> names;
  for (const Preset& preset : presets) names.push_back(preset.name);
  return comma_list(names);
}

// "bf16 (default), fp8, int4": the first format a server accepts is the default.
std::string format_names(const std::vector<NumberFormat>& formats) {
  std::vector<std::string> names = number_format_names(formats);
  names.front() += " (default)";
  return comma_list(names);
}

}  // namespace

Action add_roofline_command(CLI::App& app) {
  CLI::App* command = app.add_subcommand(
      "roofline", "model the step-time table of a named GPU and model (a roofline per operation; docs/gpu.md)");
  auto flags = std::make_shared<JsonFlags>();
  flags->add(*command, "gpu", "", "GPU preset: " + preset_names(roofline::gpu_presets()) + " (required)", false, true);
  flags->add(*command, "model", "", "model preset: " + preset_names(roofline::model_presets()) + " (required)", false,
             true);
  flags->add(*command, "weights", "", "weight format: " + format_names(roofline::server_weight_formats()), false, true);
  flags->add(*command, "kv", "", "KV cache format: " + format_names(roofline::server_kv_formats()), false, true);
  flags->add(*command, "tp", "", "tensor parallelism: GPUs sharing the model, 1 (default), 2, 4, 8");
  flags->add(*command, "bw_efficiency", "", "share of peak memory bandwidth kernels reach (default: the fitted one)");
  flags->add(*command, "compute_efficiency", "",
             "share of peak tensor throughput kernels reach (default: the fitted one)");
  flags->add(*command, "step_overhead_ms", "", "fixed cost of a forward pass, ms (default: the model's)");
  auto as_json = std::make_shared<bool>(false);
  auto checks = std::make_shared<bool>(false);
  command->add_flag("--json", *as_json, "print the step table as JSON (what simulate --steps reads)");
  command->add_flag(
      "--checks", *checks,
      "instead of a table, print the published measurements against the model (the efficiency flags apply)");
  return [command, flags, as_json, checks]() -> int {
    if (!command->parsed()) return -1;
    InputSources sources;
    sources.add_flags("options", *flags);
    return run_reporting(sources, [&] {
      if (*checks) {
        nlohmann::json result = roofline::published_checks_json(roofline::read_efficiencies(flags->to_json()));
        if (*as_json)
          print_json(result);
        else
          std::cout << roofline::format_published_checks(result);
        return 0;
      }
      nlohmann::json table = roofline::roofline(flags->to_json());
      if (*as_json)
        print_json(table);
      else
        std::cout << roofline::format_roofline_report(table);
      return 0;
    });
  };
}

}  // namespace kvlab::cli
