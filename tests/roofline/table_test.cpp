// The modeled table has the contract's shape and the simulator takes it unchanged: every policy, 256 slots,
// contexts past 8,192, and the KV-memory policies at the table's own budget (in tokens and in bytes).
#include <gtest/gtest.h>

#include "roofline/roofline_options.h"
#include "roofline/step_cost.h"
#include "roofline/table.h"
#include "sim/simulate.h"
#include "sim/step_table.h"

namespace kvlab::roofline {
namespace {

using nlohmann::json;

const json kH100 = {{"gpu", "h100-sxm"}, {"model", "llama-3.1-8b"}};

TEST(TableBuilder, HasTheContractShapeAndTheKvMemory) {
  const json table = roofline(kH100);
  EXPECT_EQ(table["decode"]["rows"].back(), 256);
  EXPECT_GE(table["decode"]["contexts"].back().get<int>(), 8192);
  EXPECT_EQ(table["decode"]["ms"].size(), table["decode"]["rows"].size());
  for (const json& row : table["decode"]["ms"]) EXPECT_EQ(row.size(), table["decode"]["contexts"].size());
  EXPECT_EQ(table["prefill"]["ms"].size(), table["prefill"]["tokens"].size());
  const json& model = table["model"];
  EXPECT_EQ(model["modeled"], true);
  EXPECT_EQ(model["label"],
            "modeled: 1 x NVIDIA H100 80GB SXM5, Llama 3.1 8B (grouped-query attention, 8 KV heads), "
            "bf16 weights, bf16 KV cache");
  // 2 x 32 layers x 8 KV heads x 128 x 2 bytes = 131,072; (72 GB - 16,059,990,016 bytes of weights) / 131,072 = 426,788.4 tokens.
  EXPECT_EQ(model["kv_bytes_per_token"], 131072);
  EXPECT_EQ(model["kv_budget_tokens"], 426788);
  EXPECT_NEAR(model["weight_bytes"].get<double>(), 16.06e9, 0.01e9);
  EXPECT_NEAR(model["parameters"].get<double>(), 8.03e9, 0.01e9);  // Meta: 8.03B
  // The table's cells are the step costs themselves.
  const Deployment d = read_roofline_options(kH100);
  EXPECT_EQ(table["decode"]["ms"][4][3].get<double>(), decode_step_ms(d, 16, 1024));
  EXPECT_EQ(table["prefill"]["ms"][5].get<double>(), prefill_ms(d, 512));
  // Decode time grows with rows and with context, and stays memory-bound at one row.
  for (size_t i = 1; i < table["decode"]["rows"].size(); ++i)
    EXPECT_GT(table["decode"]["ms"][i][3].get<double>(), table["decode"]["ms"][i - 1][3].get<double>());
  EXPECT_GT(table["decode"]["ms"][0][8].get<double>(), table["decode"]["ms"][0][0].get<double>());
}

TEST(TableBuilder, TheSimulatorReadsItUnchanged) {
  const json table = roofline(kH100);
  const sim::StepTable steps = sim::StepTable::from_json(table);
  const Deployment d = read_roofline_options(kH100);
  EXPECT_DOUBLE_EQ(steps.decode_ms(256, 8192), decode_step_ms(d, 256, 8192));
  EXPECT_DOUBLE_EQ(steps.prefill_ms(2048), prefill_ms(d, 2048));
}

TEST(TableBuilder, EveryPolicyRunsOnItWith256SlotsAndTheTablesKvBudget) {
  const json table = roofline(kH100);
  const json workload = {{"count", 600}, {"prompt", {256, 4096}}, {"answer", {16, 512}}, {"seed", 3}};
  const std::vector<std::string> policies = {"serial-cache", "static:256", "continuous:256",
                                             "reserve:256",  "paged:256",  "chunked:256,2048"};
  sim::SimulateOptions by_tokens;
  by_tokens.kv_tokens = table["model"]["kv_budget_tokens"].get<long long>();
  const json result = sim::simulate_json(table, workload, policies, by_tokens);
  for (const std::string& policy : policies) {
    ASSERT_TRUE(result.contains(policy)) << policy;
    EXPECT_GT(result[policy]["tokens_per_s"].get<double>(), 0) << policy;
  }
  // 426,788 tokens in 16-token blocks; continuous batching with 256 slots beats one at a time many times over.
  EXPECT_EQ(result["paged:256"]["kv_blocks_budget"], 426788 / 16);
  EXPECT_GT(result["continuous:256"]["tokens_per_s"].get<double>(),
            10 * result["serial-cache"]["tokens_per_s"].get<double>());

  // The same budget given in bytes, at the table's kv_bytes_per_token.
  sim::SimulateOptions by_bytes;
  by_bytes.kv_bytes =
      table["model"]["kv_budget_tokens"].get<double>() * table["model"]["kv_bytes_per_token"].get<double>();
  const json same = sim::simulate_json(table, workload, {"paged:256"}, by_bytes);
  EXPECT_EQ(same["paged:256"]["kv_blocks_budget"], result["paged:256"]["kv_blocks_budget"]);
  EXPECT_EQ(same["paged:256"]["makespan_ms"], result["paged:256"]["makespan_ms"]);
}

TEST(TableBuilder, PagedMemoryRunsMoreRequestsAtOnceThanReserveInTheSameMemory) {
  // A 4090 with Llama 3.1 8B keeps 42,170 KV tokens: reserving each request's longest answer holds far fewer
  // requests at once than paging, so paged finishes sooner.
  const json table = roofline({{"gpu", "rtx-4090"}, {"model", "llama-3.1-8b"}});
  const json workload = {{"count", 400}, {"prompt", {64, 512}}, {"answer", {16, 1024}}, {"seed", 5}};
  sim::SimulateOptions options;
  options.kv_tokens = table["model"]["kv_budget_tokens"].get<long long>();
  const json result = sim::simulate_json(table, workload, {"reserve:256", "paged:256"}, options);
  EXPECT_LT(result["paged:256"]["makespan_ms"].get<double>(), result["reserve:256"]["makespan_ms"].get<double>());
}

}  // namespace
}  // namespace kvlab::roofline
