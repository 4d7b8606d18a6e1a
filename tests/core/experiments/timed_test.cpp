// timed_test.cpp — the pass/fail tests that assert a ratio of timings, because an issue asks for
// the effect on the default config. Their suites are named Timed*: `make test` runs them at its
// end, alone (natively and in wasm), not beside the other trees' compilers. Nothing else here.
#include <gtest/gtest.h>

#include "looplab/api/api.hpp"
#include "test_util.hpp"

namespace looplab {
namespace {

json run_timed(const std::string& config) { return run_to_end(config, 100.0); }

// NOTE: a timing in a pass/fail test, because issue 11 asks that the default show the seed's
// cause. Measured on the default config (µs per step, train_on_batch / fit) on the shared 2-core
// machine: natively 1.65, 1.84, 1.84 (load ~5) and 1.86, 2.15, 2.29, 1.89, 6.08 (load ~13); in
// wasm under node 1.64, 1.65, 1.84. The margin sits about 20% below the smallest ratio seen, so
// only a lost effect fails it. Its suite is named Timed*: `make test` runs it at the end, alone,
// not beside the other trees' compilers (there it once read 1.29 in wasm).
constexpr double kMinEagerPerCallOverFit = 1.3;

TEST(TimedCallGranularity, DefaultShowsTrainOnBatchSlowerThanFitBecauseItRunsEagerly) {
  const json r = run_timed(R"({"experiment": "call-granularity"})");
  const json& s = r["summary"];
  const double fit = s["us_per_step"]["fit"], tob = s["us_per_step"]["train_on_batch"];
  EXPECT_GE(tob / fit, kMinEagerPerCallOverFit) << tob << " vs " << fit << " µs per step";
  // The verdicts also weigh the chunks' spread, which a loaded machine widens: the answer must
  // follow them, whichever they are.
  const json& headline = s["comparisons"][0];
  EXPECT_EQ(headline["id"], "train_on_batch_vs_fit");
  EXPECT_EQ(s["comparisons"][1]["id"], "eager_vs_traced_per_call");
  const std::string answer = s["answer"];
  if (headline["verdict"] != "b") {
    EXPECT_EQ(answer.rfind("On this run train_on_batch was not measurably slower", 0), 0u)
        << answer;
  } else if (s["comparisons"][1]["verdict"] == "b") {  // the traced step faster
    EXPECT_NE(answer.find("mainly because it ran its step eagerly"), std::string::npos) << answer;
  }
  EXPECT_TRUE(s["same_losses"].get<bool>());
}

}  // namespace
}  // namespace looplab
