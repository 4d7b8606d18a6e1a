// comparison_test.cpp — verdicts follow the values and their spreads, the rendered clause never
// inverts a factor, and the contract refuses a verdict its numbers do not give.
#include "looplab/experiments/comparison.hpp"

#include <gtest/gtest.h>

#include "looplab/experiments/result_contract.hpp"

namespace looplab {
namespace {

TEST(Comparison, TheLowerTimeWinsWhenTheGapExceedsBothSpreads) {
  const Comparison c =
      compare("t", {"traced", 18.8, 0.4}, {"eager", 32.6, 1.1}, Quantity::Time, "µs per step");
  EXPECT_EQ(c.verdict, Verdict::A);
  EXPECT_NEAR(c.factor(), 32.6 / 18.8, 1e-12);
  EXPECT_EQ(c.sentence(), "traced was 1.73× faster than eager (18.8 vs 32.6 µs per step)");
  const Comparison d =
      compare("t", {"eager", 32.6, 1.1}, {"traced", 18.8, 0.4}, Quantity::Time, "µs per step");
  EXPECT_EQ(d.verdict, Verdict::B);
  EXPECT_EQ(d.sentence(), "traced was 1.73× faster than eager (18.8 vs 32.6 µs per step)")
      << "the winner is named first whichever side it is";
}

TEST(Comparison, AGapWithinTheSpreadsIsTheSame) {
  const Comparison c =
      compare("t", {"fit", 15.6, 2.0}, {"train_on_batch", 15.8, 1.0}, Quantity::Time, "µs");
  EXPECT_EQ(c.verdict, Verdict::Same);
  EXPECT_EQ(c.factor(), 1.0);
  EXPECT_EQ(
      c.sentence(),
      "fit and train_on_batch took the same time within their spread (15.6 ± 2 vs 15.8 ± 1 µs)");
  // Just outside the summed spreads: a measured difference.
  EXPECT_EQ(compare("t", {"x", 10.0, 1.0}, {"y", 12.01, 1.0}, Quantity::Time, "").verdict,
            Verdict::A);
  EXPECT_EQ(compare("t", {"x", 10.0, 1.0}, {"y", 12.0, 1.0}, Quantity::Time, "").verdict,
            Verdict::Same);
}

TEST(Comparison, HigherIsBetterForRatesAndLowerForCountsAndLosses) {
  EXPECT_EQ(compare("r", {"a", 3.0, 0}, {"b", 1.0, 0}, Quantity::Rate, "steps/s").verdict,
            Verdict::A);
  const Comparison n =
      compare("n", {"raw", 132956, 0}, {"standardized", 39, 0}, Quantity::Count, "iterations");
  EXPECT_EQ(n.verdict, Verdict::B);
  EXPECT_EQ(n.sentence(),
            "standardized needed 3,409× fewer iterations than raw (39 vs 132,956 iterations)");
  const Comparison l =
      compare("l", {"eager", 1.02795, 0}, {"traced", 1.02795, 0}, Quantity::Loss, "");
  EXPECT_EQ(l.verdict, Verdict::Same);
  EXPECT_EQ(l.sentence(), "eager and traced ended at the same loss (1.03 vs 1.03)");
  EXPECT_EQ(compare("l", {"a", 1.0, 0}, {"b", 1.5, 0}, Quantity::Loss, "").sentence(),
            "a ended at a lower loss than b (1 vs 1.5)");
}

TEST(Comparison, TheJsonCarriesTheComputedVerdictAndTheContractRecomputesIt) {
  const json j = compare("x", {"a", 2.0, 0.1}, {"b", 1.0, 0.1}, Quantity::Time, "ms").to_json();
  EXPECT_EQ(j["verdict"], "b");
  EXPECT_EQ(j["better"], "lower");
  EXPECT_EQ(verdict_of(j), "b");
  json forged = j;
  forged["verdict"] = "a";
  EXPECT_EQ(verdict_of(forged), "b");
  forged["better"] = "sideways";
  EXPECT_EQ(verdict_of(forged), "");
}

// A result whose comparison claims the slower side won, and whose reading inverts a factor.
TEST(Comparison, TheContractRefusesAVerdictItsNumbersDoNotGiveAndAnInvertedFactor) {
  json c = compare("x", {"traced", 2.0, 0.0}, {"eager", 1.0, 0.0}, Quantity::Time, "ms").to_json();
  c["verdict"] = "a";
  const json result = {{"experiment", "unroll"},
                       {"config", json::object()},
                       {"environment", json::object()},
                       {"series", json::object()},
                       {"runs", json::array()},
                       {"summary",
                        {{"headline", {{{"label", "x"}, {"value", "y"}}}},
                         {"reading", "traced is 0.72× faster"},
                         {"comparisons", {c}}}}};
  std::string all;
  for (const std::string& v : check_result(result)) all += v + "\n";
  EXPECT_NE(all.find("summary.comparisons[0].verdict: the values and spreads give \"b\""),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("summary.reading: states a factor below 1 as a gain"), std::string::npos)
      << all;
}

}  // namespace
}  // namespace looplab
