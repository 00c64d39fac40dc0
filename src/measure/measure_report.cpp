#include "measure/measure_report.h"

#include <cstdlib>
#include <string>

#include "common/text_format.h"

namespace kvlab {

using nlohmann::json;

namespace {

std::string timing_line(const char* label, const json& t) {
  return format("%s median %.2f ms (min %.2f, max %.2f)\n", label, t["median"].get<double>(), t["min"].get<double>(),
                t["max"].get<double>());
}

std::string token_list(const json& tokens) {
  std::string text;
  for (const auto& t : tokens) text += (text.empty() ? "" : " ") + std::to_string(t.get<int>());
  return text;
}

// One table over the decode grid; `cell` turns (rows, ms) into the printed value.
template <typename Cell>
std::string grid_table(const json& decode, const char* title, Cell cell) {
  std::string text = format("%s\n%-15s", title, "rows \\ context");
  for (const auto& c : decode["contexts"]) text += format("%10d", c.get<int>());
  text += "\n";
  for (size_t i = 0; i < decode["rows"].size(); ++i) {
    const int rows = decode["rows"][i].get<int>();
    text += format("%-15d", rows);
    for (const auto& ms : decode["ms"][i]) text += format("%10s", cell(rows, ms.get<double>()).c_str());
    text += "\n";
  }
  return text;
}

}  // namespace

std::string instruction_set_text(const json& model) {
  const std::string arch = model.value("kvlab_arch", "");
  const std::string instruction_set = model["instruction_set"].get<std::string>();
  return arch.empty() || arch == "wasm" ? instruction_set : instruction_set + ", KVLAB_ARCH=" + arch;
}

std::string model_name_text(const json& model) {
  return model.contains("preset") ? model["preset"].get<std::string>()
                                  : model["name"].get<std::string>() + ", read from files";
}

std::string format_measure_report(const json& result) {
  const json& a = result["answer"];
  const json& model = result["steps"]["model"];
  const json& decode = result["steps"]["decode"];
  const json& prefill = result["steps"]["prefill"];
  std::string text;
  text += format("model %s: %.2f M parameters, %.1f MB of weights, %d layers, d_model %d, %d/%d heads, %s\n",
                 model_name_text(model).c_str(), model["parameters"].get<double>() / 1e6,
                 model["weight_bytes"].get<double>() / 1e6, model["n_layers"].get<int>(), model["d_model"].get<int>(),
                 model["n_heads"].get<int>(), model["n_kv_heads"].get<int>(), instruction_set_text(model).c_str());
  text += format("one answer: prompt %d tokens, answer %d tokens, %d runs per path\n", a["prompt_tokens"].get<int>(),
                 a["answer_tokens"].get<int>(), a["runs"].get<int>());
  text += timing_line("no KV cache", a["nocache_ms"]);
  text += timing_line("with KV cache", a["cache_ms"]);
  text +=
      format("ratio %.1fx, %s\n", a["ratio"].get<double>(),
             a["identical_tokens"].get<bool>() ? "identical tokens on both paths" : "TOKENS DIFFER between the paths");
  text += "tokens (no cache): " + token_list(a["tokens_nocache"]) + "\n";
  text += "tokens (KV cache): " + token_list(a["tokens_cache"]) + "\n";
  if (a.contains("pieces")) {
    std::string answer;
    for (const auto& piece : a["pieces"]) answer += piece.get<std::string>();
    text += "prompt: " + a["prompt_text"].get<std::string>() + "\n";
    text += "answer: " + answer + "\n";
  }
  text += "\n";

  const json& timing = model["timing"];
  text += grid_table(
      decode,
      format(
          "decode step, ms (mean of %d samples, taken a round over the grid at a time; each sample repeats the step for >= %.1f ms)",
          timing["samples"].get<int>(), timing["min_sample_ms"].get<double>())
          .c_str(),
      [](int, double ms) { return format("%.3f", ms); });
  text += "\n" + grid_table(decode, "decode throughput, tokens/s (rows / step time)",
                            [](int rows, double ms) { return format("%.0f", rows * 1000.0 / ms); });

  // The batching gain at the context the published lab quoted (64), or the nearest measured one.
  const json& contexts = decode["contexts"];
  size_t j = 0;
  for (size_t k = 0; k < contexts.size(); ++k)
    if (std::abs(contexts[k].get<int>() - 64) < std::abs(contexts[j].get<int>() - 64)) j = k;
  const size_t last = decode["rows"].size() - 1;
  const int rows_last = decode["rows"][last].get<int>(), rows_first = decode["rows"][0].get<int>();
  const double gain =
      (rows_last / decode["ms"][last][j].get<double>()) / (rows_first / decode["ms"][0][j].get<double>());
  text += format("%d rows vs %d row%s at context %d: %.3f ms vs %.3f ms per step, %.2fx tokens/s\n\n", rows_last,
                 rows_first, rows_first == 1 ? "" : "s", contexts[j].get<int>(), decode["ms"][last][j].get<double>(),
                 decode["ms"][0][j].get<double>(), gain);

  text += "prefill of one sequence, ms (timed in the same rounds)\n";
  std::string header = format("%-15s", "tokens"), values = format("%-15s", "ms");
  for (size_t k = 0; k < prefill["tokens"].size(); ++k) {
    header += format("%10d", prefill["tokens"][k].get<int>());
    values += format("%10.3f", prefill["ms"][k].get<double>());
  }
  return text + header + "\n" + values + "\n";
}

}  // namespace kvlab
