// The benchmark's options as read, and its thread scaling: each count's steps timed, one thread's
// speed-up 1 (a flag that was accepted but lost on the way to the benchmark once).
#include "experiments/kernel_bench.h"

#include <gtest/gtest.h>

#include <cmath>

#include "common/input_error.h"

namespace kvlab::experiments {
namespace {

using nlohmann::json;

// The smallest timing the benchmark takes, on the small preset (the tiny one is shorter than the
// benchmark's longest context).
json quick(json options) {
  options["measure"] = {{"preset", "small"}, {"samples", 1}, {"min_sample_ms", 1}};
  return options;
}

TEST(BenchOptions, EveryFlagIsRead) {
  const BenchOptions defaults = read_bench_options(quick(json::object()));
  EXPECT_FALSE(defaults.thread_scaling);
  const BenchOptions o = read_bench_options(quick({{"answer_runs", 0},
                                                   {"simulator", false},
                                                   {"weight_formats", true},
                                                   {"kv_formats", true},
                                                   {"thread_scaling", true}}));
  EXPECT_EQ(o.answer_runs, 0);
  EXPECT_FALSE(o.simulator);
  EXPECT_TRUE(o.weight_formats);
  EXPECT_TRUE(o.kv_formats);
  EXPECT_TRUE(o.thread_scaling);
  EXPECT_THROW(read_bench_options(quick({{"thread_scaling", 1}})), InputError);
}

TEST(BenchThreadScaling, TimesEachThreadCountAgainstOne) {
  json options = quick({{"answer_runs", 0}, {"simulator", false}, {"thread_scaling", true}});
  options["measure"]["threads"] = 2;
  const json scaling = run_kernel_bench(read_bench_options(options))["thread_scaling"];
  ASSERT_TRUE(scaling.is_object());
  EXPECT_EQ(scaling["counts"], json({1, 2}));
  EXPECT_EQ(scaling["forks_per_step"], 6 * 6 + 1);
  for (const char* cell : {"rows1", "rows16", "prefill"}) {
    SCOPED_TRACE(cell);
    const json& speedup = scaling[std::string(cell) + "_speedup"];
    ASSERT_EQ(speedup.size(), 2u);
    EXPECT_DOUBLE_EQ(speedup[0].get<double>(), 1.0);
    EXPECT_TRUE(std::isfinite(speedup[1].get<double>()) && speedup[1].get<double>() > 0);
  }
  EXPECT_EQ(scaling["fork_join_us"].size(), 2u);
  // The memory read on each count's pool, and the one-row step's bytes over its time there.
  EXPECT_GT(scaling["rows1_bytes_read"].get<double>(), 0);
  for (const char* rate : {"read_gb_per_s", "rows1_gb_per_s"}) {
    SCOPED_TRACE(rate);
    ASSERT_EQ(scaling[rate].size(), 2u);
    for (const json& gb_per_s : scaling[rate]) EXPECT_TRUE(std::isfinite(gb_per_s.get<double>()) && gb_per_s > 0);
  }
  for (size_t k = 0; k < 2; ++k)
    EXPECT_DOUBLE_EQ(scaling["rows1_gb_per_s"][k].get<double>(),
                     scaling["rows1_bytes_read"].get<double>() / (scaling["rows1_ms"][k].get<double>() * 1e6));
}

}  // namespace
}  // namespace kvlab::experiments
