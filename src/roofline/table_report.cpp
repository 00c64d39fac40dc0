#include "roofline/table_report.h"

#include "common/text_format.h"

namespace kvlab::roofline {

using nlohmann::json;

std::string format_roofline_report(const json& table) {
  const json& model = table["model"];
  std::string text = model["label"].get<std::string>() + "\n";
  text += format("weights %.2f GB; KV cache %.0f bytes a token, budget %lld tokens (%.0f GB of memory, %.0f%% reserved); "
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
