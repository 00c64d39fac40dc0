// Option validation: every bad field is refused with its path and allowed range, before allocation.
#include <gtest/gtest.h>

#include "common/input_error.h"
#include "experiments/lab.h"
#include "measure/measure_options.h"

namespace kvlab {
namespace {

using nlohmann::json;

// The message of the InputError that reading `options` throws, and its JS class.
std::pair<std::string, std::string> error_of(const json& options) {
  try {
    read_measure_options(options);
  } catch (const InputError& e) {
    return {e.what(), e.js_class()};
  }
  return {"", ""};
}

TEST(MeasureOptions, DefaultsMatchThePublishedLab) {
  MeasureOptions o = read_measure_options(json::object());
  EXPECT_EQ(o.prompt_tokens, 16);
  EXPECT_EQ(o.answer_tokens, 48);
  EXPECT_EQ(o.runs, 5);
  EXPECT_EQ(o.decode_rows, (std::vector<int>{1, 2, 4, 8, 16}));
  EXPECT_EQ(o.decode_contexts, (std::vector<int>{8, 16, 32, 64, 128}));
  EXPECT_EQ(o.prefill_tokens.back(), 128);
  EXPECT_EQ(o.preset, "small");
}

TEST(MeasureOptions, ThreadsWithinTheBuildsLimit) {
  EXPECT_EQ(read_measure_options(json::object()).threads, 1);
  EXPECT_EQ(read_measure_options({{"threads", 3}}).threads, 3);
  EXPECT_EQ(read_measure_options({{"threads", 64}}).threads, 64);
  EXPECT_EQ(error_of({{"threads", 0}}).first, "options.threads must be an integer from 1 to 64 (got 0)");
  EXPECT_EQ(error_of({{"threads", 65}}).first, "options.threads must be an integer from 1 to 64 (got 65)");
}

TEST(MeasureOptions, FieldsOverrideThePreset) {
  MeasureOptions o = read_measure_options({{"preset", "tiny"}, {"model", {{"n_layers", 3}}}, {"runs", 2}});
  EXPECT_EQ(o.model.n_layers, 3);
  EXPECT_EQ(o.model.d_model, 32);
  EXPECT_EQ(o.runs, 2);
}

TEST(MeasureOptions, WeightsChooseTheFormat) {
  EXPECT_EQ(read_measure_options(json::object()).model.weights, NumberFormat::f32);
  EXPECT_EQ(read_measure_options({{"weights", "bf16"}, {"preset", "tiny"}}).model.weights, NumberFormat::bf16);
}

TEST(MeasureOptions, KvChoosesTheCacheFormat) {
  EXPECT_EQ(read_measure_options(json::object()).model.kv, NumberFormat::f32);
  EXPECT_EQ(read_measure_options({{"kv", "bf16"}, {"preset", "tiny"}}).model.kv, NumberFormat::bf16);
  EXPECT_EQ(read_measure_options({{"kv", "f16"}, {"weights", "bf16"}}).model.kv, NumberFormat::f16);
}

TEST(MeasureOptions, BadValuesNameTheFieldAndRange) {
  EXPECT_EQ(error_of({{"runs", 0}}).first, "options.runs must be an integer from 1 to 100 (got 0)");
  EXPECT_EQ(error_of({{"runs", "five"}}),
            std::make_pair(std::string("options.runs must be an integer from 1 to 100 (got \"five\")"),
                           std::string("TypeError")));
  EXPECT_EQ(error_of({{"runs", 2.5}}).first, "options.runs must be an integer from 1 to 100 (got 2.5)");
  EXPECT_EQ(error_of({{"runs", "NaN"}}).first, "options.runs must be an integer from 1 to 100 (got NaN)");
  EXPECT_EQ(error_of({{"runs", nullptr}}).second, "TypeError");
  EXPECT_EQ(error_of({{"min_sample_ms", -1}}).first,
            "options.min_sample_ms must be a number from 0.1 to 1000 (got -1)");
  EXPECT_EQ(error_of({{"prompt_tokens", 300}}).first,
            "options.prompt_tokens must be an integer from 1 to 255 (got 300)");
  EXPECT_EQ(error_of({{"preset", "huge"}}).first,
            "options.preset must be one of small, lab, medium, tiny (got \"huge\")");
  EXPECT_EQ(error_of({{"model", {{"d_model", -4}}}}).first,
            "options.model.d_model must be an integer from 4 to 4096 (got -4)");
  EXPECT_EQ(error_of({{"model", {{"n_heads", 8}, {"n_kv_heads", 3}}}}).first,
            "options.model.n_kv_heads must divide n_heads (8 is not a multiple of 3)");
  EXPECT_EQ(error_of({{"weights", "fp16"}}).first, "options.weights must be one of f32, bf16 (got \"fp16\")");
  EXPECT_EQ(error_of({{"weights", 16}}).second, "TypeError");
  EXPECT_EQ(error_of({{"kv", "x"}}).first, "options.kv must be one of f32, bf16, f16 (got \"x\")");
  EXPECT_EQ(error_of({{"kv", 3}}).second, "TypeError");
  EXPECT_EQ(error_of({{"rnus", 1}}).first.substr(0, 37), "options.rnus is not a known field (kn");
  EXPECT_EQ(error_of(json::array()).first, "options must be an object (got [])");
}

TEST(MeasureOptions, GridsMustBeIncreasingAndFitTheModel) {
  EXPECT_EQ(error_of({{"decode_rows", {1, 4, 2}}}).first,
            "options.decode_rows must be strictly increasing (options.decode_rows[2] = 2 is not above 4)");
  EXPECT_EQ(error_of({{"decode_contexts", {8, 8}}}).first.substr(0, 51),
            "options.decode_contexts must be strictly increasing");
  EXPECT_EQ(error_of({{"decode_rows", json::array()}}).second, "TypeError");
  EXPECT_EQ(error_of({{"prefill_tokens", {1, 0}}}).first,
            "options.prefill_tokens[1] must be an integer from 1 to 256 (got 0)");
  EXPECT_EQ(error_of({{"model", {{"max_seq", 64}}}}).first,
            "options.decode_contexts must not exceed model.max_seq = 64");
  EXPECT_EQ(error_of({{"prompt_tokens", 200}, {"answer_tokens", 100}}).first,
            "options.answer_tokens must be an integer from 1 to 57 (got 100)");
}

TEST(MeasureOptions, TooMuchMemoryIsRefusedUpFront) {
  auto [message, kind] =
      error_of({{"model", {{"d_model", 512}, {"n_layers", 16}, {"n_heads", 8}, {"n_kv_heads", 8}, {"max_seq", 8192}}},
                {"decode_rows", {1, 256}}});
  EXPECT_NE(message.find("options needs"), std::string::npos) << message;
  EXPECT_NE(message.find("at most 1024 MiB"), std::string::npos) << message;
}

TEST(MeasureOptions, GridsThatWouldTimeForTooLongAreRefusedUpFront) {
  // The default grid's 37 cells: 15 samples of 1,000 ms fit in the bound (37 x 16.2 s = 599.4 s), 16 do not;
  // 101 (an hour) names the samples and the most that fit.
  MeasureOptions o = read_measure_options({{"preset", "tiny"}, {"min_sample_ms", 1000}, {"samples", 15}});
  EXPECT_EQ(grid_cells(o), 37u);
  EXPECT_LE(grid_sample_ms(o), kMaxGridSampleMs);
  EXPECT_EQ(error_of({{"preset", "tiny"}, {"min_sample_ms", 1000}, {"samples", 16}}).first.substr(0, 57),
            "options.samples must be from 1 to 15 with these grids: th");
  try {
    read_measure_options({{"preset", "tiny"}, {"min_sample_ms", 1000}, {"samples", 101}});
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field().path, "options.samples");
    EXPECT_EQ(*e.field().allowed.max, 15);
    EXPECT_NE(std::string(e.what()).find("would take at least 3,781 s (at most 600 s)"), std::string::npos) << e.what();
  }
  // The largest grid (16 x 32 decode cells, 32 prefill lengths, 8 x 8 x 8 mixed steps): one sample of
  // 1,000 ms is already too long, so min_sample_ms is named, with the longest that fits.
  std::vector<int> rows, contexts, eight_rows, eight_contexts;
  for (int i = 1; i <= 16; ++i) rows.push_back(16 * i);
  for (int i = 1; i <= 32; ++i) contexts.push_back(5 * i);
  for (int i = 1; i <= 8; ++i) eight_rows.push_back(32 * i), eight_contexts.push_back(20 * i);
  const json largest = {{"preset", "tiny"},
                        {"decode_rows", rows},
                        {"decode_contexts", contexts},
                        {"prefill_tokens", contexts},
                        {"mixed_rows", eight_rows},
                        {"mixed_contexts", eight_contexts},
                        {"mixed_chunk_tokens", eight_contexts},
                        {"samples", 1},
                        {"min_sample_ms", 1000}};
  try {
    read_measure_options(largest);
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field().path, "options.min_sample_ms");
    EXPECT_NEAR(*e.field().allowed.max, 600'000 / (1056 * 2.2), 1e-9);
  }
  json shortest = largest;
  shortest["min_sample_ms"] = 0.1;
  shortest["samples"] = 101;
  EXPECT_EQ(grid_cells(read_measure_options(shortest)), 1056u);
}

TEST(MeasureOptions, MemoryForTheMixedGridIsCountedOnlyWhenItIsTimed) {
  // 64 mixed rows: more caches and activation rows than the 3 decode rows need.
  MeasureOptions o = read_measure_options(
      {{"preset", "tiny"}, {"decode_rows", {1, 3}}, {"mixed_rows", {1, 64}}, {"mixed_chunk_tokens", {8, 16}}});
  const LargestMixedStep timed = largest_mixed_step(o);
  EXPECT_EQ(timed.rows, 64);
  EXPECT_EQ(timed.chunk_tokens, 16);
  EXPECT_EQ(timed.context, 64);
  const int64_t with_grid = measure_memory_bytes(o);

  o.mixed_grid = false;
  const LargestMixedStep skipped = largest_mixed_step(o);
  EXPECT_EQ(skipped.rows, 0);
  EXPECT_EQ(skipped.context, 0);
  EXPECT_EQ(skipped.chunk_tokens, 0);
  const int64_t without_grid = measure_memory_bytes(o);
  EXPECT_LT(without_grid, with_grid);
  // Without the grid, the mixed fields no longer change the bound.
  o.mixed_rows = {1, 2};
  o.mixed_chunk_tokens = {1, 2};
  EXPECT_EQ(measure_memory_bytes(o), without_grid);
}

TEST(LabOptions, WorkloadAndPoliciesAreCheckedBeforeMeasuring) {
  auto lab_error = [](const json& options) -> std::string {
    try {
      experiments::read_lab_options(options);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(lab_error(json::object()), "");
  EXPECT_NE(lab_error({{"policies", {"continuous:0"}}}).find("continuous:0"), std::string::npos);
  EXPECT_NE(lab_error({{"policies", {"fastest"}}}).find("fastest"), std::string::npos);
  EXPECT_NE(lab_error({{"workload", {{"count", 10}, {"prompt", {0, 4}}, {"answer", {1, 2}}}}}).find("prompt"),
            std::string::npos);
  EXPECT_EQ(lab_error({{"measure", {{"runs", 0}}}}), "options.measure.runs must be an integer from 1 to 100 (got 0)");
  EXPECT_EQ(lab_error({{"policies", json::array()}}), "options.policies must be a list of 1 to 64 policy names");
}

TEST(LabOptions, RequestsPastTheModelsMaxSeqAreRefusedNamingTheField) {
  // The tiny preset holds 160 positions: answers up to 200 after prompts up to 32 do not fit.
  const json options = {{"measure", {{"preset", "tiny"}}},
                        {"workload", {{"count", 10}, {"prompt", {8, 32}}, {"answer", {16, 200}}}}};
  try {
    experiments::read_lab_options(options);
    FAIL() << "no error";
  } catch (const InputError& error) {
    EXPECT_EQ(error.field().path, "options.workload.answer[1]");
    EXPECT_NE(std::string(error.what()).find("model.max_seq = 160"), std::string::npos) << error.what();
  }
  json fits = options;
  fits["workload"]["answer"] = {16, 96};
  EXPECT_NO_THROW(experiments::read_lab_options(fits));
}

}  // namespace
}  // namespace kvlab
