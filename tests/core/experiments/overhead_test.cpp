// overhead_test.cpp — the weighted fit of t(N) = a + b·N, log-spaced sizes, and the overhead
// experiment's result shape and validation.
#include <gtest/gtest.h>

#include <cmath>

#include "looplab/api/api.hpp"
#include "looplab/experiments/timing.hpp"
#include "looplab/train/linear_trainer.hpp"
#include "looplab/train/session.hpp"
#include "test_util.hpp"

namespace looplab {
namespace {

TEST(CostLine, RecoversAAndBExactlyFromAnExactLine) {
  const double a = 3.5, b = 0.0021;  // µs and µs per point
  std::vector<double> n = {10, 100, 1000, 1e4, 1e5, 1e6}, t;
  for (double x : n) t.push_back(a + b * x);
  const CostLine c = fit_cost_line(n, t);
  EXPECT_NEAR(c.a, a, 1e-9 * a);
  EXPECT_NEAR(c.b, b, 1e-9 * b);
  ASSERT_TRUE(c.crossover.has_value());
  EXPECT_NEAR(*c.crossover, a / b, 1e-6 * a / b);
}

TEST(CostLine, RelativeWeightsKeepTheSmallNEndHonest) {
  // ±1% multiplicative noise: an unweighted fit would let the largest N (t ≈ 2000) move a by ±20;
  // weighting by 1/t² keeps a within a few percent.
  const double a = 2.0, b = 0.002;
  std::vector<double> n, t;
  for (int i = 0; i <= 10; ++i) {
    n.push_back(std::pow(10.0, 1.0 + 0.5 * i));
    t.push_back((a + b * n.back()) * (i % 2 ? 1.01 : 0.99));
  }
  const CostLine c = fit_cost_line(n, t);
  EXPECT_NEAR(c.a, a, 0.05 * a);
  EXPECT_NEAR(c.b, b, 0.02 * b);
}

TEST(CostLine, NoCrossoverWithoutAPositiveOverheadAndNeedsTwoSizes) {
  const CostLine c = fit_cost_line({10, 100}, {0.01, 0.1});  // t = 0.001·N exactly: a = 0
  EXPECT_NEAR(c.a, 0.0, 1e-12);
  EXPECT_FALSE(c.crossover.has_value() && c.a > 0.0);
  EXPECT_THROW(fit_cost_line({10}, {1}), std::invalid_argument);
  EXPECT_THROW(fit_cost_line({10, 10}, {1, 2}), std::invalid_argument);
}

TEST(CostLine, ATimeThatReadZeroIsRefusedByName) {
  // A chunk timed below the clock's tick reads 0; its weight 1/t² would be infinite.
  try {
    fit_cost_line({10, 100, 1000}, {0.0, 1.0, 2.0});
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("positive"), std::string::npos) << e.what();
  }
}

TEST(TimeSteps, ASlowFirstCallDoesNotLeaveChunksTooShortToTime) {
  // The first call spins for 3 ms (a cold session), the rest are almost free: stopping the
  // doubling at k = 1 would time chunks of one cheap step, a few clock ticks or 0.
  int calls = 0;
  const auto step = [&] {
    if (calls++ == 0) {
      const Stopwatch w;
      while (w.elapsed_ms() < 3.0) {
      }
    }
    return 1.0f;
  };
  const double chunk_ms = 2.0;
  const ChunkTiming t = time_steps(step, chunk_ms, 3);
  EXPECT_GT(t.steps_per_chunk, 1);
  EXPECT_GE(t.us_per_step * static_cast<double>(t.steps_per_chunk) / 1000.0, chunk_ms / 4)
      << "a timed chunk lasts at least a quarter of chunk_ms";
}

TEST(HalfIqr, HalfTheInterquartileRange) {
  EXPECT_DOUBLE_EQ(half_iqr({5, 1, 4, 2, 3}), 1.0);  // quartiles 2 and 4
  EXPECT_DOUBLE_EQ(half_iqr({1, 2}), 0.25);          // 1.25 and 1.75
  EXPECT_DOUBLE_EQ(half_iqr({7}), 0.0);
  EXPECT_DOUBLE_EQ(half_iqr({3, 3, 3, 3, 3, 100}), 0.0) << "one outlier does not widen it";
}

TEST(LogSpaced, EndpointsIncludedIncreasingAndLogEven) {
  const auto v = log_spaced(10, 1'000'000, 11);
  ASSERT_EQ(v.size(), 11u);
  EXPECT_EQ(v.front(), 10);
  EXPECT_EQ(v.back(), 1'000'000);
  EXPECT_EQ(v[2], 100);  // two steps of 10^0.5
  for (std::size_t i = 1; i < v.size(); ++i) EXPECT_GT(v[i], v[i - 1]);
  EXPECT_EQ(log_spaced(1, 3, 10), (std::vector<long long>{1, 2, 3})) << "duplicates dropped";
}

TEST(Overhead, ResultShapeTinyRun) {
  const json r = run_to_end(
      R"({"experiment": "overhead", "n_min": 10, "n_max": 1000, "points": 3, "chunk_ms": 0.2, "repeats": 2})");
  ASSERT_EQ(r["runs"].size(), 4u);
  EXPECT_EQ(r["points"].size(), 12u);
  for (const char* m : {"eager", "traced", "compiled", "reference"}) {
    EXPECT_EQ(r["series"][m]["n"], json::parse("[10, 100, 1000]")) << m;
    EXPECT_EQ(r["series"][std::string(m) + "_fit"]["us_per_step"].size(), 3u) << m;
    for (double us : r["series"][m]["us_per_step"]) EXPECT_GT(us, 0.0) << m;
  }
  for (const auto& run_json : r["runs"]) {
    for (const char* k : {"mode", "a_us", "b_ns_per_point", "crossover_n", "diverged"})
      EXPECT_TRUE(run_json.contains(k)) << k;
    EXPECT_FALSE(run_json["diverged"].get<bool>());
  }
  EXPECT_TRUE(r["summary"]["a_fixed_us"].contains("eager"));
  EXPECT_TRUE(r["summary"]["a_fixed_us"].contains("compiled"));
  std::vector<std::string> ids;
  for (const auto& c : r["summary"]["comparisons"]) ids.push_back(c["id"]);
  EXPECT_EQ(ids, (std::vector<std::string>{
                     "traced_vs_eager_at_n_min", "reference_vs_traced_at_n_min",
                     "traced_vs_eager_at_n_max", "reference_vs_traced_at_n_max",
                     "compiled_vs_traced_at_n_min", "compiled_vs_traced_at_n_max"}));
}

// The overhead experiment times each mode's step on the seed-004 data: compiled mode's step must
// compute what the traced step computes (its losses within 1e-5 relative) at every N it measures.
TEST(Overhead, CompiledStepsGiveTheTracedLosses) {
  for (int n : {10, 100, 1000}) {
    const LinearData d = overhead_data(n);
    auto traced = make_linear_trainer(Mode::Traced, d.x, d.y);
    auto compiled = make_linear_trainer(Mode::Compiled, d.x, d.y);
    for (int step = 0; step < 50; ++step) {
      const float a = traced->step(1e-4f), b = compiled->step(1e-4f);
      ASSERT_NEAR(b, a, 1e-5 * std::abs(a)) << "N = " << n << ", step " << step;
    }
  }
}

std::string config_error(const std::string& config) {
  try {
    start_run(config);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Overhead, RefusesBadRangesAndTooManyPoints) {
  EXPECT_EQ(config_error(R"({"experiment": "overhead", "n_min": 1000, "n_max": 100})"),
            "n_max: must be larger than n_min (1,000), got 100");
  EXPECT_EQ(config_error(R"({"experiment": "overhead", "n_max": 10000000})"),
            "n_max: 10,000,000 points need about 763 MB, over the 256 MB limit (at most 3,355,443 "
            "points)");
  EXPECT_EQ(config_error(R"({"experiment": "overhead", "points": 1})"),
            "points: must be an integer in [2, 40], got 1");
}

}  // namespace
}  // namespace looplab
