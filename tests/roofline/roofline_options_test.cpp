// Options: defaults, every bad name and range, and combinations that do not fit, with what would.
#include <gtest/gtest.h>

#include "common/input_error.h"
#include "roofline/roofline_options.h"

namespace kvlab::roofline {
namespace {

using nlohmann::json;

std::string error_of(const json& options) {
  try {
    read_roofline_options(options);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(RooflineOptions, DefaultsAreBf16OnOneGpuWithTheFittedFactors) {
  const Deployment d = read_roofline_options({{"gpu", "h100-sxm"}, {"model", "llama-3.1-8b"}});
  EXPECT_EQ(d.gpu.name, "h100-sxm");
  EXPECT_EQ(d.model.name, "llama-3.1-8b");
  EXPECT_EQ(d.weights, NumberFormat::bf16);
  EXPECT_EQ(d.kv, NumberFormat::bf16);
  EXPECT_EQ(d.tp, 1);
  EXPECT_EQ(d.bw_efficiency, kDefaultBandwidthEfficiency);
  EXPECT_EQ(d.compute_efficiency, kDefaultComputeEfficiency);
  const Deployment e = read_roofline_options({{"gpu", "a100-sxm"},
                                              {"model", "llama-3.1-70b"},
                                              {"weights", "fp8"},
                                              {"kv", "fp8"},
                                              {"tp", 4},
                                              {"bw_efficiency", 0.7},
                                              {"compute_efficiency", 0.5},
                                              {"step_overhead_ms", 0}});
  EXPECT_EQ(e.tp, 4);
  EXPECT_EQ(e.weights, NumberFormat::fp8);
  EXPECT_EQ(e.kv, NumberFormat::fp8);
  EXPECT_EQ(e.bw_efficiency, 0.7);
  EXPECT_EQ(e.step_overhead_ms, 0);
}

TEST(RooflineOptions, BadNamesAndRangesNameTheField) {
  const json base = {{"gpu", "h100-sxm"}, {"model", "llama-3.1-8b"}};
  auto with = [&](const char* key, json value) {
    json o = base;
    o[key] = value;
    return error_of(o);
  };
  EXPECT_EQ(error_of({{"model", "llama-3.1-8b"}}), "options.gpu is missing (a required field)");
  EXPECT_EQ(error_of({{"gpu", "h100-sxm"}}), "options.model is missing (a required field)");
  EXPECT_EQ(with("gpu", "b200"),
            "options.gpu must be one of a100-sxm, a100-40gb-sxm, h100-sxm, h200, l4, rtx-4090 (got \"b200\")");
  EXPECT_EQ(
      with("model", "gpt-4"),
      "options.model must be one of llama-3.1-8b, llama-3.1-70b, llama-2-7b, llama-2-70b, mistral-7b, qwen-2-7b (got \"gpt-4\")");
  EXPECT_EQ(with("weights", "int8"), "options.weights must be bf16, fp8 or int4 (got \"int8\")");
  EXPECT_EQ(with("kv", "int4"), "options.kv must be bf16 or fp8 (got \"int4\")");
  EXPECT_EQ(with("tp", 3), "options.tp must be 1, 2, 4 or 8 (got 3)");
  EXPECT_EQ(with("tp", 16), "options.tp must be an integer from 1 to 8 (got 16)");
  EXPECT_EQ(with("tp", "two"), "options.tp must be an integer from 1 to 8 (got \"two\")");
  EXPECT_EQ(with("bw_efficiency", 1.5), "options.bw_efficiency must be a number from 0.01 to 1 (got 1.5)");
  EXPECT_EQ(with("compute_efficiency", "NaN"), "options.compute_efficiency must be a number from 0.01 to 1 (got NaN)");
  EXPECT_EQ(with("step_overhead_ms", -1), "options.step_overhead_ms must be a number from 0 to 1000 (got -1)");
  EXPECT_EQ(with("gpus", 2),
            "options.gpus is not a known field (known: gpu, model, weights, kv, tp, bw_efficiency, "
            "compute_efficiency, step_overhead_ms)");
  EXPECT_EQ(error_of(json::array()), "options must be an object (got [])");
}

TEST(RooflineOptions, SeventyBInBf16OnOne24GbCardSaysWhatFits) {
  // 70.6e9 parameters: 137.4 GB of BF16 layer matrices + 4.2 GB of embeddings; one card gives 21.6 GB.
  EXPECT_EQ(error_of({{"gpu", "rtx-4090"}, {"model", "llama-3.1-70b"}}),
            "options.tp = 1: llama-3.1-70b with bf16 weights needs 141.1 GB of weights and 2.7 GB for 8192 KV tokens "
            "(bf16 KV), but 1 x rtx-4090 gives 21.6 GB (24 GB each, less the 10% reserve). What fits on rtx-4090: "
            "bf16 weights at tp = 8, fp8 weights at tp = 4, int4 weights at tp = 2");
}

TEST(RooflineOptions, FourL4sAreTooFewForSeventyBInBf16) {
  // 4 x 21.6 GB = 86.4 GB < 141.1 + 2.7 GB; FP8 weights (72.7 GB) fit on 4, BF16 on 8, int4 (39.5 GB) on 2.
  const std::string message = error_of({{"gpu", "l4"}, {"model", "llama-3.1-70b"}, {"tp", 4}});
  EXPECT_EQ(message.rfind("options.tp = 4: llama-3.1-70b with bf16 weights needs 141.1 GB", 0), 0u) << message;
  EXPECT_NE(message.find("but 4 x l4 gives 86.4 GB"), std::string::npos) << message;
  EXPECT_NE(message.find("What fits on l4: bf16 weights at tp = 8, fp8 weights at tp = 4, int4 weights at tp = 2"),
            std::string::npos)
      << message;
}

TEST(RooflineOptions, EveryPresetPairFitsSomewhere) {
  for (const char* gpu : {"a100-sxm", "h100-sxm", "h200"})
    for (const char* model : {"llama-3.1-8b", "llama-2-7b"})
      EXPECT_EQ(error_of({{"gpu", gpu}, {"model", model}}), "(no error)") << gpu << " " << model;
  EXPECT_EQ(error_of({{"gpu", "h200"}, {"model", "llama-3.1-70b"}, {"weights", "fp8"}}), "(no error)");
  EXPECT_EQ(error_of({{"gpu", "rtx-4090"}, {"model", "llama-3.1-8b"}}), "(no error)");
  EXPECT_EQ(error_of({{"gpu", "l4"}, {"model", "llama-3.1-8b"}}), "(no error)");
}

}  // namespace
}  // namespace kvlab::roofline
