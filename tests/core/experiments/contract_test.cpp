// contract_test.cpp — every registered experiment, run on a small config, returns a result and
// progress events that keep the contract of result_contract.hpp; and the checks themselves catch
// each kind of violation.
#include <gtest/gtest.h>

#include <algorithm>

#include "looplab/api/api.hpp"
#include "looplab/base/i18n.hpp"
#include "looplab/experiments/experiment.hpp"
#include "result_contract.hpp"
#include "small_runs.hpp"
#include "test_util.hpp"

namespace looplab {
namespace {

std::string lines(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += "\n  " + s;
  return out;
}

bool mentions(const std::vector<std::string>& violations, const std::string& text) {
  return std::any_of(violations.begin(), violations.end(),
                     [&](const std::string& v) { return v.find(text) != std::string::npos; });
}

// Every experiment declares a small config and golden configs, and each of them is valid.
TEST(ResultContract, EveryExperimentDeclaresValidTestConfigs) {
  for (const Experiment& e : experiments()) {
    SCOPED_TRACE(e.id);
    EXPECT_FALSE(e.small_config.empty()) << "a small config cuts the sizes of the defaults";
    EXPECT_EQ(error_of(small_config_of(e.id).dump()), "");
    EXPECT_FALSE(e.golden_configs.empty());
    for (const auto& sets : e.golden_configs)
      EXPECT_EQ(error_of(with_assignments({{"experiment", e.id}}, sets).dump()), "");
  }
}

TEST(ResultContract, ExtraTablesAreDeclaredForRegisteredExperiments) {
  for (const ResultTable& t : kResultTables) EXPECT_NO_THROW(find_experiment(t.experiment));
}

class EveryExperiment : public testing::TestWithParam<std::string> {};

// Small budgets, so every run streams several progress events.
TEST_P(EveryExperiment, ResultAndProgressKeepTheContract) {
  const RecordedRun r = run_small(GetParam(), 2.0);
  EXPECT_EQ(r.result["experiment"], GetParam());
  const std::vector<std::string> result = check_result(r.result);
  EXPECT_TRUE(result.empty()) << "result:" << lines(result);
  const std::vector<std::string> progress = check_progress_sequence(r.events, r.result);
  EXPECT_TRUE(progress.empty()) << "progress:" << lines(progress);
}

INSTANTIATE_TEST_SUITE_P(ResultContract, EveryExperiment, testing::ValuesIn(experiment_ids()),
                         [](const auto& info) { return test_name(info.param); });

// The experiments whose mode is a parameter, in compiled mode (the others run every mode on their
// small config already).
TEST(ResultContract, CompiledModeRunsKeepTheContract) {
  for (const char* id : {"unroll", "retracing", "pipelines", "standardization"}) {
    SCOPED_TRACE(id);
    const RecordedRun r = run_small(id, 2.0, {{"mode", "compiled"}});
    const std::vector<std::string> violations = check_result(r.result);
    EXPECT_TRUE(violations.empty()) << "result:" << lines(violations);
    const std::vector<std::string> progress = check_progress_sequence(r.events, r.result);
    EXPECT_TRUE(progress.empty()) << "progress:" << lines(progress);
  }
}

// A small valid result by hand, to break one way at a time.
json valid_result() {
  const Experiment& e = find_experiment("retracing");
  json config = {{"experiment", "retracing"}};
  for (const ParamSpec& p : e.params) config[p.name] = p.default_value;
  return {{"experiment", "retracing"},
          {"config", config},
          {"environment", {{"build", "native"}}},
          {"series", {{"traced", {{"call", {0, 1}}, {"ms", {2.5, 1.5}}}}}},
          {"runs", {{{"call", 0}}}},
          {"calls", {{{"call", 0}}, {{"call", 1}}}},
          {"summary",
           {{"headline", {{{"label", "Traces"}, {"value", "1 of 2"}, {"note", "first call"}}}},
            {"reading", "One call traced."},
            {"answer", "It traced once."},
            {"comparisons", json::array()}}}};
}

TEST(ResultContract, CheckResultReportsEachViolation) {
  ASSERT_EQ(check_result(valid_result()), std::vector<std::string>{});
  const auto broken = [](auto change) {
    json r = valid_result();
    change(r);
    return check_result(r);
  };
  EXPECT_TRUE(mentions(broken([](json& r) { r["points"] = json::array(); }),
                       "points: not a key of the result contract"));
  EXPECT_TRUE(mentions(broken([](json& r) { r.erase("calls"); }), "calls: missing"));
  EXPECT_TRUE(mentions(broken([](json& r) { r.erase("environment"); }), "environment: missing"));
  EXPECT_TRUE(mentions(broken([](json& r) { r["runs"] = json::object(); }),
                       "runs: must be array, got object"));
  EXPECT_TRUE(
      mentions(broken([](json& r) { r["runs"].push_back(3); }), "runs[1]: must be an object"));
  EXPECT_TRUE(mentions(broken([](json& r) { r["series"]["traced"]["ms"].push_back(1.0); }),
                       "series.traced.ms: 3 values, the series' first column has 2"));
  EXPECT_TRUE(mentions(broken([](json& r) { r["series"]["traced"]["ms"][0] = "slow"; }),
                       "series.traced.ms: must hold numbers or null"));
  EXPECT_TRUE(mentions(broken([](json& r) { r["summary"].erase("reading"); }),
                       "summary.reading: must be a non-empty string"));
  EXPECT_TRUE(mentions(broken([](json& r) { r["summary"].erase("comparisons"); }),
                       "summary.comparisons: must be an array, got null"));
  EXPECT_TRUE(mentions(broken([](json& r) { r["summary"]["answer"] = ""; }),
                       "summary.answer: must be a non-empty string"));
  EXPECT_TRUE(mentions(broken([](json& r) { r["summary"]["headline"] = json::array(); }),
                       "summary.headline: must be a non-empty array"));
  EXPECT_TRUE(mentions(broken([](json& r) { r["summary"]["headline"][0].erase("value"); }),
                       "summary.headline[0].value: must be a string"));
  EXPECT_TRUE(mentions(broken([](json& r) { r["config"].erase("lr"); }), "config.lr: missing"));
  EXPECT_TRUE(mentions(broken([](json& r) { r["config"]["speed"] = 1; }),
                       "config.speed: not a parameter of retracing"));
  EXPECT_TRUE(mentions(broken([](json& r) { r["experiment"] = "nope"; }),
                       "\"nope\" is not a registered experiment"));
  EXPECT_FALSE(check_result(json::array()).empty());
}

TEST(ResultContract, CheckProgressReportsEachViolation) {
  const json ok = {{"done", false},
                   {"fraction", 0.5},
                   {"message", "call 1 of 2"},
                   {"series", {{"traced", {{"call", {0}}, {"ms", {2.5}}}}}}};
  EXPECT_EQ(check_progress(ok), std::vector<std::string>{});
  const auto broken = [&](auto change) {
    json e = ok;
    change(e);
    return check_progress(e);
  };
  EXPECT_TRUE(mentions(broken([](json& e) { e["fraction"] = 1.0; }),
                       "fraction: must be below 1 until done"));
  EXPECT_TRUE(mentions(broken([](json& e) { e["done"] = true; }), "fraction: must be 1 when done"));
  EXPECT_TRUE(
      mentions(broken([](json& e) { e["fraction"] = -0.1; }), "fraction: must be in [0, 1]"));
  EXPECT_TRUE(mentions(broken([](json& e) { e.erase("message"); }), "message: missing"));
  EXPECT_TRUE(mentions(broken([](json& e) { e["extra"] = 1; }),
                       "extra: not a key of the progress contract"));
  EXPECT_EQ(broken([](json& e) {
              e["i18n"] = msg("rt.progress", {{"i", 1}, {"n", 2}});
            }),
            std::vector<std::string>{});
  EXPECT_TRUE(mentions(broken([](json& e) {
                         e["i18n"] = msg("rt.progress", {{"i", 2}, {"n", 2}});
                       }),
                       "i18n: renders in English as \"call 2 of 2\", not as message"));
  EXPECT_TRUE(mentions(broken([](json& e) { e["series"]["traced"]["call"].push_back(1); }),
                       "series.traced.ms: 1 values, the series' first column has 2"));

  // In sequence: fraction only grows, and the points streamed are the result's.
  json done = {{"done", true},
               {"fraction", 1.0},
               {"message", "done"},
               {"series", {{"traced", {{"call", {1}}, {"ms", {1.5}}}}}}};
  const json result = valid_result();
  EXPECT_EQ(check_progress_sequence({ok, done}, result), std::vector<std::string>{});
  EXPECT_TRUE(mentions(check_progress_sequence({ok, ok}, result), "the last event is not done"));
  json back = ok;
  back["fraction"] = 0.25;
  EXPECT_TRUE(mentions(check_progress_sequence({ok, back, done}, result), "fraction went down"));
  EXPECT_TRUE(mentions(check_progress_sequence({done}, result),
                       "series.traced.call: the streamed points are not the result's"));
  json other = done;
  other["series"] = {{"replayed", {{"call", {1}}, {"ms", {1.5}}}}};
  EXPECT_TRUE(mentions(check_progress_sequence({ok, other}, result),
                       "series.replayed: streamed in progress but not in the result"));
}

}  // namespace
}  // namespace looplab

namespace looplab {
namespace {

// Found by fuzz_run: with one batch per epoch unroll has a single k (1 = all) and nothing to
// compare; its summary indexed a comparison that did not exist.
TEST(ResultContract, UnrollWithOneBatchPerEpochKeepsTheContract) {
  const json result =
      run_to_end(R"({"experiment": "unroll", "n": 100, "batch": 100, "epochs": 2})");
  EXPECT_EQ(result["runs"].size(), 1u);
  EXPECT_TRUE(result["summary"]["comparisons"].empty());
  EXPECT_NE(result["summary"]["answer"].get<std::string>().find("nothing to unroll"),
            std::string::npos);
  const std::vector<std::string> v = check_result(result);
  EXPECT_TRUE(v.empty()) << lines(v);
}

}  // namespace
}  // namespace looplab
