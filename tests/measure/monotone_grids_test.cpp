// A grid where more work timed faster: the cells to time again, the least-squares monotone fit, and the
// lab's figures priced on a prefill grid that decreased (never 0, null or infinite).
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "experiments/lab.h"
#include "measure/monotone_grids.h"
#include "policy/policy_registry.h"
#include "sim/simulate.h"
#include "sim/workload.h"

namespace kvlab {
namespace {

// decode: rows {1, 16} x contexts {8, 64}; the 16-row step at context 8 timed faster than one row.
// prefill: 1 token slower than 2 (a noisy small prefill), the rest rising.
sim::StepGrids noisy_grids() {
  sim::StepGrids g;
  g.decode_rows = {1, 16};
  g.decode_contexts = {8, 64};
  g.decode_ms = {2.0, 2.5, 1.5, 3.0};
  g.prefill_tokens = {1, 2, 4, 8, 16};
  g.prefill_ms = {6.0, 2.0, 4.0, 5.0, 8.0};
  return g;
}

TEST(MonotoneGrids, TheCellsOfEveryDecreasingPairInTimingOrder) {
  // decode cells 0 (1 row, context 8) and 2 (16 rows, context 8); prefill cells 0 and 1, after the 4
  // decode cells.
  EXPECT_EQ(decreasing_cells(noisy_grids()), (std::vector<size_t>{0, 2, 4, 5}));
  sim::StepGrids rising = noisy_grids();
  make_monotone(rising);
  EXPECT_TRUE(decreasing_cells(rising).empty());
}

TEST(MonotoneGrids, TheFitPoolsADecreasingRunIntoItsMeanAndRecordsEachChange) {
  sim::StepGrids g = noisy_grids();
  const std::vector<MonotoneCorrection> corrections = make_monotone(g);
  EXPECT_EQ(g.decode_ms, (std::vector<double>{1.75, 2.5, 1.75, 3.0}));
  // 6 and 2 pool to 4, which the next cell (4) does not break: unchanged cells are not recorded.
  EXPECT_EQ(g.prefill_ms, (std::vector<double>{4.0, 4.0, 4.0, 5.0, 8.0}));
  // Each as (grid, rows, context, tokens, measured_ms, corrected_ms).
  std::vector<std::tuple<std::string, int, int, int, double, double>> recorded;
  for (const MonotoneCorrection& c : corrections)
    recorded.emplace_back(c.grid, c.rows, c.context, c.tokens, c.measured_ms, c.corrected_ms);
  const std::vector<std::tuple<std::string, int, int, int, double, double>> expected = {{"decode", 1, 8, 0, 2.0, 1.75},
                                                                                        {"decode", 16, 8, 0, 1.5, 1.75},
                                                                                        {"prefill", 0, 0, 1, 6.0, 4.0},
                                                                                        {"prefill", 0, 0, 2, 2.0, 4.0}};
  EXPECT_EQ(recorded, expected);
}

TEST(MonotoneGrids, AGridThatRisesIsLeftAlone) {
  sim::StepGrids g = noisy_grids();
  g.decode_ms = {1.0, 1.0, 2.0, 2.0};  // equal is not decreasing
  g.prefill_ms = {1.0, 1.0, 2.0, 3.0, 5.0};
  const sim::StepGrids before = g;
  EXPECT_TRUE(decreasing_cells(g).empty());
  EXPECT_TRUE(make_monotone(g).empty());
  EXPECT_EQ(g.decode_ms, before.decode_ms);
  EXPECT_EQ(g.prefill_ms, before.prefill_ms);
}

TEST(MonotoneGrids, TheLabsPoliciesOnACorrectedGridHoldNoZeroNullOrInfiniteFigure) {
  // Timed as a busy device timed them: a 1-token prefill slower than an 8-token one, 32 tokens slower
  // than 64, and a 16-row step faster than one row. Past the grid the prefill line through its last two
  // cells falls to 0 at 80 tokens, so every no-cache pass over 80 or more tokens would cost nothing.
  sim::StepGrids g;
  g.decode_rows = {1, 2, 4, 8, 16};
  g.decode_contexts = {8, 16, 32, 64, 128};
  for (int rows : g.decode_rows)
    for (int context : g.decode_contexts) g.decode_ms.push_back(rows == 16 ? 0.5 : 1.0 + 0.01 * context + 0.1 * rows);
  g.prefill_tokens = {1, 8, 32, 64};
  g.prefill_ms = {9.0, 4.0, 6.0, 2.0};
  EXPECT_EQ(sim::StepTable(g).prefill_ms(100), 0.0);

  make_monotone(g);
  const sim::StepTable steps(g);
  EXPECT_DOUBLE_EQ(steps.prefill_ms(100), 5.25);  // the four cells pooled: (9 + 4 + 6 + 2) / 4
  EXPECT_LE(steps.decode_ms(1, 64), steps.decode_ms(16, 64));
  const std::vector<policy::Request> requests = sim::read_workload(experiments::default_workload());
  const nlohmann::json result =
      sim::simulate(steps, requests, sim::parse_policies(policy::default_policies())).to_json();
  ASSERT_EQ(result.size(), 4u);
  for (const auto& [name, metrics] : result.items())
    for (const char* key : {"makespan_ms", "median_ttft_ms", "p95_ttft_ms", "tokens_per_s", "tpot_ms"}) {
      ASSERT_TRUE(metrics[key].is_number()) << name << "." << key;
      const double value = metrics[key].get<double>();
      EXPECT_TRUE(std::isfinite(value) && value > 0) << name << "." << key << " = " << value;
    }
}

}  // namespace
}  // namespace kvlab
