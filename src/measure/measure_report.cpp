#include "measure/measure_report.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <string>

#include "common/text_format.h"

namespace kvlab {

using nlohmann::json;

namespace {

// The mark of a figure whose samples stayed wider than the noisy spread, and the note under its table.
constexpr const char* kNoisyMark = "~";

std::string noisy_note(double noisy_spread) {
  return format(
      "%s noisy: its samples spread more than %.0f%% ((max - min) / median) after timing it again: the "
      "device was busy; not a finding\n",
      kNoisyMark, 100 * noisy_spread);
}

// A figure's spread where the result has one (results of older builds have none: 0).
double spread_at(const json& spreads, size_t i, size_t j) {
  return spreads.is_array() && i < spreads.size() && spreads[i].is_array() && j < spreads[i].size()
             ? spreads[i][j].get<double>()
             : 0.0;
}

std::string timing_line(const char* label, const json& t, double noisy_spread) {
  const double spread = t.value("spread", 0.0);
  return format("%s median %.2f ms (min %.2f, max %.2f, spread %.0f%%)%s\n", label, t["median"].get<double>(),
                t["min"].get<double>(), t["max"].get<double>(), 100 * spread, spread > noisy_spread ? kNoisyMark : "");
}

std::string token_list(const json& tokens) {
  std::string text;
  for (const auto& t : tokens) text += (text.empty() ? "" : " ") + std::to_string(t.get<int>());
  return text;
}

// One table over the decode grid; `cell` turns (rows, ms) into the printed value, marked where the cell's
// spread (`spreads`, [rows][contexts]) is wider than `noisy_spread`.
template <typename Cell>
std::string grid_table(const json& decode, const json& spreads, double noisy_spread, const char* title, Cell cell) {
  std::string text = format("%s\n%-15s", title, "rows \\ context");
  for (const auto& c : decode["contexts"]) text += format("%10d", c.get<int>());
  text += "\n";
  for (size_t i = 0; i < decode["rows"].size(); ++i) {
    const int rows = decode["rows"][i].get<int>();
    text += format("%-15d", rows);
    for (size_t j = 0; j < decode["ms"][i].size(); ++j) {
      const bool noisy = spread_at(spreads, i, j) > noisy_spread;
      text += format("%10s", (cell(rows, decode["ms"][i][j].get<double>()) + (noisy ? kNoisyMark : "")).c_str());
    }
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
  const json& timing = model["timing"];
  // Results of older builds carry no spreads: nothing is marked.
  const double noisy_spread = timing.value("noisy_spread", std::numeric_limits<double>::infinity());
  const json decode_spread = timing.value("decode_spread", json());
  std::string text;
  text += format("model %s: %.2f M parameters, %.1f MB of weights, %d layers, d_model %d, %d/%d heads, %s\n",
                 model_name_text(model).c_str(), model["parameters"].get<double>() / 1e6,
                 model["weight_bytes"].get<double>() / 1e6, model["n_layers"].get<int>(), model["d_model"].get<int>(),
                 model["n_heads"].get<int>(), model["n_kv_heads"].get<int>(), instruction_set_text(model).c_str());
  text += format("one answer: prompt %d tokens, answer %d tokens, %d runs per path\n", a["prompt_tokens"].get<int>(),
                 a["answer_tokens"].get<int>(), a["runs"].get<int>());
  text += timing_line("no KV cache", a["nocache_ms"], noisy_spread);
  text += timing_line("with KV cache", a["cache_ms"], noisy_spread);
  const bool answer_noisy = a.value("noisy", false);
  text +=
      format("ratio %.1fx%s, %s\n", a["ratio"].get<double>(), answer_noisy ? kNoisyMark : "",
             a["identical_tokens"].get<bool>() ? "identical tokens on both paths" : "TOKENS DIFFER between the paths");
  if (answer_noisy) text += noisy_note(noisy_spread);
  text += "tokens (no cache): " + token_list(a["tokens_nocache"]) + "\n";
  text += "tokens (KV cache): " + token_list(a["tokens_cache"]) + "\n";
  if (a.contains("pieces")) {
    std::string answer;
    for (const auto& piece : a["pieces"]) answer += piece.get<std::string>();
    text += "prompt: " + a["prompt_text"].get<std::string>() + "\n";
    text += "answer: " + answer + "\n";
  }
  text += "\n";

  text += grid_table(
      decode, decode_spread, noisy_spread,
      format(
          "decode step, ms (trimmed mean of %d samples, taken a round over the grid at a time; each sample repeats the step for >= %.1f ms)",
          timing["samples"].get<int>(), timing["min_sample_ms"].get<double>())
          .c_str(),
      [](int, double ms) { return format("%.3f", ms); });
  text += "\n" + grid_table(decode, decode_spread, noisy_spread, "decode throughput, tokens/s (rows / step time)",
                            [](int rows, double ms) { return format("%.0f", rows * 1000.0 / ms); });

  // The batching gain at the context the published lab quoted (64), or the nearest measured one.
  const json& contexts = decode["contexts"];
  size_t j = 0;
  for (size_t k = 0; k < contexts.size(); ++k)
    if (std::abs(contexts[k].get<int>() - 64) < std::abs(contexts[j].get<int>() - 64)) j = k;
  const size_t last = decode["rows"].size() - 1;
  const int rows_last = decode["rows"][last].get<int>(), rows_first = decode["rows"][0].get<int>();
  const double ms_last = decode["ms"][last][j].get<double>(), ms_first = decode["ms"][0][j].get<double>();
  const double spread_last = spread_at(decode_spread, last, j), spread_first = spread_at(decode_spread, 0, j);
  text += format("%d rows vs %d row%s at context %d: %.3f ms vs %.3f ms per step", rows_last, rows_first,
                 rows_first == 1 ? "" : "s", contexts[j].get<int>(), ms_last, ms_first);
  // A gain read off noisy cells, or off a column where more rows timed faster (corrected, or from a result
  // of an older build that did not correct it), is what the device's load did, not a finding.
  const json corrections = timing.value("monotone_corrections", json::array());
  const bool column_corrected = std::any_of(corrections.begin(), corrections.end(), [&](const json& c) {
    return c["grid"] == "decode" && c["context"] == contexts[j];
  });
  if (spread_last > noisy_spread || spread_first > noisy_spread || ms_last < ms_first || column_corrected)
    text += format(
        "%s: no gain is read off them: the device was busy (spreads %.0f%% and %.0f%%, after timing "
        "them again)\n",
        column_corrected || ms_last < ms_first ? ", more rows timed faster than fewer at this context" : "",
        100 * spread_last, 100 * spread_first);
  else
    text += format(", %.2fx tokens/s\n", (rows_last / ms_last) / (rows_first / ms_first));
  if (!timing.value("noisy_cells", json::array()).empty()) text += noisy_note(noisy_spread);
  text += "\n";

  text += "prefill of one sequence, ms (timed in the same rounds)\n";
  const json prefill_spread = json::array({timing.value("prefill_spread", json())});
  std::string header = format("%-15s", "tokens"), values = format("%-15s", "ms");
  for (size_t k = 0; k < prefill["tokens"].size(); ++k) {
    header += format("%10d", prefill["tokens"][k].get<int>());
    const bool noisy = spread_at(prefill_spread, 0, k) > noisy_spread;
    values += format("%10s", (format("%.3f", prefill["ms"][k].get<double>()) + (noisy ? kNoisyMark : "")).c_str());
  }
  text += header + "\n" + values + "\n";
  if (!corrections.empty())
    text += format(
        "%zu cell%s where more work timed faster, still after timing them again, made monotone (the "
        "least-squares fit; steps.model.timing.monotone_corrections)\n",
        corrections.size(), corrections.size() == 1 ? "" : "s");
  return text;
}

}  // namespace kvlab
