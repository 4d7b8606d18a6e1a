// unroll_test.cpp — the unroll experiment in compiled mode: every k's program generated as code
// trains as the traced program with the same k, and the reading says what generating cost.
#include <gtest/gtest.h>

#include <cmath>

#include "looplab/api/api.hpp"
#include "test_util.hpp"

namespace looplab {
namespace {

json run_unroll(const std::string& extra) {
  return run_to_end(R"({"experiment": "unroll", "n": 500, "epochs": 2)" + extra + "}", 100.0);
}

// With one epoch, k = all makes a single call: its time per step is that cold first call's, so it
// is flagged and left out of the comparisons, and the reading says so instead of comparing it.
TEST(Unroll, AKWithASingleCallIsNotComparedAsASteadyStep) {
  const json r =
      run_to_end(R"({"experiment": "unroll", "n": 500, "epochs": 1, "max_seconds": 0})", 100.0);
  const json& all = r["runs"].back();
  EXPECT_TRUE(all["steady_from_first_call"].get<bool>());
  EXPECT_FALSE(r["runs"].front()["steady_from_first_call"].get<bool>());
  for (const json& c : r["summary"]["comparisons"])
    EXPECT_NE(c["id"], "step_k" + std::to_string(all["k"].get<int>()) + "_vs_k1");
  const std::string reading = r["summary"]["reading"];
  EXPECT_NE(reading.find("k = " + std::to_string(all["k"].get<int>()) + " ran a single call"),
            std::string::npos)
      << reading;
  const std::string headline = r["summary"]["headline"][1]["value"];
  EXPECT_EQ(headline, "no steady step at k = all: it ran a single call (one epoch)");
}

// One epoch: the configured work ends with the first calls, before the rounds of trace + compile;
// the compile and step plots still get a point per k once those rounds are done.
TEST(Unroll, OneEpochStillPlotsEveryK) {
  const json r = run_to_end(R"({"experiment": "unroll", "n": 500, "epochs": 1})", 100.0);
  EXPECT_EQ(r["series"]["compile"]["k"].size(), r["runs"].size());
  EXPECT_EQ(r["series"]["step"]["k"].size(), r["runs"].size());
  for (const json& c : r["summary"]["comparisons"])
    if (c["id"] == "compile_all_vs_k1") EXPECT_GE(c["rounds"].get<int>(), kMinDecidingRounds);
}

TEST(Unroll, CompiledModeTrainsAsTracedModeForEveryK) {
  const json traced = run_unroll("");
  const json compiled = run_unroll(R"(, "mode": "compiled")");
  ASSERT_EQ(compiled["runs"].size(), traced["runs"].size());
  for (std::size_t i = 0; i < traced["runs"].size(); ++i) {
    const json &t = traced["runs"][i], &c = compiled["runs"][i];
    SCOPED_TRACE("k = " + std::to_string(t["k"].get<int>()));
    EXPECT_EQ(c["k"], t["k"]);
    const double a = t["final_loss"], b = c["final_loss"];
    EXPECT_NEAR(b, a, 1e-5 * std::abs(a));
    // k steps of one step's code (compiled mode fuses loops of any length, traced from 64 on)
    EXPECT_EQ(c["instructions"].get<long long>(),
              c["k"].get<long long>() * compiled["runs"][0]["instructions"].get<long long>());
    EXPECT_GT(c["codegen_ms"].get<double>(), 0.0);
    EXPECT_LE(c["codegen_ms"].get<double>(), c["setup_ms"].get<double>());
    EXPECT_FALSE(t.contains("codegen_ms"));
    // The first call is timed alone (not a steady step) and counted in the total.
    for (const json* r : {&t, &c}) {
      EXPECT_GT((*r)["first_call_ms"].get<double>(), 0.0);
      EXPECT_GE((*r)["total_ms"].get<double>(),
                (*r)["setup_ms"].get<double>() + (*r)["first_call_ms"].get<double>());
    }
    // One step's code is shown; a larger k repeats it k times.
    EXPECT_EQ(c.contains("generated_code"), c["k"] == 1);
  }
  const std::string reading = compiled["summary"]["reading"];
  EXPECT_NE(reading.find("In compiled mode, producing the code took"), std::string::npos)
      << reading;
  // The reading says the code was found built exactly when the engine says so. Run again in this
  // process, every program's code is found built, and the reading says that no compiler ran.
  const bool cached = compiled["runs"].front()["code_cached"].get<bool>() ||
                      compiled["runs"].back()["code_cached"].get<bool>();
  EXPECT_EQ(reading.find("taken from the compiled-code cache") != std::string::npos, cached)
      << reading;
  EXPECT_EQ(reading.find("For both, that is generating the code and running a compiler") !=
                std::string::npos,
            !cached)
      << reading;
  const json again = run_unroll(R"(, "mode": "compiled")");
  for (const json& run : again["runs"]) EXPECT_TRUE(run["code_cached"].get<bool>());
  EXPECT_NE(again["summary"]["reading"].get<std::string>().find("No compiler ran for either"),
            std::string::npos)
      << again["summary"]["reading"];
  EXPECT_EQ(traced["summary"]["reading"].get<std::string>().find("In compiled mode"),
            std::string::npos);
}

TEST(Unroll, EveryFactorTrainsTheSameAndProgramsGrowWithK) {
  const json r = run_to_end(R"({"experiment": "unroll", "n": 1000, "epochs": 2})", 100.0);
  std::vector<int> ks;
  for (const auto& f : r["runs"]) ks.push_back(f["k"].get<int>());
  EXPECT_EQ(ks, (std::vector<int>{
                    1, 2, 5, 10}));  // 10 batches: the factors below 10 that divide it, then all
  const double loss = r["runs"][0]["final_loss"].get<double>();
  for (const auto& f : r["runs"]) {
    EXPECT_NEAR(f["final_loss"].get<double>(), loss, 1e-5 * loss) << "k = " << f["k"];
    EXPECT_EQ(f["instructions"].get<long long>(),
              f["k"].get<long long>() * r["runs"][0]["instructions"].get<long long>());
  }
}

}  // namespace
}  // namespace looplab
