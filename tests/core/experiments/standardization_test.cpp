// standardization_test.cpp — the experiment end to end through the public API: results shape,
// acceptance values, progress series, divergence and determinism.
#include <gtest/gtest.h>

#include <cmath>

#include "looplab/api/api.hpp"
#include "looplab/experiments/params.hpp"

namespace looplab {
namespace {

struct Finished {
  json result;
  json streamed;  // the series rebuilt from progress events
};

Finished run_streaming(const std::string& config) {
  auto run = start_run(config);
  Finished f;
  f.streamed = json::object();
  auto absorb = [&](const json& progress) {
    for (const auto& [name, cols] : progress["series"].items())
      for (const auto& [col, values] : cols.items())
        for (const auto& v : values) f.streamed[name][col].push_back(v);
  };
  while (!run->advance(20.0)) absorb(json::parse(run->progress_json()));
  const json last = json::parse(run->progress_json());
  EXPECT_TRUE(last["done"].get<bool>());
  EXPECT_EQ(last["fraction"].get<double>(), 1.0);
  absorb(last);
  f.result = json::parse(run->result_json());
  return f;
}

const json& run_named(const json& result, const std::string& variant) {
  for (const auto& r : result["runs"])
    if (r["variant"] == variant) return r;
  throw std::logic_error("no run " + variant);
}

TEST(Standardization, AcceptanceValuesAndResultShape) {
  const Finished f = run_streaming(R"({"experiment": "standardization", "mode": "reference"})");
  const json& r = f.result;
  for (const char* key : {"experiment", "config", "environment", "series", "runs", "summary"})
    ASSERT_TRUE(r.contains(key)) << key;
  EXPECT_EQ(r["config"]["lr_raw"], 1e-4);
  EXPECT_TRUE(r["environment"].contains("clock_resolution_ns"));

  const json& raw = run_named(r, "raw");
  const json& scaled = run_named(r, "scaled");
  EXPECT_NEAR(scaled["iterations_to_tolerance"].get<double>(), 39, 2);
  EXPECT_GE(raw["iterations_to_tolerance"].get<long long>(), 132000);
  EXPECT_LE(raw["iterations_to_tolerance"].get<long long>(), 134000);
  EXPECT_NEAR(raw["condition_number"].get<double>(), 13300, 133);
  EXPECT_NEAR(scaled["condition_number"].get<double>(), 1.0, 1e-6);
  EXPECT_NEAR(r["summary"]["closed_form"]["W"].get<double>(), 0.96818, 1e-3);
  EXPECT_NEAR(r["summary"]["closed_form"]["b"].get<double>(), 20.27299, 1e-3);
  EXPECT_NEAR(r["summary"]["closed_form"]["mse"].get<double>(), 176.3993, 1e-3);
  EXPECT_GT(r["summary"]["speedup_iterations"].get<double>(), 3000);
  EXPECT_FALSE(r["summary"]["reading"].get<std::string>().empty());
  EXPECT_GE(r["summary"]["headline"].size(), 4u);

  for (const char* variant : {"raw", "scaled"}) {
    const json& s = r["series"][variant];
    const std::size_t n = s["iteration"].size();
    EXPECT_GT(n, 10u);
    EXPECT_LE(n, 2000u);
    EXPECT_EQ(s["loss"].size(), n);
    EXPECT_EQ(s["gap"].size(), n);
    for (std::size_t i = 1; i < n; ++i)
      ASSERT_GT(s["iteration"][i].get<double>(), s["iteration"][i - 1].get<double>());
    EXPECT_EQ(s["iteration"].back(), run_named(r, variant)["iterations_to_tolerance"]);
    EXPECT_LE(s["gap"].back().get<double>(), 1e-6);
    EXPECT_EQ(f.streamed[variant], s) << "progress events must carry exactly the final series";
  }
}

TEST(Standardization, DivergenceIsReportedNotCrashed) {
  const Finished f = run_streaming(R"({"experiment": "standardization", "lr_raw": 0.001})");
  const json& raw = run_named(f.result, "raw");
  ASSERT_FALSE(raw["diverged_at"].is_null());
  EXPECT_GT(raw["diverged_at"].get<long long>(), 5);
  EXPECT_TRUE(raw["iterations_to_tolerance"].is_null());
  EXPECT_TRUE(std::isfinite(raw["W"].get<double>()));
  for (const auto& col : {"loss", "gap"})
    for (const auto& v : f.result["series"]["raw"][col])
      ASSERT_TRUE(v.is_number() && std::isfinite(v.get<double>()));
  EXPECT_NE(f.result["summary"]["reading"].get<std::string>().find("diverged at iteration"),
            std::string::npos);
  EXPECT_EQ(run_named(f.result, "scaled")["iterations_to_tolerance"], 39);
}

TEST(Standardization, NotReachedIsNull) {
  const Finished f = run_streaming(
      R"({"experiment": "standardization", "max_iterations": 1000, "mode": "eager"})");
  const json& raw = run_named(f.result, "raw");
  EXPECT_TRUE(raw["iterations_to_tolerance"].is_null());
  EXPECT_EQ(raw["iterations_run"], 1000);
  EXPECT_TRUE(f.result["summary"]["speedup_iterations"].is_null());
}

TEST(Standardization, SameConfigSameResultsApartFromTimings) {
  const std::string config =
      R"({"experiment": "standardization", "data": "synthetic", "n": 300, "max_iterations": 3000})";
  json a = run_streaming(config).result, b = run_streaming(config).result;
  for (json* r : {&a, &b}) {
    r->erase("environment");
    for (auto& run : (*r)["runs"])
      for (const char* k : {"wall_ms", "us_per_iteration", "scaling_ms"}) run.erase(k);
    (*r)["summary"].erase("headline");
    (*r)["summary"].erase("reading");
    (*r)["summary"].erase("speedup_wall");
  }
  EXPECT_EQ(a, b);
}

TEST(Standardization, MinMaxScalingConvergesSlowerThanStandardizing) {
  const Finished f = run_streaming(
      R"({"experiment": "standardization", "scaling": "minmax", "max_iterations": 20000})");
  const json& scaled = run_named(f.result, "scaled");
  EXPECT_GT(scaled["condition_number"].get<double>(), 2.0);
  ASSERT_FALSE(scaled["iterations_to_tolerance"].is_null());
  EXPECT_GT(scaled["iterations_to_tolerance"].get<long long>(), 39);
  EXPECT_EQ(scaled["scaling"], "minmax");
}

TEST(Standardization, ListAndEnvironment) {
  const json list = json::parse(list_experiments_json());
  ASSERT_FALSE(list.empty());
  EXPECT_EQ(list[0]["id"], "standardization");
  const json env = json::parse(environment_json());
  EXPECT_GT(env["clock_resolution_ns"].get<double>(), 0.0);
#if defined(__EMSCRIPTEN__)
  EXPECT_EQ(env["build"], "wasm");
#else
  EXPECT_EQ(env["build"], "native");
#endif
}

}  // namespace
}  // namespace looplab
