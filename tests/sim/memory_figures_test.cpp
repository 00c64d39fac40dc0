// The figures docs/memory.md reports, on the lab's workload (1,000 requests, prompts 8-32, answers 16-96,
// all at t = 0) and the measured-looking table of sim_test_support.
#include <gtest/gtest.h>

#include <cstdio>

#include "sim/simulate.h"
#include "sim/workload.h"
#include "sim_test_support.h"

namespace kvlab::sim {
namespace {

using nlohmann::json;
using testing::measured_like_steps;

const json kLabWorkload = {{"count", 1000}, {"prompt", {8, 32}}, {"answer", {16, 96}}, {"seed", 1}};

TEST(MemoryFigures, ReserveWastesFarMoreThanPaged) {
  // 1,024 tokens (64 blocks of 16) bind: 16 slots of up to 127 positions would need 128 blocks.
  SimulateOptions options;
  options.kv_tokens = 1024;
  json result =
      simulate_json(measured_like_steps(), kLabWorkload, {"reserve:16", "paged:16", "chunked:16,64"}, options);
  double reserve = result["reserve:16"]["waste_pct"], paged = result["paged:16"]["waste_pct"],
         chunked = result["chunked:16,64"]["waste_pct"];
  std::printf("waste: reserve %.1f%%, paged %.1f%%, chunked %.1f%%; peak blocks %d, %d, %d of 64; preemptions %d, %d\n",
              reserve, paged, chunked, result["reserve:16"]["peak_kv_blocks"].get<int>(),
              result["paged:16"]["peak_kv_blocks"].get<int>(), result["chunked:16,64"]["peak_kv_blocks"].get<int>(),
              result["paged:16"]["preemptions"].get<int>(), result["chunked:16,64"]["preemptions"].get<int>());
  // reserve holds p + 96 - 1 positions for answers of 56 tokens on average; paged wastes only the unused
  // end of each request's last block (7.5 of 16 slots on average).
  EXPECT_GT(reserve, 50);
  EXPECT_LT(paged, 15);
  EXPECT_LT(chunked, 15);
  EXPECT_EQ(result["reserve:16"]["preemptions"], 0);
  EXPECT_GT(result["paged:16"]["preemptions"].get<int>(), 0);
}

TEST(MemoryFigures, ASharedSystemPromptCutsTimeToFirstToken) {
  // Every request starts with the same 512-token system prompt; Poisson arrivals at 5 per second. Without
  // prefix reuse (continuous:16, which is paged:16 without it) each prompt of 520-544 tokens is prefilled
  // whole; with it, all but the first find the 32 blocks of the system prompt.
  json workload = kLabWorkload;
  workload["system_prompt"] = 512;
  workload["arrival"] = {{"kind", "poisson"}, {"rate_per_s", 5}};
  json result = simulate_json(measured_like_steps(), workload, {"continuous:16", "paged:16", "chunked:16,256"});
  double without = result["continuous:16"]["median_ttft_ms"], with = result["paged:16"]["median_ttft_ms"],
         chunked = result["chunked:16,256"]["median_ttft_ms"];
  std::printf(
      "median TTFT: without reuse %.1f ms, paged with reuse %.1f ms, chunked with reuse %.1f ms; hit rate %.4f\n",
      without, with, chunked, result["paged:16"]["prefix_hit_rate"].get<double>());
  EXPECT_LT(with, 0.5 * without);

  // Hit rate by hand: 999 requests find 512 tokens each, out of every prompt's tokens looked up.
  long long prompt_tokens = 0;
  for (const policy::Request& request : read_workload(workload)) prompt_tokens += request.prompt_tokens;
  EXPECT_DOUBLE_EQ(result["paged:16"]["prefix_hit_rate"].get<double>(),
                   512.0 * 999 / static_cast<double>(prompt_tokens));

  // The same requests with nothing marked shared: paged:16 is continuous:16 again.
  json unshared = explicit_workload(workload);
  unshared.erase("system_prompt");
  json plain = simulate_json(measured_like_steps(), unshared, {"paged:16"});
  EXPECT_EQ(plain["paged:16"]["median_ttft_ms"], result["continuous:16"]["median_ttft_ms"]);
  EXPECT_TRUE(plain["paged:16"]["prefix_hit_rate"].is_null());
}

}  // namespace
}  // namespace kvlab::sim
