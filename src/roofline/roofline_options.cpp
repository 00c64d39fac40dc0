#include "roofline/roofline_options.h"

#include <vector>

#include "common/input_error.h"
#include "common/json_fields.h"
#include "common/text_format.h"

namespace kvlab::roofline {

using nlohmann::json;

namespace {

bool fits(const Deployment& d) { return kv_budget_tokens(d) >= kMinKvBudgetTokens; }

// "bf16 at tp = 8, fp8 at tp = 4, int4 at tp = 2": the smallest power-of-two TP at which each format fits.
std::string what_fits(Deployment d) {
  std::vector<std::string> fitting;
  for (NumberFormat format : server_weight_formats()) {
    d.weights = format;
    for (int tp = 1; tp <= kMaxTensorParallel; tp *= 2) {
      d.tp = tp;
      if (d.model.n_heads % tp != 0 || d.model.n_kv_heads % tp != 0 || !fits(d)) continue;
      fitting.push_back(std::string(number_format_name(format)) + " weights at tp = " + std::to_string(tp));
      break;
    }
  }
  return fitting.empty() ? "nothing up to tp = " + std::to_string(kMaxTensorParallel) : comma_list(fitting);
}

void check_tp(const Deployment& d, const std::string& field) {
  const FieldError tp_field{field, std::to_string(d.tp), one_of({"1", "2", "4", "8"})};
  if (d.tp != 1 && d.tp != 2 && d.tp != 4 && d.tp != 8)
    throw_range(tp_field, "must be 1, 2, 4 or 8 (got " + std::to_string(d.tp) + ")");
  if (d.model.n_heads % d.tp != 0 || d.model.n_kv_heads % d.tp != 0)
    throw_range(tp_field, "= " + std::to_string(d.tp) + " does not split " + d.model.name + "'s " +
                              std::to_string(d.model.n_kv_heads) + " KV heads evenly");
}

}  // namespace

void check_fits(const Deployment& d, const std::string& path) {
  if (fits(d)) return;
  const std::string field = fields::join(path, "tp");
  throw_range({field, std::to_string(d.tp), {}},
              format("= %d: %s with %s weights needs %.1f GB of weights and %.1f GB for %lld KV tokens (%s KV), "
                     "but %d x %s gives %.1f GB (%.0f GB each, less the %.0f%% reserve). What fits on %s: %s",
                     d.tp, d.model.name.c_str(), number_format_name(d.weights), weight_bytes(d) / 1e9,
                     kMinKvBudgetTokens * kv_bytes_per_token(d) / 1e9, kMinKvBudgetTokens, number_format_name(d.kv),
                     d.tp, d.gpu.name.c_str(), usable_memory_bytes(d) / 1e9, d.gpu.memory_bytes / 1e9,
                     kMemoryReserveFraction * 100, d.gpu.name.c_str(), what_fits(d).c_str()));
}

Efficiencies read_efficiencies(const json& options, const std::string& path) {
  fields::require_object(options, path);
  fields::reject_unknown(options, path, {"bw_efficiency", "compute_efficiency"});
  return {fields::read_number(options, path, "bw_efficiency", kDefaultBandwidthEfficiency, 0.01, 1),
          fields::read_number(options, path, "compute_efficiency", kDefaultComputeEfficiency, 0.01, 1),
          !options.contains("bw_efficiency"), !options.contains("compute_efficiency")};
}

Deployment read_roofline_options(const json& options, const std::string& path) {
  fields::require_object(options, path);
  fields::reject_unknown(
      options, path,
      {"gpu", "model", "weights", "kv", "tp", "bw_efficiency", "compute_efficiency", "step_overhead_ms"});
  for (const char* required : {"gpu", "model"})
    if (!options.contains(required))
      throw_range({fields::join(path, required), "", {}}, "is missing (a required field)");
  Deployment d;
  d.gpu = find_gpu(fields::read_string(options, path, "gpu", ""), fields::join(path, "gpu"));
  d.model = find_model(fields::read_string(options, path, "model", ""), fields::join(path, "model"));
  d.weights = parse_number_format(fields::read_string(options, path, "weights", "bf16"), server_weight_formats(),
                                  fields::join(path, "weights"), ListWording::or_before_last);
  d.kv = parse_number_format(fields::read_string(options, path, "kv", "bf16"), server_kv_formats(),
                             fields::join(path, "kv"), ListWording::or_before_last);
  d.tp = static_cast<int>(fields::read_int(options, path, "tp", 1, 1, kMaxTensorParallel));
  check_tp(d, fields::join(path, "tp"));
  d.bw_efficiency = fields::read_number(options, path, "bw_efficiency", d.bw_efficiency, 0.01, 1);
  d.compute_efficiency = fields::read_number(options, path, "compute_efficiency", d.compute_efficiency, 0.01, 1);
  d.step_overhead_ms = fields::read_number(options, path, "step_overhead_ms", d.step_overhead_ms, 0, 1000);
  check_fits(d, path);
  return d;
}

json roofline_presets_json() {
  json gpus = json::array();
  for (const GpuSpec& gpu : gpu_presets())
    gpus.push_back({{"name", gpu.name},
                    {"description", gpu.description},
                    {"memory_bytes", gpu.memory_bytes},
                    {"memory_bytes_per_s", gpu.memory_bytes_per_s},
                    {"link", gpu.link}});
  json models = json::array();
  for (const ModelShape& model : model_presets())
    models.push_back({{"name", model.name},
                      {"description", model.description},
                      {"parameters", model.parameters()},
                      {"n_layers", model.n_layers},
                      {"n_kv_heads", model.n_kv_heads},
                      {"head_dim", model.head_dim()}});
  return {{"gpus", gpus},
          {"models", models},
          {"weights", number_format_names(server_weight_formats())},
          {"kv", number_format_names(server_kv_formats())},
          {"max_tp", kMaxTensorParallel}};
}

}  // namespace kvlab::roofline
