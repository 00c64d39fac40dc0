// measure() on the tiny model: the contract's shape, finite positive times, identical tokens.
#include <cmath>

#include <gtest/gtest.h>

#include "experiments/lab.h"
#include "measure/measure.h"
#include "measure/measure_report.h"
#include "measure/step_timer.h"
#include "model/model.h"
#include "sim/simulate.h"

namespace kvlab {
namespace {

using nlohmann::json;

json small_measure_options() {
  return {{"preset", "tiny"},           {"runs", 2},
          {"answer_tokens", 12},        {"decode_rows", {1, 3}},
          {"decode_contexts", {4, 20}}, {"prefill_tokens", {1, 5, 20}},
          {"min_sample_ms", 0.2},       {"samples", 3}};
}

void expect_positive_finite(const json& value, const std::string& what) {
  ASSERT_TRUE(value.is_number()) << what;
  EXPECT_TRUE(std::isfinite(value.get<double>())) << what;
  EXPECT_GT(value.get<double>(), 0.0) << what;
}

// The noise schema (docs/benchmarks.md, "Figures that repeat"): each figure's spread in the grid's
// layout, the threshold, the cells timed again and those still noisy, and Part A's spreads and flag.
// Which cells are noisy depends on the machine's load, so only the shapes and their agreement are checked.
void expect_noise_fields(const json& result) {
  const json& answer = result["answer"];
  for (const char* path : {"nocache_ms", "cache_ms"}) {
    ASSERT_TRUE(answer[path]["spread"].is_number()) << path;
    EXPECT_GE(answer[path]["spread"].get<double>(), 0.0) << path;
  }
  ASSERT_TRUE(answer["noisy"].is_boolean());
  const double threshold = result["steps"]["model"]["timing"]["noisy_spread"].get<double>();
  EXPECT_EQ(threshold, kNoisySpread);
  EXPECT_EQ(answer["noisy"].get<bool>(), answer["nocache_ms"]["spread"].get<double>() > threshold ||
                                             answer["cache_ms"]["spread"].get<double>() > threshold);

  const json& timing = result["steps"]["model"]["timing"];
  const json& decode = result["steps"]["decode"];
  ASSERT_EQ(timing["decode_spread"].size(), decode["rows"].size());
  size_t wide = 0;
  for (size_t i = 0; i < decode["rows"].size(); ++i) {
    ASSERT_EQ(timing["decode_spread"][i].size(), decode["contexts"].size());
    for (const auto& spread : timing["decode_spread"][i]) wide += spread.get<double>() > threshold;
  }
  ASSERT_EQ(timing["prefill_spread"].size(), result["steps"]["prefill"]["tokens"].size());
  for (const auto& spread : timing["prefill_spread"]) wide += spread.get<double>() > threshold;
  if (result["steps"].contains("mixed")) {
    ASSERT_EQ(timing["mixed_spread"].size(), result["steps"]["mixed"]["chunk_tokens"].size());
    for (const auto& chunk : timing["mixed_spread"])
      for (const auto& row : chunk)
        for (const auto& spread : row) wide += spread.get<double>() > threshold;
  }
  ASSERT_TRUE(timing["noisy_cells"].is_array());
  EXPECT_EQ(timing["noisy_cells"].size(), wide);
  for (const json& cell : timing["noisy_cells"]) {
    EXPECT_GT(cell["spread"].get<double>(), threshold);
    EXPECT_TRUE(cell["grid"] == "decode" || cell["grid"] == "prefill" || cell["grid"] == "mixed") << cell.dump();
  }
  // Cells timed again for their spread; a cell timed again because more work timed faster can stay wide
  // without being counted here, so the count is not bounded by the noisy cells.
  EXPECT_GE(timing["retimed_cells"].get<int>(), 0);
  ASSERT_TRUE(timing["monotone_corrections"].is_array());
}

TEST(Measure, ResultHasTheContractShape) {
  std::vector<std::pair<double, std::string>> progress;
  json result = measure(read_measure_options(small_measure_options()), [&](double fraction, const std::string& phase) {
                  progress.push_back({fraction, phase});
                }).to_json();

  const json& answer = result["answer"];
  EXPECT_EQ(answer["prompt_tokens"], 16);
  EXPECT_EQ(answer["answer_tokens"], 12);
  EXPECT_EQ(answer["runs"], 2);
  EXPECT_TRUE(answer["identical_tokens"].get<bool>());
  EXPECT_EQ(answer["tokens_nocache"], answer["tokens_cache"]);
  EXPECT_EQ(answer["tokens_cache"].size(), 12u);
  for (const char* path : {"nocache_ms", "cache_ms"})
    for (const char* stat : {"median", "min", "max"})
      expect_positive_finite(answer[path][stat], std::string(path) + "." + stat);
  EXPECT_LE(answer["nocache_ms"]["min"].get<double>(), answer["nocache_ms"]["median"].get<double>());
  EXPECT_LE(answer["nocache_ms"]["median"].get<double>(), answer["nocache_ms"]["max"].get<double>());
  expect_positive_finite(answer["ratio"], "ratio");

  const json& steps = result["steps"];
  EXPECT_EQ(steps["decode"]["rows"], json({1, 3}));
  EXPECT_EQ(steps["decode"]["contexts"], json({4, 20}));
  ASSERT_EQ(steps["decode"]["ms"].size(), 2u);
  for (const auto& row : steps["decode"]["ms"]) {
    ASSERT_EQ(row.size(), 2u);
    for (const auto& ms : row) expect_positive_finite(ms, "decode.ms");
  }
  EXPECT_EQ(steps["prefill"]["tokens"], json({1, 5, 20}));
  for (const auto& ms : steps["prefill"]["ms"]) expect_positive_finite(ms, "prefill.ms");
  // The mixed-step grid, by default 2 chunk sizes x 2 row counts x 1 context.
  const json& mixed = steps["mixed"];
  EXPECT_EQ(mixed["chunk_tokens"], json({8, 32}));
  EXPECT_EQ(mixed["rows"], json({1, 8}));
  EXPECT_EQ(mixed["contexts"], json({64}));
  ASSERT_EQ(mixed["ms"].size(), 2u);
  for (const auto& chunk : mixed["ms"]) {
    ASSERT_EQ(chunk.size(), 2u);
    for (const auto& row : chunk) {
      ASSERT_EQ(row.size(), 1u);
      for (const auto& ms : row) expect_positive_finite(ms, "mixed.ms");
    }
  }
  EXPECT_EQ(steps["model"]["timing"]["mixed_repeats"].size(), 2u);
  EXPECT_EQ(steps["model"]["timing"]["samples"], 3);
  expect_noise_fields(result);
  EXPECT_EQ(steps["model"]["preset"], "tiny");

  // Progress rises through the phases and ends at 1.
  ASSERT_FALSE(progress.empty());
  for (size_t i = 1; i < progress.size(); ++i) EXPECT_GE(progress[i].first, progress[i - 1].first);
  EXPECT_EQ(progress.back().first, 1.0);
  for (const char* phase : {"no-cache answers", "KV-cache answers", "step grid"})
    EXPECT_TRUE(std::any_of(progress.begin(), progress.end(), [&](auto& p) { return p.second == phase; })) << phase;

  std::string report = format_measure_report(result);
  EXPECT_NE(report.find("identical tokens on both paths"), std::string::npos);
  EXPECT_NE(report.find("no KV cache median"), std::string::npos);
}

TEST(Measure, StepsWithoutTheMixedGridHaveNoMixedCells) {
  MeasureOptions o = read_measure_options(small_measure_options());
  o.mixed_grid = false;
  Model model(o.model);
  const json steps = measure_steps(model, o).to_json();
  EXPECT_FALSE(steps.contains("mixed"));
  EXPECT_FALSE(steps["model"]["timing"].contains("mixed_repeats"));
  EXPECT_EQ(steps["decode"]["ms"].size(), 2u);
  EXPECT_EQ(steps["prefill"]["ms"].size(), 3u);
}

// More threads change the times only: the same tokens, and the result says the count unless it is 1.
// (Without the check of the threads, which may choose one thread on a busy machine: thread_check_test.)
TEST(Measure, ThreadsGiveTheSameTokensAndAreSaid) {
  json options = small_measure_options();
  const json one = measure(read_measure_options(options)).to_json();
  options["threads"] = 2;
  options["thread_check"] = false;
  const json two = measure(read_measure_options(options)).to_json();
  EXPECT_FALSE(one["steps"]["model"].contains("threads"));
  EXPECT_EQ(two["steps"]["model"]["threads"], 2);
  EXPECT_EQ(two["answer"]["tokens_cache"], one["answer"]["tokens_cache"]);
  EXPECT_EQ(two["answer"]["tokens_nocache"], one["answer"]["tokens_nocache"]);
  EXPECT_TRUE(two["answer"]["identical_tokens"].get<bool>());
}

TEST(Measure, TokenTimesRiseWithinTheMedianRun) {
  json answer = measure(read_measure_options(small_measure_options())).answer;
  for (const char* path : {"token_ms_nocache", "token_ms_cache"}) {
    const json& times = answer[path];
    ASSERT_EQ(times.size(), 12u) << path;
    for (size_t i = 0; i < times.size(); ++i) {
      expect_positive_finite(times[i], path);
      if (i > 0) {
        EXPECT_GE(times[i].get<double>(), times[i - 1].get<double>()) << path << "[" << i << "]";
      }
    }
  }
  // The last token of a run comes at most at the slowest run's total.
  EXPECT_LE(answer["token_ms_nocache"].back().get<double>(), answer["nocache_ms"]["max"].get<double>());
  EXPECT_LE(answer["token_ms_cache"].back().get<double>(), answer["cache_ms"]["max"].get<double>());
}

// A small model's cached answer can take less than a browser's clock tick (Firefox's is 1 ms): each run
// repeats the answer until it lasts min_sample_ms, so neither path's time is 0 and the ratio is finite.
TEST(Measure, EachRunLastsTheShortestSampleSoTheRatioIsFinite) {
  json options = small_measure_options();
  options["min_sample_ms"] = 20;
  json answer = measure(read_measure_options(options)).answer;
  for (const char* path : {"nocache", "cache"}) {
    const json& repeats = answer[std::string("repeats_") + path];
    ASSERT_EQ(repeats.size(), 2u) << path;
    for (const json& r : repeats) {
      EXPECT_GE(r.get<int>(), 1) << path;
      // A run's total is its mean answer time times its repeats: at least the shortest sample.
      EXPECT_GE(r.get<int>() * answer[std::string(path) + "_ms"]["max"].get<double>(), 20.0) << path;
    }
  }
  expect_positive_finite(answer["ratio"], "ratio");
  EXPECT_TRUE(answer["identical_tokens"].get<bool>());
}

TEST(Lab, PartsArriveAsMeasuredAndMatchTheResult) {
  json options = {{"measure", small_measure_options()},
                  {"workload", {{"count", 5}, {"prompt", {2, 6}}, {"answer", {1, 9}}, {"seed", 3}}},
                  {"policies", {"continuous:4"}}};
  std::vector<std::pair<std::string, json>> parts;
  json result =
      experiments::run_lab(experiments::read_lab_options(options), nullptr,
                           [&](const std::string& name, const json& value) { parts.emplace_back(name, value); });
  ASSERT_EQ(parts.size(), 3u);
  // The first run of each path, before the others: one answer's figures.
  EXPECT_EQ(parts[0].first, "first_answer");
  EXPECT_EQ(parts[0].second["runs"], 1);
  EXPECT_EQ(parts[0].second["tokens_cache"], result["answer"]["tokens_cache"]);
  EXPECT_TRUE(parts[0].second["identical_tokens"].get<bool>());
  expect_positive_finite(parts[0].second["ratio"], "first_answer.ratio");
  EXPECT_EQ(parts[1].first, "answer");
  EXPECT_EQ(parts[1].second, result["answer"]);
  EXPECT_EQ(parts[2].first, "steps");
  EXPECT_EQ(parts[2].second, result["steps"]);
}

// The lab simulates on the table it measured, typed: what the simulator gives on the table it prints,
// byte for byte.
TEST(Lab, PoliciesAreTheSimulatorsOnThePrintedTable) {
  json options = {{"measure", small_measure_options()},
                  {"workload", {{"count", 30}, {"prompt", {2, 6}}, {"answer", {1, 9}}, {"seed", 3}}},
                  {"policies", {"serial-cache", "static:4", "continuous:4", "paged:4", "chunked:4,8"}},
                  {"simulate", {{"kv_tokens", 64}, {"queue_timeline", true}}}};
  const experiments::LabOptions lab = experiments::read_lab_options(options);
  const json result = experiments::run_lab(lab);
  const json printed = json::parse(result.dump());
  const json simulated = sim::simulate_json(printed["steps"], printed["workload"],
                                            options["policies"].get<std::vector<std::string>>(), lab.simulate);
  EXPECT_EQ(simulated.dump(), result["policies"].dump());
}

TEST(Lab, RunsMeasureThenEveryPolicy) {
  json options = {{"measure", small_measure_options()},
                  {"workload", {{"count", 20}, {"prompt", {2, 6}}, {"answer", {1, 9}}, {"seed", 3}}},
                  {"policies", {"serial-nocache", "continuous:4"}}};
  json result = experiments::run_lab(experiments::read_lab_options(options));
  ASSERT_TRUE(result.contains("answer"));
  ASSERT_TRUE(result["policies"].contains("serial-nocache"));
  ASSERT_TRUE(result["policies"].contains("continuous:4"));
  EXPECT_EQ(result["policies"]["continuous:4"]["requests"].size(), 20u);
  EXPECT_NE(experiments::format_lab_report(result).find("continuous:4"), std::string::npos);
  expect_noise_fields(result);
  EXPECT_EQ(result["noisy"].get<bool>(), experiments::is_noisy_result(result));
}

TEST(Lab, ANoisyFigureIsMarkedAndNoGainIsReadOffIt) {
  json options = {{"measure", small_measure_options()},
                  {"workload", {{"count", 4}, {"prompt", {2, 6}}, {"answer", {1, 9}}, {"seed", 3}}}};
  json result = experiments::run_lab(experiments::read_lab_options(options));
  // The machine's own figures, then the same result as a busy device would have given it: the 3-row step
  // at context 20 and the no-cache answer stayed wide.
  json& timing = result["steps"]["model"]["timing"];
  timing["decode_spread"][1][1] = 0.8;
  timing["noisy_cells"] = {{{"grid", "decode"}, {"rows", 3}, {"context", 20}, {"spread", 0.8}}};
  result["answer"]["nocache_ms"]["spread"] = 0.5;
  result["answer"]["noisy"] = true;
  result["noisy"] = experiments::is_noisy_result(result);
  EXPECT_TRUE(result["noisy"].get<bool>());
  const std::string report = experiments::format_lab_report(result);
  EXPECT_NE(report.find("spread 50%)~"), std::string::npos) << report;
  EXPECT_NE(report.find("~ noisy: its samples spread more than 25%"), std::string::npos) << report;
  EXPECT_NE(report.find("no gain is read off them: the device was busy (spreads 80%"), std::string::npos) << report;
  EXPECT_EQ(report.find("x tokens/s\n"), std::string::npos) << report;
  EXPECT_NE(report.find("~ priced on step times some of which stayed noisy"), std::string::npos) << report;

  // Quiet cells, but the column made monotone because 3 rows timed faster than 1 even when timed again:
  // no gain either.
  timing["decode_spread"][1][1] = 0.1;
  timing["decode_spread"][0][1] = 0.1;
  timing["noisy_cells"] = json::array();
  timing["monotone_corrections"] = {
      {{"grid", "decode"}, {"rows", 3}, {"context", 20}, {"measured_ms", 0.001}, {"corrected_ms", 0.002}}};
  const std::string corrected = format_measure_report(result);
  EXPECT_NE(corrected.find(", more rows timed faster than fewer at this context: no gain is read off them: the "
                           "device was busy (spreads 10% and 10%"),
            std::string::npos)
      << corrected;
  EXPECT_EQ(corrected.find("x tokens/s\n"), std::string::npos) << corrected;
}

}  // namespace
}  // namespace kvlab
