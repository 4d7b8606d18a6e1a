// execution_modes_test.cpp — the execution-modes experiment: every mode's result and the same loss
// curve, and the configs it refuses.
#include <gtest/gtest.h>

#include <cmath>

#include "looplab/api/api.hpp"
#include "test_util.hpp"

namespace looplab {
namespace {

TEST(ExecutionModes, ExperimentResultsAndCoincidingCurves) {
  const json r =
      run_to_end(R"({"experiment": "execution-modes", "n": 1000, "epochs": 3, "unroll": 5})");
  ASSERT_EQ(r["runs"].size(), 5u);
  for (const auto& m : r["runs"]) {
    EXPECT_EQ(m["steps"], 30);
    EXPECT_GT(m["first_call_ms"].get<double>(), 0.0);
    EXPECT_GT(m["steady_step_us"].get<double>(), 0.0);
    EXPECT_FALSE(m["diverged"].get<bool>());
  }
  EXPECT_EQ(r["runs"][2]["steps_per_call"], 5);
  EXPECT_GT(r["runs"][2]["instructions"].get<int>(), 4 * r["runs"][1]["instructions"].get<int>());
  const json& ref = r["series"]["reference"]["loss"];
  EXPECT_EQ(r["runs"][3]["mode"], "compiled");
  EXPECT_NE(r["runs"][3]["generated_code"].get<std::string>().find("step"), std::string::npos);
  for (const char* mode : {"eager", "traced", "unrolled", "compiled"}) {
    const json& l = r["series"][mode]["loss"];
    ASSERT_EQ(l.size(), ref.size()) << mode;
    for (std::size_t i = 0; i < l.size(); ++i)
      EXPECT_NEAR(l[i].get<double>(), ref[i].get<double>(), 1e-5 * ref[i].get<double>());
  }
  EXPECT_LT(r["summary"]["final_loss_spread"].get<double>(), 1e-5);
}

TEST(ExecutionModes, BadCombinationsAreRefused) {
  EXPECT_EQ(error_of(R"({"experiment": "execution-modes", "unroll": 7})"),
            "unroll: must divide the number of batches per epoch (100), got 7");
  EXPECT_EQ(error_of(R"({"experiment": "execution-modes", "n": 100, "batch": 200})"),
            "batch: must be at most n (100), got 200");
}

}  // namespace
}  // namespace looplab
