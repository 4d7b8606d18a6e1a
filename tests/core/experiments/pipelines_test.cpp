// pipelines_test.cpp — the pipelines experiment at tiny sizes: every pipeline feeds the same
// batches in the same order (so the same losses), counts its batches per epoch, and the result
// has the shape the page and the CLI read. Also: the user's CSV in standardization and
// execution-modes.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "looplab/api/api.hpp"
#include "test_util.hpp"

namespace looplab {
namespace {

using json = nlohmann::ordered_json;

json run_pipelines(const json& config) {
  return run_to_end(config.dump(), 50.0,
                    [](const json&) {});  // progress between chunks, as a caller
}

std::string pipelines_error_of(const json& config) {
  try {
    start_run(config.dump());
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

const char* const kRaw[] = {"slice_batch",  "slice_batch_cache", "slice_batch_cache_prefetch",
                            "prebatched",   "prebatched_cache",  "prebatched_cache_prefetch",
                            "repeat_inside"};

json tiny(const char* mode) {
  return {{"experiment", "pipelines"},
          {"n", 200},
          {"batch", 20},
          {"epochs", 3},
          {"mode", mode},
          {"unroll", 5}};
}

TEST(Pipelines, ResultShapeAndBatchCounts) {
  const json r = run_pipelines(tiny("traced"));
  EXPECT_EQ(r["experiment"], "pipelines");
  ASSERT_EQ(r["runs"].size(), 9u);
  for (const auto& run : r["runs"]) {
    SCOPED_TRACE(run["variant"].get<std::string>());
    EXPECT_EQ(run["batches_per_epoch"], json::array({10, 10, 10}));
    EXPECT_EQ(run["epochs"], 3);
    for (const char* k :
         {"ms_per_epoch", "first_epoch_ms", "pipeline_us_per_batch", "step_us_per_batch"}) {
      ASSERT_TRUE(run[k].is_number()) << k;
      EXPECT_GE(run[k].get<double>(), 0.0) << k;
    }
    EXPECT_GT(run["step_us_per_batch"].get<double>(), 0.0);
    EXPECT_EQ(r["series"][run["variant"].get<std::string>()]["loss"].size(), 3u);
    EXPECT_EQ(run["steps_per_call"], run["variant"] == "repeat_inside" ? 5 : 1);
  }
  EXPECT_TRUE(r["summary"]["prebatched_speedup"].is_number());
  EXPECT_EQ(r["summary"]["headline"].size(), 6u);
#ifdef __EMSCRIPTEN__
  EXPECT_EQ(r["summary"]["prefetch_overlap"], false);
  EXPECT_NE(r["summary"]["reading"].get<std::string>().find("no overlap"), std::string::npos);
#else
  EXPECT_EQ(r["summary"]["prefetch_overlap"], true);
#endif
}

// Same batches, same order, same initial weights: the per-epoch mean losses must match.
void expect_same_losses(const json& r) {
  const json& s = r["series"];
  const json& base = s["slice_batch"]["loss"];
  for (const char* v : kRaw)
    for (std::size_t e = 0; e < base.size(); ++e)
      EXPECT_NEAR(s[v]["loss"][e].get<double>(), base[e].get<double>(),
                  1e-6 * std::abs(base[e].get<double>()))
          << v << " epoch " << e;
  EXPECT_EQ(s["map_per_batch"]["loss"],
            s["transform_once"]["loss"]);       // the same float function, per batch or once
  EXPECT_NE(s["map_per_batch"]["loss"], base);  // standardizing x changes the problem a little
  EXPECT_LT(base.back().get<double>(),
            base.front().get<double>() + 1e-3);  // it trains, it does not blow up
}

TEST(Pipelines, EveryPipelineTrainsTheSameModelToTheSameLoss) {
  const json r = run_pipelines(tiny("traced"));
  expect_same_losses(r);
  // Exactly the same bits where the program is the same (one step per call).
  for (const char* v : {"slice_batch_cache", "slice_batch_cache_prefetch", "prebatched",
                        "prebatched_cache", "prebatched_cache_prefetch"})
    EXPECT_EQ(r["series"][v]["loss"], r["series"]["slice_batch"]["loss"]) << v;
}

TEST(Pipelines, EagerModeAgreesAndRepeatInsideTakesOneBatchPerCall) {
  const json r = run_pipelines(tiny("eager"));
  expect_same_losses(r);
  EXPECT_EQ(r["runs"][6]["steps_per_call"], 1);
}

TEST(Pipelines, ParametersAreValidated) {
  json c = tiny("traced");
  c["batch"] = 30;
  EXPECT_EQ(pipelines_error_of(c), "batch: must divide n (200) so every batch is full, got 30");
  c = tiny("traced");
  c["unroll"] = 3;
  EXPECT_EQ(pipelines_error_of(c),
            "unroll: must divide the number of batches per epoch (10), got 3");
  c = tiny("traced");
  c["mode"] = "unrolled";
  EXPECT_EQ(pipelines_error_of(c),
            "mode: must be one of traced | eager | compiled, got \"unrolled\"");
  c = tiny("traced");
  c["epochs"] = 0;
  EXPECT_EQ(pipelines_error_of(c), "epochs: must be an integer in [1, 1000], got 0");
}

// ---- the user's CSV in the experiments that take it
// -------------------------------------------------

std::string line_csv(int rows) {  // y = 2x + 1 exactly, plus a column that is not used
  std::string t = "\"x value\",unused,target\n";
  for (int i = 0; i < rows; ++i) t += std::to_string(i) + ",7," + std::to_string(2 * i + 1) + "\n";
  return t;
}

TEST(CsvData, StandardizationFitsTheUsersColumns) {
  const json r = run_pipelines(
      {{"experiment", "standardization"},
       {"max_iterations", 2000},
       {"csv", {{"text", line_csv(20)}, {"x", "x value"}, {"y", "target"}, {"name", "line.csv"}}}});
  EXPECT_NEAR(r["summary"]["closed_form"]["W"].get<double>(), 2.0, 1e-9);
  EXPECT_NEAR(r["summary"]["closed_form"]["b"].get<double>(), 1.0, 1e-9);
  EXPECT_EQ(r["config"]["data"], "csv");
  EXPECT_EQ(r["config"]["csv"]["rows"], 20);
  EXPECT_FALSE(
      r["config"]["csv"].contains("text"));  // the result reports the data, not a copy of it
}

TEST(CsvData, ExecutionModesTakesNFromTheRows) {
  const json r =
      run_pipelines({{"experiment", "execution-modes"},
                     {"batch", 10},
                     {"epochs", 2},
                     {"unroll", 5},
                     {"csv", {{"text", line_csv(50)}, {"x", "x value"}, {"y", "target"}}}});
  EXPECT_EQ(r["config"]["n"], 50);
  for (const auto& run : r["runs"]) EXPECT_EQ(run["steps"], 10);
}

TEST(CsvData, ValidationChecksTheFileAndDoesNotEchoIt) {
  const json ok = json::parse(validate_config_json(json{
      {"experiment", "standardization"},
      {"csv",
       {{"text", line_csv(3)}, {"x", "x value"}}}}.dump()));
  EXPECT_EQ(ok["csv"], (json{{"x", "x value"}}));
  EXPECT_THROW(
      validate_config_json(
          json{{"experiment", "standardization"}, {"csv", {{"text", "a,b\n1,\n"}}}}.dump()),
      ConfigError);
}

TEST(CsvData, ErrorsReachTheCaller) {
  const json bad = {{"experiment", "standardization"}, {"csv", {{"text", "a,b\n1,2\n3,x\n"}}}};
  EXPECT_EQ(pipelines_error_of(bad),
            "csv line 3 (data row 2), column \"b\": \"x\" is not a number");
  const json unknown = {{"experiment", "standardization"},
                        {"csv", {{"text", line_csv(3)}, {"x", "nope"}}}};
  EXPECT_EQ(pipelines_error_of(unknown).rfind("x: no column \"nope\"", 0), 0u);
  const json constant = {{"experiment", "standardization"},
                         {"csv", {{"text", line_csv(3)}, {"x", "unused"}}}};
  EXPECT_EQ(pipelines_error_of(constant),
            "x: column \"unused\" has one value in every row; a line through it is not determined");
  const json small = {{"experiment", "execution-modes"}, {"csv", {{"text", line_csv(5)}}}};
  EXPECT_EQ(pipelines_error_of(small), "batch: must be at most the CSV's rows (5), got 100");
  const json not_taken = {{"experiment", "pipelines"}, {"csv", {{"text", line_csv(5)}}}};
  EXPECT_EQ(pipelines_error_of(not_taken),
            "csv: experiment pipelines does not take data of its own");
}

}  // namespace
}  // namespace looplab
