// matrix_test.cpp — the seed-001 percentage on known numbers, and the matrix experiment's cells.
#include <gtest/gtest.h>

#include "looplab/api/api.hpp"
#include "looplab/experiments/timing.hpp"
#include "looplab/train/session.hpp"
#include "test_util.hpp"

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
  const json r = run_to_end(
      R"({"experiment": "matrix", "rows_small": 2, "rows_medium": 4, "rows_large": 8, "chunk_ms": 0.1, "repeats": 1, "max_seconds": 0})");
  ASSERT_EQ(r["runs"].size(), 9u);
  EXPECT_EQ(r["runs"][0]["model"], "small (8→16→1)");
  EXPECT_EQ(r["runs"][8]["model"], "large (128→256→1)");
  EXPECT_EQ(r["runs"][8]["parameters"], 33281);
  EXPECT_EQ(r["runs"][2]["data"], "large (8 rows)");
  ASSERT_EQ(r["layers"].size(), 6u);  // each MLP as model.summary() lists it
  EXPECT_EQ(r["layers"][5]["layer"], "Dense(1)");
  EXPECT_EQ(r["layers"][4]["output_shape"], "(None, 256)");
  EXPECT_EQ(r["layers"][4]["parameters"], 128 * 256 + 256);
  int wins = 0;
  for (const auto& c : r["runs"]) {
    const double e = c["eager_us"], t = c["traced_us"], g = c["compiled_us"], f = c["reference_us"];
    EXPECT_GT(e, 0.0);
    EXPECT_GT(g, 0.0);
    EXPECT_DOUBLE_EQ(c["traced_vs_eager_pct"].get<double>(), percent_faster(t, e));
    EXPECT_DOUBLE_EQ(c["compiled_vs_traced_pct"].get<double>(), percent_faster(g, t));
    EXPECT_DOUBLE_EQ(c["reference_vs_traced_pct"].get<double>(), percent_faster(f, t));
    EXPECT_FALSE(c["diverged"].get<bool>());
    if (c["fastest"].is_null()) continue;  // no measurable winner (four modes: ties happen)
    const std::string fastest = c["fastest"];
    const double best = fastest == "eager"      ? e
                        : fastest == "traced"   ? t
                        : fastest == "compiled" ? g
                                                : f;
    EXPECT_LE(best, std::min({e, t, g, f}));
  }
  for (const auto& [mode, n] : r["summary"]["cells_won"].items()) wins += n.get<int>();
  EXPECT_EQ(wins + r["summary"]["cells_without_a_measurable_winner"].get<int>(), 9);
  std::vector<std::string> ids;
  for (const auto& c : r["summary"]["comparisons"]) ids.push_back(c["id"]);
  ASSERT_EQ(ids.size(), 18u);  // traced vs eager, then compiled vs traced, in every cell
  EXPECT_EQ(ids[0], "traced_vs_eager_small_model_small_data");
  EXPECT_EQ(ids[17], "compiled_vs_traced_large_model_large_data");
  const json& w = r["summary"]["wins_every_cell"];
  if (!w.is_null())
    EXPECT_EQ(r["summary"]["cells_won"][w.get<std::string>()], 9);
  else
    for (const auto& [mode, n] : r["summary"]["cells_won"].items())
      EXPECT_LT(n.get<int>(), 9) << mode;
}

// Every cell's model and rows in compiled mode train as in traced mode: the same losses (within
// 1e-5 relative, and 1e-7 absolute: with 2 rows the 128 → 256 model drives its loss towards 0,
// where two float32 summation orders differ by ~5e-9) from the same initial weights on the same
// batch, the session the matrix times.
TEST(Matrix, CompiledCellsGiveTheTracedLosses) {
  for (const auto& [inputs, hidden] : {std::pair{8, 16}, {32, 64}, {128, 256}})
    for (int rows : {2, 8}) {
      std::vector<float> losses[2];
      for (int m = 0; m < 2; ++m) {
        SessionConfig sc;
        sc.mode = m == 0 ? Mode::Traced : Mode::Compiled;
        sc.inputs = inputs;
        sc.hidden = hidden;
        sc.batch = rows;
        TrainerSession session(sc);
        Rng rng(3);
        for (std::size_t i = 0; i < session.staged_x_size(); ++i)
          session.staged_x()[i] = static_cast<float>(rng.normal());
        for (std::size_t i = 0; i < session.staged_y_size(); ++i)
          session.staged_y()[i] = static_cast<float>(rng.normal());
        for (int step = 0; step < 20; ++step) losses[m].push_back(session.train_staged());
      }
      for (std::size_t i = 0; i < losses[0].size(); ++i)
        ASSERT_NEAR(losses[1][i], losses[0][i], 1e-5 * std::abs(losses[0][i]) + 1e-7)
            << inputs << "→" << hidden << ", " << rows << " rows, step " << i;
    }
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
        "rows_large: 100,000 rows need about 2,491 MB for the large model, over the 256 MB limit");
  }
}

// models=seed001: the seed's Conv1D models on its data shapes, scaled; eight cells (the large model
// skips the small data, as in the seed), four modes (the reference their hand-written loop), and
// the scale said beside the seed's sizes.
TEST(Matrix, SeedModelsRunEightCellsOfFourModes) {
  const json r = run_to_end(
      R"({"experiment": "matrix", "models": "seed001", "sequences": 2, "channel_divisor": 16, "length_divisor": 100, "chunk_ms": 0.1, "repeats": 1, "max_seconds": 0})");
  ASSERT_EQ(r["runs"].size(), 8u);
  EXPECT_EQ(r["runs"][0]["model"], "small (889 parameters)");
  EXPECT_EQ(r["runs"][0]["data"], "small (2 × 2 steps × 30)");
  EXPECT_EQ(r["runs"][6]["data"], "medium (2 × 14 steps × 30)");  // the large model's first
  for (const auto& c : r["runs"]) {
    EXPECT_GT(c["eager_us"].get<double>(), 0.0);
    EXPECT_GT(c["compiled_us"].get<double>(), 0.0);
    EXPECT_GT(c["reference_us"].get<double>(), 0.0);
    EXPECT_TRUE(c["reference_vs_traced_pct"].is_number());
    EXPECT_FALSE(c["diverged"].get<bool>());
  }
  EXPECT_EQ(r["summary"]["comparisons"].size(), 16u);
  const std::string scale = r["summary"]["headline"][3]["note"];
  EXPECT_NE(scale.find("small model 889 (the seed's 162,049)"), std::string::npos) << scale;
  EXPECT_NE(scale.find("2 / 14 / 140 (the seed's 140 / 1,400 / 14,000)"), std::string::npos)
      << scale;
  EXPECT_NE(scale.find("large model does not run on the small data"), std::string::npos);
  const json& layers = r["layers"];  // small 5 rows, medium 12, large 51 (45 Conv1D)
  ASSERT_EQ(layers.size(), 5u + 12u + 51u);
  EXPECT_EQ(layers[0]["layer"], "Conv1D(8, 1, strides=4, 'same')");
  EXPECT_EQ(layers[0]["output_shape"], "(None, 1, 8)");  // ⌈2 / 4⌉ steps
  EXPECT_EQ(layers[4]["layer"], "Dense(1, sigmoid)");
  EXPECT_EQ(layers[4]["output_shape"], "(None, 1)");
  long long small = 0;
  for (int i = 0; i < 5; ++i) small += layers[i]["parameters"].get<long long>();
  EXPECT_EQ(small, 889);
}

TEST(Matrix, SeedModelsTooLargeForATabAreRefusedBeforeAllocating) {
  try {
    start_run(
        R"({"experiment": "matrix", "models": "seed001", "channel_divisor": 1, "length_divisor": 1})");
    FAIL();
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("over the 512 MB limit"), std::string::npos) << what;
    EXPECT_NE(what.find("raise channel_divisor or length_divisor"), std::string::npos) << what;
  }
}

// A long run says how long its timing takes before it has taken it: the estimate counts the
// rounds (9 cells x 4 modes x (repeats + 2) x chunk_ms), the cap the extra rounds.
TEST(Matrix, ALongRunSaysHowLongItsTimingTakes) {
  auto run =
      start_run(R"({"experiment": "matrix", "repeats": 3, "chunk_ms": 100, "max_seconds": 30})");
  run->advance(0.0);
  const json p = json::parse(run->progress_json());
  EXPECT_NE(p["message"].get<std::string>().find("its timing takes at least 18 s, and up to 30 s "
                                                 "more while a verdict stays open"),
            std::string::npos)
      << p["message"];
  // A short one says nothing of it.
  auto small = start_run(R"({"experiment": "matrix", "repeats": 1, "chunk_ms": 1})");
  small->advance(0.0);
  EXPECT_EQ(json::parse(small->progress_json())["message"].get<std::string>().find("at least"),
            std::string::npos);
}

}  // namespace
}  // namespace looplab
