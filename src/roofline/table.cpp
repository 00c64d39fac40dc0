#include "roofline/table.h"

#include "common/text_format.h"
#include "roofline/roofline_options.h"
#include "roofline/step_cost.h"

namespace kvlab::roofline {

using nlohmann::json;

const std::vector<int>& table_decode_rows() {
  static const std::vector<int> rows = {1, 2, 4, 8, 16, 32, 64, 128, 256};
  return rows;
}

const std::vector<int>& table_decode_contexts() {
  static const std::vector<int> contexts = {16, 64, 256, 1024, 2048, 4096, 8192, 16384, 32768};
  return contexts;
}

const std::vector<int>& table_prefill_tokens() {
  static const std::vector<int> tokens = {1, 16, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768};
  return tokens;
}

int crossover_rows(const Deployment& d, int context) {
  // The operations' memory time barely grows with rows while their FLOPs grow linearly: one crossing.
  constexpr int kGateUp = 3;  // index in layer_operations
  int lo = 1, hi = 1 << 20;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (operation_time(layer_operations(d, {mid, 1, context})[kGateUp], d).memory_bound())
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

json build_step_table(const Deployment& d) {
  json decode_ms = json::array();
  for (int rows : table_decode_rows()) {
    json row = json::array();
    for (int context : table_decode_contexts()) row.push_back(decode_step_ms(d, rows, context));
    decode_ms.push_back(row);
  }
  json prefill = json::array();
  for (int tokens : table_prefill_tokens()) prefill.push_back(prefill_ms(d, tokens));

  const std::string label = "modeled: " + std::to_string(d.tp) + " x " + d.gpu.description + ", " +
                            d.model.description + ", " + number_format_name(d.weights) + " weights, " +
                            number_format_name(d.kv) + " KV cache";
  json model = {{"kind", "roofline"},
                {"modeled", true},
                {"label", label},
                {"gpu", d.gpu.name},
                {"gpu_description", d.gpu.description},
                {"model", d.model.name},
                {"model_description", d.model.description},
                {"weights", number_format_name(d.weights)},
                {"kv", number_format_name(d.kv)},
                {"tp", d.tp},
                {"parameters", d.model.parameters()},
                {"weight_bytes", weight_bytes(d)},
                {"device_memory_bytes", d.gpu.memory_bytes * d.tp},
                {"memory_reserve_fraction", kMemoryReserveFraction},
                {"kv_bytes_per_token", kv_bytes_per_token(d)},
                {"kv_budget_tokens", kv_budget_tokens(d)},
                {"bw_efficiency", d.bw_efficiency},
                {"compute_efficiency", d.compute_efficiency},
                {"step_overhead_ms", d.step_overhead_ms},
                {"crossover_rows", crossover_rows(d, 1024)}};
  return {{"model", model},
          {"decode", {{"rows", table_decode_rows()}, {"contexts", table_decode_contexts()}, {"ms", decode_ms}}},
          {"prefill", {{"tokens", table_prefill_tokens()}, {"ms", prefill}}}};
}

json roofline(const json& options) { return build_step_table(read_roofline_options(options)); }

std::string format_roofline_report(const json& table) {
  const json& model = table["model"];
  std::string text = model["label"].get<std::string>() + "\n";
  text += format(
      "weights %.2f GB; KV cache %.0f bytes a token, budget %lld tokens (%.0f GB of memory, %.0f%% reserved); "
      "decode turns compute-bound from %d rows\n\n",
      model["weight_bytes"].get<double>() / 1e9, model["kv_bytes_per_token"].get<double>(),
      model["kv_budget_tokens"].get<long long>(), model["device_memory_bytes"].get<double>() / 1e9,
      model["memory_reserve_fraction"].get<double>() * 100, model["crossover_rows"].get<int>());

  const json& decode = table["decode"];
  std::vector<std::vector<std::string>> rows = {{"decode step ms, rows \\ context"}};
  for (const json& context : decode["contexts"]) rows[0].push_back(std::to_string(context.get<int>()));
  rows[0].push_back("tokens/s at 1024");
  const size_t context_1024 = 3;  // table_decode_contexts()[3]
  for (size_t i = 0; i < decode["rows"].size(); ++i) {
    const int r = decode["rows"][i].get<int>();
    std::vector<std::string> row = {std::to_string(r)};
    for (const json& ms : decode["ms"][i]) row.push_back(format("%.3g", ms.get<double>()));
    row.push_back(format("%.0f", r * 1000 / decode["ms"][i][context_1024].get<double>()));
    rows.push_back(row);
  }
  text += aligned_table(rows) + "\n";

  const json& prefill = table["prefill"];
  std::vector<std::vector<std::string>> prefill_rows = {{"prefill tokens"}, {"ms"}};
  for (size_t k = 0; k < prefill["tokens"].size(); ++k) {
    prefill_rows[0].push_back(std::to_string(prefill["tokens"][k].get<int>()));
    prefill_rows[1].push_back(format("%.3g", prefill["ms"][k].get<double>()));
  }
  return text + aligned_table(prefill_rows);
}

}  // namespace kvlab::roofline
