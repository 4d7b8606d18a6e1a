// divergence_test.cpp — a run whose loss becomes NaN or Inf stops at that step, says "diverged at
// step k" with the last finite values, and its series hold only finite points (plots stop there).
#include <gtest/gtest.h>

#include <cmath>

#include "looplab/api/api.hpp"
#include "looplab/experiments/experiment.hpp"
#include "looplab/experiments/results.hpp"
#include "test_util.hpp"

namespace looplab {
namespace {

json run_until_done(const std::string& config) {
  return run_to_end(config, 50.0, [](const json& p) { EXPECT_TRUE(p.is_object()); });
}

// Every number in every series is finite (NaN and Inf would dump as null).
void expect_finite_series(const json& result) {
  for (const auto& [name, columns] : result["series"].items())
    for (const auto& [column, values] : columns.items())
      for (const auto& v : values)
        EXPECT_TRUE(v.is_number() && std::isfinite(v.get<double>())) << name << "." << column;
}

TEST(Divergence, StandardizationAboveTheStableRateStopsAtTheFirstNonFiniteStep) {
  // 2/λmax for raw x is about 2e-4 (standardization_test.cpp): 1e-2 diverges within a few hundred
  // steps.
  const json r = run_until_done(
      R"({"experiment": "standardization", "lr_raw": 0.01, "max_iterations": 100000})");
  const json& raw = r["runs"][0];
  ASSERT_EQ(raw["variant"], "raw");
  ASSERT_TRUE(raw["diverged_at"].is_number_integer()) << raw.dump();
  const long long k = raw["diverged_at"].get<long long>();
  EXPECT_GT(k, 0);
  EXPECT_LT(k, 100000);
  EXPECT_EQ(raw["iterations_run"].get<long long>(), k);  // stopped there, not at max_iterations
  EXPECT_TRUE(raw["final_gap"].is_null());
  EXPECT_TRUE(std::isfinite(raw["W"].get<double>()) &&
              std::isfinite(raw["b"].get<double>()));  // last finite weights
  const json& iterations = r["series"]["raw"]["iteration"];
  ASSERT_FALSE(iterations.empty());
  EXPECT_LE(iterations.back().get<long long>(),
            k);  // the last point is the last finite one: step k made it non-finite
  expect_finite_series(r);
  EXPECT_NE(
      r["summary"]["reading"].get<std::string>().find("diverged at iteration " + with_commas(k)),
      std::string::npos);
  EXPECT_TRUE(r["runs"][1]["diverged_at"].is_null()) << "the scaled run is unaffected";
}

// Adam's step is bounded by lr (at most 1 here), so the Adam experiments do not reach NaN inside
// their declared ranges; these check that their results carry the divergence fields a NaN would
// fill, at the largest lr, with finite series.
TEST(Divergence, AdamExperimentsReportDivergenceFieldsAtTheLargestLr) {
  const json modes = run_until_done(
      R"({"experiment": "execution-modes", "n": 1000, "batch": 100, "epochs": 5, "lr": 1, "activation": "linear"})");
  for (const auto& run : modes["runs"]) {
    EXPECT_TRUE(run.contains("diverged_at") && run.contains("last_finite_loss")) << run.dump();
    EXPECT_TRUE(run["diverged_at"].is_null()) << run.dump();
  }
  expect_finite_series(modes);
  const json unroll =
      run_until_done(R"({"experiment": "unroll", "n": 1000, "batch": 100, "epochs": 2, "lr": 1})");
  for (const auto& run : unroll["runs"])
    EXPECT_TRUE(run.contains("diverged_at") && run["diverged_at"].is_null());
  const json retracing = run_until_done(R"({"experiment": "retracing", "lr": 1})");
  EXPECT_TRUE(retracing["summary"]["diverged_at"].is_null());
  EXPECT_TRUE(std::isfinite(retracing["summary"]["last_finite_loss"].get<double>()));
}

}  // namespace
}  // namespace looplab
