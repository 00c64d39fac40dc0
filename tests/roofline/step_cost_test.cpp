// The roofline arithmetic on a made-up GPU and model with round numbers, every figure worked by hand in the
// comments: a memory-bound step, a compute-bound step, the crossover row count, the all-reduce and the memory plan.
#include <gtest/gtest.h>

#include "roofline/step_cost.h"
#include "roofline/table.h"

namespace kvlab::roofline {
namespace {

// 100 GB, 1 TB/s, 100 TFLOPS BF16 (no FP8), links of 100 GB/s; a 2-layer model with d_model 1024, 8 heads of
// 128 (no GQA), d_ff 4096, vocab 1000. Efficiencies 1 and no overhead, so times are the bare roofline.
Deployment round_numbers() {
  Deployment d;
  d.gpu = {"test", "test GPU", 100e9, 1e12, 100e12, 0, 100e9, "test link"};
  d.model = {"test", "test model", 1024, 2, 8, 8, 4096, 1000};
  d.bw_efficiency = 1;
  d.compute_efficiency = 1;
  d.step_overhead_ms = 0;
  return d;
}

TEST(StepCost, OneDecodeRowIsMemoryBoundAndCostsItsBytesOverBandwidth) {
  const Deployment d = round_numbers();
  // Bytes of one layer at 1 row, context 1000 (weights 2 bytes, activations 2 bytes):
  //   qkv      1024 x 3072 x 2 = 6,291,456 + (1024 + 3072) x 2      =  6,299,648
  //   attention 1000 x 2 x 1024 x 2 = 4,096,000 + new K,V 4,096 + q and out 4,096 = 4,104,192
  //   o        1024 x 1024 x 2 = 2,097,152 + (1024 + 1024) x 2       =  2,101,248
  //   gate_up  2 x 1024 x 4096 x 2 = 16,777,216 + (1024 + 8192) x 2  = 16,795,648
  //   down     4096 x 1024 x 2 = 8,388,608 + (4096 + 1024) x 2       =  8,398,848
  //   layer = 37,699,584; two layers 75,399,168; LM head 1000 x 1024 x 2 + (1024 + 1000) x 2 = 2,052,048
  //   total 77,451,216 bytes at 1e12 B/s = 0.077451216 ms
  const StepCost cost = step_cost(d, {1, 1, 1000});
  EXPECT_EQ(cost.memory_bound_operations, cost.operations);
  EXPECT_EQ(cost.operations, 6);
  EXPECT_NEAR(cost.ms, 0.077451216, 1e-12);
  EXPECT_NEAR(decode_step_ms(d, 1, 1000), 0.077451216, 1e-12);
  EXPECT_EQ(cost.all_reduce_ms, 0);  // one GPU
}

TEST(StepCost, ALongPrefillIsComputeBoundAndCostsItsFlopsOverThroughput) {
  const Deployment d = round_numbers();
  // Prefill of 4096 tokens: every layer operation is compute-bound (e.g. gate_up: 68.7 GFLOP = 0.687 ms against
  // 92 MB = 0.092 ms). FLOPs a layer: matmuls 2 x 4096 x 16,777,216 parameters = 137,438,953,472; attention
  // 4 x 1024 x (4096 x 4097 / 2 pairs) = 34,368,126,976; sum 171,807,080,448, two layers 343,614,160,896 at
  // 1e14 = 3.43614160896 ms. The LM head (logits of the last position only) stays memory-bound: 0.002052048 ms.
  const StepCost cost = step_cost(d, {1, 4096, 4096});
  EXPECT_EQ(cost.memory_bound_operations, 1);
  EXPECT_NEAR(cost.ms, 3.43614160896 + 0.002052048, 1e-9);
  EXPECT_NEAR(prefill_ms(d, 4096), cost.ms, 1e-12);
}

TEST(StepCost, TheCrossoverRowCountIsWhereGateUpTurnsComputeBound) {
  const Deployment d = round_numbers();
  // gate_up at r rows: memory (16,777,216 + 18,432 r) / 1e12 s, compute 2 r 8,388,608 / 1e14 s. They meet at
  // r = 16,777,216 / (167,772.16 - 18,432) = 112.3: 112 rows are still memory-bound, 113 are not. (Without
  // the activations the textbook ratio is bytes a weight x FLOPS / (2 x bandwidth) = 100 rows.)
  EXPECT_EQ(crossover_rows(d, 1000), 113);
  const int gate_up = 3;
  EXPECT_TRUE(operation_time(layer_operations(d, {112, 1, 1000})[gate_up], d).memory_bound());
  EXPECT_FALSE(operation_time(layer_operations(d, {113, 1, 1000})[gate_up], d).memory_bound());
  // So a step of 64 rows costs barely more than one of 1 row (the weights dominate), 256 rows much more.
  EXPECT_LT(decode_step_ms(d, 64, 16), 1.3 * decode_step_ms(d, 1, 16));
  EXPECT_GT(decode_step_ms(d, 256, 16), 2 * decode_step_ms(d, 1, 16));
}

TEST(StepCost, EfficienciesAndOverheadScaleTheirOwnSideOnly) {
  Deployment d = round_numbers();
  d.bw_efficiency = 0.5;
  d.step_overhead_ms = 1;
  EXPECT_NEAR(decode_step_ms(d, 1, 1000), 1 + 2 * 0.077451216, 1e-12);
  d.compute_efficiency = 0.5;
  d.bw_efficiency = 1;
  d.step_overhead_ms = 0;
  EXPECT_NEAR(prefill_ms(d, 4096), 2 * 3.43614160896 + 0.002052048, 1e-9);
}

TEST(StepCost, TensorParallelismSplitsTheWorkAndAddsTwoAllReducesALayer) {
  Deployment d = round_numbers();
  d.tp = 2;
  // One all-reduce of 1 row: 1024 x 2 bytes, ring 2 (N - 1) / N = 1 times over 100 GB/s = 2.048e-5 ms, plus the
  // 0.008 ms latency.
  EXPECT_NEAR(all_reduce_ms(d, 1), 2.048e-5 + kAllReduceLatencyMs, 1e-12);
  const StepCost cost = step_cost(d, {1, 1, 1000});
  EXPECT_NEAR(cost.all_reduce_ms, 2 * (2.048e-5 + kAllReduceLatencyMs), 1e-12);
  // The weights' and KV bytes halve; the activations of the replicated sides do not.
  const Deployment one = round_numbers();
  EXPECT_LT(cost.ms - 2 * cost.all_reduce_ms, 0.51 * step_cost(one, {1, 1, 1000}).ms);
  EXPECT_GT(cost.ms - 2 * cost.all_reduce_ms, 0.49 * step_cost(one, {1, 1, 1000}).ms);
}

TEST(MemoryPlan, BudgetIsWhatTheWeightsLeaveOfNinetyPercentOverKvBytesAToken) {
  const Deployment d = round_numbers();
  // Layer matrices 1024 x 4096 + 3 x 1024 x 4096 = 16,777,216 parameters, x 2 layers x 2 bytes = 67,108,864;
  // embeddings and LM head 2 x 1000 x 1024 x 2 = 4,096,000; weights 71,204,864 bytes.
  EXPECT_DOUBLE_EQ(weight_bytes(d), 71'204'864);
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(d), 2 * 2 * 1024 * 2);  // keys and values, 2 layers, 1024 wide, 2 bytes
  // (100e9 x 0.9 - 71,204,864) / 8192 = 10,977,636.1
  EXPECT_EQ(kv_budget_tokens(d), 10'977'636);
  Deployment fp8 = d;
  fp8.kv = NumberFormat::fp8;
  fp8.weights = NumberFormat::int4;
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(fp8), 4096);
  EXPECT_DOUBLE_EQ(weight_bytes(fp8), 2 * 16'777'216 * (0.5 + 2.0 / 128) + 4'096'000);
}

TEST(NumberFormats, Fp8RunsAtTheFp8RateOnlyWhereTheGpuHasIt) {
  Deployment d = round_numbers();
  d.weights = NumberFormat::fp8;
  EXPECT_EQ(matmul_flops_per_s(d.gpu, d.weights), 100e12);  // no FP8 tensor cores: widened to BF16
  d.gpu.fp8_dense_flops_per_s = 200e12;
  EXPECT_EQ(matmul_flops_per_s(d.gpu, d.weights), 200e12);
  EXPECT_EQ(matmul_flops_per_s(d.gpu, NumberFormat::int4), 100e12);  // W4A16
}

}  // namespace
}  // namespace kvlab::roofline
