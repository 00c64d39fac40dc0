// The contract's lookups on tiny tables, every expected value worked out by hand.
#include "sim/step_table.h"

#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>
#include <vector>

#include "common/input_error.h"

namespace kvlab::sim {
namespace {

using nlohmann::json;

StepTable table(const json& decode, const json& prefill) {
  return StepTable::from_json({{"model", json::object()}, {"decode", decode}, {"prefill", prefill}});
}

// rows {1, 3} x contexts {10, 20}: row 1 is 1 + (c - 10) / 10, row 3 is 4 + 4 (c - 10) / 10.
// prefill over tokens {2, 4}: 3 + (L - 2).
StepTable small_table() {
  return table({{"rows", {1, 3}}, {"contexts", {10, 20}}, {"ms", {{1, 2}, {4, 8}}}},
               {{"tokens", {2, 4}}, {"ms", {3, 5}}});
}

TEST(StepTablePrefill, InterpolatesAndExtrapolatesLinearly) {
  StepTable steps = small_table();
  EXPECT_DOUBLE_EQ(steps.prefill_ms(2), 3);
  EXPECT_DOUBLE_EQ(steps.prefill_ms(3), 4);  // halfway between 3 and 5
  EXPECT_DOUBLE_EQ(steps.prefill_ms(4), 5);
  EXPECT_DOUBLE_EQ(steps.prefill_ms(6), 7);  // above: 5 + 1 ms/token * 2
  EXPECT_DOUBLE_EQ(steps.prefill_ms(1), 2);  // below: 3 - 1 ms/token * 1
}

TEST(StepTablePrefill, ExtrapolationIsFlooredAtZero) {
  // Falling costs, 6 - (L - 2): at L = 10 the line gives -2, floored to 0; below the grid it rises.
  StepTable steps = table({{"rows", {1}}, {"contexts", {1}}, {"ms", {{1}}}}, {{"tokens", {2, 4}}, {"ms", {6, 4}}});
  EXPECT_DOUBLE_EQ(steps.prefill_ms(10), 0);
  EXPECT_DOUBLE_EQ(steps.prefill_ms(8), 0);  // exactly 0 on the line
  EXPECT_DOUBLE_EQ(steps.prefill_ms(1), 7);
}

TEST(StepTablePrefill, SinglePointIsConstant) {
  StepTable steps = table({{"rows", {1}}, {"contexts", {1}}, {"ms", {{1}}}}, {{"tokens", {8}}, {"ms", {5}}});
  EXPECT_DOUBLE_EQ(steps.prefill_ms(1), 5);
  EXPECT_DOUBLE_EQ(steps.prefill_ms(8), 5);
  EXPECT_DOUBLE_EQ(steps.prefill_ms(1000), 5);
}

TEST(StepTablePrefill, SpansAreDifferencesFlooredAtZero) {
  StepTable steps = small_table();  // prefill(L) = L + 1
  EXPECT_DOUBLE_EQ(steps.prefill_span_ms(2, 4), 2);
  EXPECT_DOUBLE_EQ(steps.prefill_span_ms(0, 3), 3);  // prefill(3) - prefill(0) = 4 - 1
  // A table whose prefill falls (measurement noise): a span never costs less than nothing.
  StepTable falling = table({{"rows", {1}}, {"contexts", {1}}, {"ms", {{1}}}}, {{"tokens", {2, 4}}, {"ms", {6, 4}}});
  EXPECT_DOUBLE_EQ(falling.prefill_span_ms(2, 4), 0);
}

TEST(StepTableDecode, BilinearInsideTheGrid) {
  StepTable steps = small_table();
  EXPECT_DOUBLE_EQ(steps.decode_ms(1, 10), 1);
  EXPECT_DOUBLE_EQ(steps.decode_ms(3, 20), 8);  // the last grid point, exactly
  EXPECT_DOUBLE_EQ(steps.decode_ms(1, 15), 1.5);
  EXPECT_DOUBLE_EQ(steps.decode_ms(3, 15), 6);
  EXPECT_DOUBLE_EQ(steps.decode_ms(2, 15), 3.75);  // halfway between 1.5 and 6
  EXPECT_DOUBLE_EQ(steps.decode_ms(2, 10), 2.5);   // halfway between 1 and 4
}

TEST(StepTableDecode, ExtrapolatesAlongBothAxes) {
  StepTable steps = small_table();
  EXPECT_DOUBLE_EQ(steps.decode_ms(1, 30), 3);   // 1 + 0.1 * 20
  EXPECT_DOUBLE_EQ(steps.decode_ms(3, 30), 12);  // 4 + 0.4 * 20
  EXPECT_DOUBLE_EQ(steps.decode_ms(5, 30), 21);  // rows: 3 + (12 - 3) / 2 per row * 4
  EXPECT_DOUBLE_EQ(steps.decode_ms(1, 5), 0.5);  // 1 - 0.1 * 5
  EXPECT_DOUBLE_EQ(steps.decode_ms(1, 0), 0);    // 1 - 0.1 * 10
}

TEST(StepTableDecode, FloorsEachRowBeforeInterpolatingInRows) {
  // Row 1 falls from 2 to 1 over contexts 10..20; row 2 stays at 4.
  StepTable steps =
      table({{"rows", {1, 2}}, {"contexts", {10, 20}}, {"ms", {{2, 1}, {4, 4}}}}, {{"tokens", {1}}, {"ms", {1}}});
  // At c = 40 row 1 gives 2 - 0.1 * 30 = -1, floored to 0; row 2 gives 4. At r = 3: 0 + 4 * 2 = 8
  // (without the first floor it would be -1 + 5 * 2 = 9).
  EXPECT_DOUBLE_EQ(steps.decode_ms(1, 40), 0);
  EXPECT_DOUBLE_EQ(steps.decode_ms(3, 40), 8);
  // At r = 1.5 (between the rows): 0 + 4 * 0.5 = 2.
  EXPECT_DOUBLE_EQ(steps.decode_ms(1.5, 40), 2);
}

TEST(StepTableDecode, FloorsTheRowExtrapolation) {
  // Row 1 at 4; row 2 falls from 2 to 1: at c = 40 it is 2 - 0.1 * 30 = -1, floored to 0.
  // Rows extrapolated to r = 3: 4 + (0 - 4) * 2 = -4, floored to 0.
  StepTable steps =
      table({{"rows", {1, 2}}, {"contexts", {10, 20}}, {"ms", {{4, 4}, {2, 1}}}}, {{"tokens", {1}}, {"ms", {1}}});
  EXPECT_DOUBLE_EQ(steps.decode_ms(3, 40), 0);
  EXPECT_DOUBLE_EQ(steps.decode_ms(3, 10), 0);  // 4 + (2 - 4) * 2 = 0
}

TEST(StepTableDecode, SinglePointAxesAreConstant) {
  // One measured row count: constant in rows, linear in context.
  StepTable one_row = table({{"rows", {4}}, {"contexts", {10, 20}}, {"ms", {{1, 3}}}}, {{"tokens", {1}}, {"ms", {1}}});
  EXPECT_DOUBLE_EQ(one_row.decode_ms(1, 15), 2);
  EXPECT_DOUBLE_EQ(one_row.decode_ms(16, 15), 2);
  EXPECT_DOUBLE_EQ(one_row.decode_ms(16, 30), 5);
  // One measured context: constant in context, linear in rows (2 at r = 1, 6 at r = 2).
  StepTable one_context =
      table({{"rows", {1, 2}}, {"contexts", {10}}, {"ms", {{2}, {6}}}}, {{"tokens", {1}}, {"ms", {1}}});
  EXPECT_DOUBLE_EQ(one_context.decode_ms(1, 999), 2);
  EXPECT_DOUBLE_EQ(one_context.decode_ms(3, 5), 10);
}

TEST(StepTableDecode, MixedContextsSumShares) {
  StepTable steps = small_table();
  // Three rows at contexts 10, 15, 30: (decode(3,10) + decode(3,15) + decode(3,30)) / 3 = (4 + 6 + 12) / 3.
  std::vector<int> contexts = {10, 15, 30};
  EXPECT_DOUBLE_EQ(steps.decode_step_ms(3, [&](int row) { return contexts[row]; }), 22.0 / 3);
  // Equal contexts cost what one lookup says.
  EXPECT_DOUBLE_EQ(steps.decode_step_ms(2, [](int) { return 15; }), steps.decode_ms(2, 15));
}

// small_table() with a mixed grid: chunk_tokens {2, 4} x rows {1, 3} x contexts {10, 20}, cell
// (k, r, c) = 20 + k + 2 r + c / 10, so every lookup inside or outside the grid is exact.
StepTable mixed_table() {
  json steps = {{"decode", {{"rows", {1, 3}}, {"contexts", {10, 20}}, {"ms", {{1, 2}, {4, 8}}}}},
                {"prefill", {{"tokens", {2, 4}}, {"ms", {3, 5}}}}};
  json ms = json::array();
  for (int k : {2, 4}) {
    json chunk = json::array();
    for (int r : {1, 3}) chunk.push_back({20 + k + 2 * r + 1, 20 + k + 2 * r + 2});
    ms.push_back(chunk);
  }
  steps["mixed"] = {{"chunk_tokens", {2, 4}}, {"rows", {1, 3}}, {"contexts", {10, 20}}, {"ms", ms}};
  return StepTable::from_json(steps);
}

TEST(StepTableMixed, AbsentInOldTables) { EXPECT_FALSE(small_table().has_mixed()); }

TEST(StepTableMixed, TrilinearAndSharesPerRow) {
  StepTable steps = mixed_table();
  ASSERT_TRUE(steps.has_mixed());
  EXPECT_DOUBLE_EQ(steps.mixed_grid_step_ms(2, 1, [](int) { return 10; }), 25);    // a grid point
  EXPECT_DOUBLE_EQ(steps.mixed_grid_step_ms(4, 3, [](int) { return 20; }), 32);    // the last one
  EXPECT_DOUBLE_EQ(steps.mixed_grid_step_ms(3, 2, [](int) { return 15; }), 28.5);  // 20 + 3 + 4 + 1.5
  EXPECT_DOUBLE_EQ(steps.mixed_grid_step_ms(8, 5, [](int) { return 40; }), 42);    // extrapolated: 20 + 8 + 10 + 4
  // Two rows at contexts 10 and 30: (26 + 1 + 26 + 3) / 2, each row's share at its own context.
  std::vector<int> contexts = {10, 30};
  EXPECT_DOUBLE_EQ(steps.mixed_grid_step_ms(2, 2, [&](int row) { return contexts[row]; }), 28);
}

TEST(StepTableMixed, VisitsEveryCellInOrder) {
  std::vector<double> cells;
  mixed_table().for_each_mixed_cell([&](double k, double r, double c, double ms) {
    EXPECT_DOUBLE_EQ(ms, 20 + k + 2 * r + c / 10);
    cells.push_back(ms);
  });
  EXPECT_EQ(cells, (std::vector<double>{25, 26, 29, 30, 27, 28, 31, 32}));
}

// The error of a bad `mixed` grid names its field.
std::string mixed_error(const json& mixed) {
  json steps = {{"decode", {{"rows", {1}}, {"contexts", {1}}, {"ms", {{1}}}}},
                {"prefill", {{"tokens", {1}}, {"ms", {1}}}},
                {"mixed", mixed}};
  try {
    StepTable::from_json(steps);
  } catch (const InputError& error) {
    return error.what();
  }
  return "no error";
}

TEST(StepTableMixed, BadGridsNameTheField) {
  const json good = {{"chunk_tokens", {4}}, {"rows", {1, 2}}, {"contexts", {8}}, {"ms", {{{1}, {2}}}}};
  EXPECT_EQ(mixed_error(good), "no error");
  auto with = [&](const char* key, const json& value) {
    json mixed = good;
    mixed[key] = value;
    return mixed;
  };
  EXPECT_NE(mixed_error(json::array()).find("steps.mixed"), std::string::npos);
  EXPECT_NE(mixed_error(with("chunk_tokens", {4, 2})).find("steps.mixed.chunk_tokens"), std::string::npos);
  EXPECT_NE(mixed_error(with("rows", {0, 1})).find("steps.mixed.rows"), std::string::npos);
  EXPECT_NE(mixed_error(with("ms", {{{1}}})).find("steps.mixed.ms[0]"), std::string::npos);
  EXPECT_NE(mixed_error(with("ms", {{{1}, {-2}}})).find("steps.mixed.ms[0][1][0]"), std::string::npos);
  EXPECT_NE(mixed_error(with("ms", {{{1}, {1e-9}}})).find("steps.mixed.ms[0][1][0] must be 0 or"), std::string::npos);
  EXPECT_EQ(mixed_error(with("ms", {{{0}, {1e-6}}})), "no error");
  EXPECT_NE(mixed_error(with("ms", {{{1}, {2, 3}}})).find("steps.mixed.ms[0][1]"), std::string::npos);
  EXPECT_NE(mixed_error(with("ms", {{{1}, "x"}})).find("steps.mixed.ms[0][1]"), std::string::npos);
  EXPECT_NE(mixed_error(with("chunk", {1})).find("steps.mixed.chunk"), std::string::npos);
  json missing = good;
  missing.erase("contexts");
  EXPECT_NE(mixed_error(missing).find("steps.mixed.contexts"), std::string::npos);
}

// A table read from JSON prints as it was given (times as floating-point numbers): the model
// description, the grids, the parts.
TEST(StepTableJson, PrintsWhatItRead) {
  const json steps = {{"model", {{"preset", "tiny"}, {"max_seq", 160}, {"kv_bytes_per_token", 512}}},
                      {"decode", {{"rows", {1, 3}}, {"contexts", {10, 20}}, {"ms", {{1.0, 2.5}, {4.0, 8.0}}}}},
                      {"prefill", {{"tokens", {2, 4}}, {"ms", {3.0, 5.0}}}},
                      {"mixed", {{"chunk_tokens", {4}}, {"rows", {1, 2}}, {"contexts", {8}}, {"ms", {{{1.0}, {2.0}}}}}},
                      {"after_prompt", AfterPromptTable({8}, {{1.5, 1.25}}).to_json()}};
  EXPECT_EQ(StepTable::from_json(steps).to_json().dump(), steps.dump());
  EXPECT_FALSE(small_table().to_json().contains("mixed"));
  EXPECT_FALSE(small_table().to_json().contains("after_prompt"));
}

// A table made in the program prices as the same table read from JSON, and reads the model's facts.
TEST(StepTableMade, PricesAsTheSameTableReadFromJson) {
  StepGrids grids;
  grids.decode_rows = {1, 3};
  grids.decode_contexts = {10, 20};
  grids.decode_ms = {1, 2, 4, 8};
  grids.prefill_tokens = {2, 4};
  grids.prefill_ms = {3, 5};
  const StepTable made(grids, {{"max_seq", 160}, {"kv_bytes_per_token", 512}});
  EXPECT_EQ(made.decode_ms(2, 15), small_table().decode_ms(2, 15));  // 1.5 and 6 -> 3.75
  EXPECT_EQ(made.decode_ms(2, 15), 3.75);
  EXPECT_EQ(made.prefill_ms(3), 4.0);
  EXPECT_EQ(made.max_seq(), 160);
  EXPECT_EQ(made.kv_bytes_per_token(), 512.0);
  EXPECT_EQ(StepTable(grids).max_seq(), std::nullopt);
}

TEST(StepTableMade, AGridOutOfShapeIsABug) {
  StepGrids grids;
  grids.decode_rows = {1, 3};
  grids.decode_contexts = {10, 20};
  grids.decode_ms = {1, 2, 4};  // one short
  grids.prefill_tokens = {2, 4};
  grids.prefill_ms = {3, 5};
  EXPECT_THROW(StepTable{grids}, std::logic_error);
  grids.decode_ms = {1, 2, 4, 5e-324};  // shorter than any clock measures
  EXPECT_THROW(StepTable{grids}, std::logic_error);
  grids.decode_ms = {1, 2, 4, 8};
  grids.prefill_tokens = {4, 2};  // not increasing
  EXPECT_THROW(StepTable{grids}, std::logic_error);
}

// replay prices a run on the mean of the tables before and after it: cell by cell, with the first's
// description and parts.
TEST(StepTableMean, CellByCellWithTheFirstTablesDescription) {
  const json before = {{"model", {{"name", "before"}}},
                       {"decode", {{"rows", {1, 3}}, {"contexts", {10, 20}}, {"ms", {{1, 2}, {4, 8}}}}},
                       {"prefill", {{"tokens", {2, 4}}, {"ms", {3, 5}}}},
                       {"mixed", {{"chunk_tokens", {4}}, {"rows", {1}}, {"contexts", {8}}, {"ms", {{{2}}}}}}};
  json after = before;
  after["model"]["name"] = "after";
  after["decode"]["ms"] = {{3, 4}, {6, 12}};
  after["prefill"]["ms"] = {5, 5};
  after["mixed"]["ms"] = {{{4}}};
  const json mean = StepTable::mean(StepTable::from_json(before), StepTable::from_json(after)).to_json();
  EXPECT_EQ(mean["model"]["name"], "before");
  EXPECT_EQ(mean["decode"]["ms"], json({{2, 3}, {5, 10}}));
  EXPECT_EQ(mean["prefill"]["ms"], json({4, 5}));
  EXPECT_EQ(mean["mixed"]["ms"], json({{{3}}}));
  after["prefill"]["tokens"] = {2, 8};
  EXPECT_THROW(StepTable::mean(StepTable::from_json(before), StepTable::from_json(after)), std::logic_error);
}

}  // namespace
}  // namespace kvlab::sim
