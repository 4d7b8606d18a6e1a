// comparison_test.cpp — verdicts follow the values and their spreads, the rendered clause never
// inverts a factor, and the contract refuses a verdict its numbers do not give.
#include "looplab/experiments/comparison.hpp"

#include <gtest/gtest.h>

#include "result_contract.hpp"

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

// Times in paired rounds: the verdict follows the ratio's interval at the last look (8, 16, …
// rounds), four ways (paired.hpp).
Measure rounds_of(const char* label, std::vector<double> rounds) {
  return paired_side(label, std::move(rounds));
}

TEST(Comparison, PairedTimesAreDecidedByTheirRatiosInterval) {
  const std::vector<double> eager = {30, 31, 33, 32, 34, 30, 31, 35, 32, 33};
  std::vector<double> traced;  // 1.7× faster in every round
  for (double e : eager) traced.push_back(e / 1.7);
  const Comparison c = compare("t", rounds_of("traced", traced), rounds_of("eager", eager),
                               Quantity::Time, "µs per step");
  EXPECT_EQ(c.verdict, Verdict::A);
  ASSERT_TRUE(c.paired.has_value());
  EXPECT_EQ(c.paired->rounds, 8);  // the look at 8; rounds 9 and 10 wait for the look at 16
  EXPECT_EQ(c.paired->taken, 10);
  EXPECT_TRUE(c.beyond_band());
  EXPECT_TRUE(c.decided());
  EXPECT_NEAR(c.factor(), 1.7, 1e-9);
  EXPECT_EQ(c.sentence(),
            "traced was 1.7× faster than eager (18.8 vs 32 µs per step; 95% interval 1.7–1.7× "
            "over 8 rounds)");
  EXPECT_EQ(c.short_text(), "traced 1.7× faster");

  // Ratios of 0.9 to 1.1 round to round: the interval reaches across the ±5% band.
  const std::vector<double> a = {9, 11, 10, 9, 11, 10, 9, 11}, b(8, 10.0);
  const Comparison u =
      compare("u", rounds_of("fit", a), rounds_of("train_on_batch", b), Quantity::Time, "µs");
  EXPECT_EQ(u.verdict, Verdict::Inconclusive);
  EXPECT_EQ(u.factor(), 1.0);
  EXPECT_EQ(
      u.sentence(),
      "there is not enough evidence yet whether fit or train_on_batch is faster (10 vs 10 µs; "
      "time ratio fit/train_on_batch = 1, 95% interval 0.9–1.1 over 8 rounds)");
  EXPECT_EQ(u.short_text(), "not enough evidence yet");

  // Within 1% every round: the same, and said to be the same within the band.
  const std::vector<double> x = {10.0, 10.1, 9.9, 10.0, 10.05, 9.95, 10.0, 10.02}, y(8, 10.0);
  const Comparison s = compare("s", rounds_of("x", x), rounds_of("y", y), Quantity::Time, "µs");
  EXPECT_EQ(s.verdict, Verdict::Same);
  EXPECT_EQ(s.short_text(), "the same, within ±5%");
  EXPECT_EQ(
      s.sentence().rfind("x and y took the same time, within ±5% (10 vs 10 µs; time ratio", 0), 0u)
      << s.sentence();

  // Before the first look nothing is decided, however far apart.
  const Comparison few = compare("f", rounds_of("a", {1, 1, 1, 1, 1}),
                                 rounds_of("b", {9, 9, 9, 9, 9}), Quantity::Time, "");
  EXPECT_EQ(few.verdict, Verdict::Inconclusive);
  EXPECT_NE(few.sentence().find("0.111 to 0.111 over only 5 rounds: too few for a 95% interval"),
            std::string::npos)
      << few.sentence();
  EXPECT_THROW(compare("l", rounds_of("a", {1.0}), rounds_of("b", {1.0}), Quantity::Loss, ""),
               std::invalid_argument);

  // Faster in every round, but by 2–4%: which side is faster is decided, whether by more than 5%
  // is not; the run keeps it open (not decided) and says so.
  const std::vector<double> p = {9.8, 9.7, 9.6, 9.8, 9.7, 9.6, 9.75, 9.65}, q(8, 10.0);
  const Comparison lean = compare("p", rounds_of("p", p), rounds_of("q", q), Quantity::Time, "µs");
  EXPECT_EQ(lean.verdict, Verdict::Same);  // inside ±5% already: the same within the band
  const std::vector<double> r = {9.3, 9.6, 9.4, 9.7, 9.5, 9.45, 9.55, 9.35};
  const Comparison open = compare("r", rounds_of("r", r), rounds_of("q", q), Quantity::Time, "µs");
  EXPECT_EQ(open.verdict, Verdict::A);
  EXPECT_FALSE(open.beyond_band());
  EXPECT_FALSE(open.decided());
  EXPECT_EQ(open.sentence().rfind("r was faster than q, by 1.06×, but whether by more than 5% is "
                                  "not decided yet (",
                                  0),
            0u)
      << open.sentence();
  EXPECT_EQ(open.short_text(), "r faster; by more than 5%? not decided yet");
  // The band is the run's setting: at ±2% the same rounds are faster beyond the band.
  const BandScope two_percent(0.02);
  const Comparison beyond = compare("r", rounds_of("r", r), rounds_of("q", q), Quantity::Time, "");
  EXPECT_TRUE(beyond.beyond_band());
  EXPECT_EQ(beyond.to_json()["band"], 0.02);
  EXPECT_EQ(verdict_of(beyond.to_json()), "a");
}

TEST(Comparison, APairedRecordCarriesItsIntervalAndTheContractRecomputesItsVerdict) {
  std::vector<double> a, b;
  for (int i = 0; i < 12; ++i) {
    a.push_back(10.0 + i % 3);
    b.push_back(a.back() * 1.5);
  }
  // A side that stopped early (it diverged) is paired over the rounds both have.
  b.push_back(99.0);
  const json j = compare("x", rounds_of("a", a), rounds_of("b", b), Quantity::Time, "ms").to_json();
  EXPECT_EQ(j["verdict"], "a");
  EXPECT_EQ(j["rounds"], 8);  // the last look's
  EXPECT_EQ(j["taken"], 12);
  EXPECT_EQ(j["level"], 0.025);
  EXPECT_EQ(j["decided"], true);
  EXPECT_EQ(j["message"]["key"], "cmp.win.time");
  EXPECT_NEAR(j["ratio"].get<double>(), 1.0 / 1.5, 1e-12);
  EXPECT_EQ(j["ci"].size(), 2u);
  EXPECT_EQ(j["band"], kPracticalBand);
  EXPECT_EQ(verdict_of(j), "a");
  json wide = j;  // the same estimate with an interval that reaches 1: not decided
  wide["ci"] = {0.5, 1.01};
  wide["beyond_band"] = false;
  EXPECT_EQ(verdict_of(wide), "inconclusive");
  wide["ci"] = {0.7, 0.9};  // an interval that misses its own estimate is malformed
  EXPECT_EQ(verdict_of(wide), "");
  json forged = j;
  forged["verdict"] = "same";
  const json result = {{"experiment", "unroll"},
                       {"config", json::object()},
                       {"environment", json::object()},
                       {"series", json::object()},
                       {"runs", json::array()},
                       {"summary",
                        {{"headline", {{{"label", "x"}, {"value", "y"}}}},
                         {"reading", "r"},
                         {"comparisons", {forged}}}}};
  std::string all;
  for (const std::string& v : check_result(result)) all += v + "\n";
  EXPECT_NE(all.find("summary.comparisons[0].verdict: its ratio's interval gives \"a\""),
            std::string::npos)
      << all;
}

// Sides timed in rounds before any round counted (every turn so far was calibration): "not
// enough evidence yet", never "the same" from two zeros and no spread.
TEST(Comparison, SidesInRoundsWithNoRoundYetAreNotEnoughEvidence) {
  const Comparison c =
      compare("a_vs_b", paired_side("a", {}), paired_side("b", {}), Quantity::Time, "µs");
  ASSERT_TRUE(c.paired.has_value());
  EXPECT_EQ(c.paired->rounds, 0);
  EXPECT_EQ(c.verdict, Verdict::Inconclusive);
  EXPECT_FALSE(c.decided());
}

}  // namespace
}  // namespace looplab
