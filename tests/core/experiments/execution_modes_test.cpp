// execution_modes_test.cpp — the execution-modes experiment: every mode's result and the same loss
// curve, and the configs it refuses.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

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

// model=seed001_small: the five modes on the model seed 001 timed, the reference its hand-written
// Conv1D loop: the same steps, the final losses compared with the reference's.
TEST(ExecutionModes, SeedSmallModelRunsFiveModesWithItsHandWrittenLoop) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "about 14 GFLOP (n has a minimum of 100): a second natively, a minute under the "
                  "sanitizers, whose build runs the seed model in ConvNet.* and CallGranularity.*";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  GTEST_SKIP() << "about 14 GFLOP: a second natively, a minute under the sanitizers, whose build "
                  "runs the seed model in ConvNet.* and CallGranularity.*";
#endif
#endif
  const json r = run_to_end(
      R"({"experiment": "execution-modes", "model": "seed001_small", "n": 100, "batch": 2, "epochs": 1, "unroll": 2, "max_seconds": 0})");
  ASSERT_EQ(r["runs"].size(), 5u);
  for (const auto& m : r["runs"]) {
    EXPECT_EQ(m["steps"], 50) << m["mode"];
    EXPECT_FALSE(m["diverged"].get<bool>());
  }
  EXPECT_EQ(r["runs"][4]["mode"], "reference");
  const float traced = r["runs"][1]["final_loss"].get<float>();
  EXPECT_EQ(r["runs"][0]["final_loss"].get<float>(), traced);  // eager: the same bits
  EXPECT_EQ(r["runs"][2]["final_loss"].get<float>(), traced);  // unrolled(2)
  EXPECT_NEAR(r["runs"][3]["final_loss"].get<float>(), traced, 1e-5 * std::abs(traced));
  EXPECT_NEAR(r["runs"][4]["final_loss"].get<float>(), traced, 1e-4 * std::abs(traced));
  std::vector<std::string> ids;
  for (const auto& c : r["summary"]["comparisons"]) ids.push_back(c["id"]);
  EXPECT_EQ(ids, (std::vector<std::string>{
                     "traced_vs_eager", "unrolled_vs_traced", "traced_vs_reference",
                     "first_call_traced_vs_eager", "compiled_vs_traced", "compiled_vs_reference",
                     "first_call_compiled_vs_traced", "final_loss_eager_vs_reference",
                     "final_loss_traced_vs_reference", "final_loss_unrolled_vs_reference",
                     "final_loss_compiled_vs_reference"}));
  EXPECT_GT(r["summary"]["steady_step_us"]["reference"].get<double>(), 0.0);
  const std::string reading = r["summary"]["reading"];
  EXPECT_NE(reading.find("hand-written"), std::string::npos) << reading;
  EXPECT_NE(error_of(R"({"experiment": "execution-modes", "model": "seed001_small"})")
                .find("over the 256 MB limit; lower n, batch or unroll"),
            std::string::npos);
}

TEST(ExecutionModes, BadCombinationsAreRefused) {
  EXPECT_EQ(error_of(R"({"experiment": "execution-modes", "unroll": 7})"),
            "unroll: must divide the number of batches per epoch (100), got 7");
  EXPECT_EQ(error_of(R"({"experiment": "execution-modes", "n": 100, "batch": 200})"),
            "batch: must be at most n (100), got 200");
}

}  // namespace
}  // namespace looplab
