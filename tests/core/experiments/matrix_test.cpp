// matrix_test.cpp — the seed-001 percentage on known numbers, and the matrix experiment's cells.
#include <gtest/gtest.h>

#include "looplab/api/api.hpp"
#include "looplab/experiments/timing.hpp"

namespace looplab {
namespace {

TEST(Seed001Percent, SignedByWhichIsFasterSizedByLongerOverShorter) {
  EXPECT_DOUBLE_EQ(percent_faster(1.0, 2.0), 100.0);   // first twice as fast
  EXPECT_DOUBLE_EQ(percent_faster(2.0, 1.0), -100.0);  // first twice as slow
  EXPECT_DOUBLE_EQ(percent_faster(2.0, 3.0), 50.0);
  EXPECT_DOUBLE_EQ(percent_faster(3.0, 2.0), -50.0);
  EXPECT_DOUBLE_EQ(percent_faster(4.0, 4.0), 0.0);
  EXPECT_DOUBLE_EQ(percent_faster(0.25, 1.0), 300.0);
}

TEST(Matrix, NineCellsWithTimesPercentagesAndAWinner) {
  auto run = start_run(
      R"({"experiment": "matrix", "rows_small": 2, "rows_medium": 4, "rows_large": 8, "chunk_ms": 0.1, "repeats": 1})");
  while (!run->advance(50.0)) {
  }
  const json r = json::parse(run->result_json());
  ASSERT_EQ(r["runs"].size(), 9u);
  EXPECT_EQ(r["runs"][0]["model"], "small (8→16→1)");
  EXPECT_EQ(r["runs"][8]["model"], "large (128→256→1)");
  EXPECT_EQ(r["runs"][8]["parameters"], 33281);
  EXPECT_EQ(r["runs"][2]["data"], "large (8 rows)");
  int wins = 0;
  for (const auto& c : r["runs"]) {
    const double e = c["eager_us"], t = c["traced_us"], f = c["reference_us"];
    EXPECT_GT(e, 0.0);
    EXPECT_DOUBLE_EQ(c["traced_vs_eager_pct"].get<double>(), percent_faster(t, e));
    EXPECT_DOUBLE_EQ(c["reference_vs_traced_pct"].get<double>(), percent_faster(f, t));
    const std::string fastest = c["fastest"];
    const double best = fastest == "eager" ? e : fastest == "traced" ? t : f;
    EXPECT_LE(best, std::min({e, t, f}));
    EXPECT_FALSE(c["diverged"].get<bool>());
  }
  for (const auto& [mode, n] : r["summary"]["cells_won"].items()) wins += n.get<int>();
  EXPECT_EQ(wins, 9);
  const json& w = r["summary"]["wins_every_cell"];
  if (!w.is_null())
    EXPECT_EQ(r["summary"]["cells_won"][w.get<std::string>()], 9);
  else
    for (const auto& [mode, n] : r["summary"]["cells_won"].items())
      EXPECT_LT(n.get<int>(), 9) << mode;
}

TEST(Matrix, RefusesUnorderedOrOversizedData) {
  try {
    start_run(R"({"experiment": "matrix", "rows_medium": 16})");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "rows_medium: must be larger than rows_small (32), got 16");
  }
  try {
    start_run(R"({"experiment": "matrix", "rows_large": 100000})");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_STREQ(
        e.what(),
        "rows_large: 100,000 rows need about 1,026 MB for the large model, over the 256 MB limit");
  }
}

}  // namespace
}  // namespace looplab
