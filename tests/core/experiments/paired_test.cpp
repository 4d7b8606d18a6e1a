// paired_test.cpp — the paired ratio and its verdict (paired.hpp) on known distributions: exact
// ratios, a real 1.3x effect under load that comes and goes and under 3x noise, and identical
// sides, which must almost never be called different.
#include "looplab/experiments/paired.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "looplab/base/rng.hpp"

namespace looplab {
namespace {

// One simulated run of `rounds` rounds: side a takes `effect` times side b's true time (1 µs).
// Each round has a load factor in [1, load] that slows both sides alike (what interleaving is
// for), and each measurement its own factor in [1, jitter]: multiplicative noise, never faster
// than the true time, as on a machine with other work.
struct Rounds {
  std::vector<double> a, b;
};
Rounds simulate(Rng& rng, int rounds, double effect, double load, double jitter) {
  Rounds r;
  for (int i = 0; i < rounds; ++i) {
    const double l = std::exp(rng.uniform(0.0, std::log(load)));
    r.a.push_back(effect * l * std::exp(rng.uniform(0.0, std::log(jitter))));
    r.b.push_back(l * std::exp(rng.uniform(0.0, std::log(jitter))));
  }
  return r;
}

// How many of `trials` seeded runs give verdict v.
int count_verdicts(RatioVerdict v, int trials, int rounds, double effect, double load,
                   double jitter) {
  int n = 0;
  for (int t = 0; t < trials; ++t) {
    Rng rng(1000 + static_cast<std::uint64_t>(t));
    const Rounds r = simulate(rng, rounds, effect, load, jitter);
    n += ratio_verdict(paired_ratio(r.a, r.b)) == v;
  }
  return n;
}

TEST(PairedRatio, ExactRatiosGiveTheirValueAndAPointInterval) {
  const std::vector<double> b = {1.0, 2.0, 3.0, 4.0, 5.0, 6.0};
  std::vector<double> a = b;
  for (double& x : a) x *= 1.2;
  const PairedRatio r = paired_ratio(a, b);
  EXPECT_NEAR(r.ratio, 1.2, 1e-12);
  EXPECT_NEAR(r.lo, 1.2, 1e-12);
  EXPECT_NEAR(r.hi, 1.2, 1e-12);
  EXPECT_EQ(r.rounds, 6);
  EXPECT_EQ(ratio_verdict(r), RatioVerdict::BFaster);  // a takes 1.2x b's time
  EXPECT_EQ(ratio_verdict(paired_ratio(b, a)), RatioVerdict::AFaster);
  std::vector<double> close = b;
  for (double& x : close) x *= 1.01;
  EXPECT_EQ(ratio_verdict(paired_ratio(close, b)), RatioVerdict::Same);
  // Five rounds decide nothing, however clear they look.
  EXPECT_EQ(ratio_verdict(paired_ratio({1.2, 2.4, 3.6, 4.8, 6.0}, {1, 2, 3, 4, 5})),
            RatioVerdict::Inconclusive);
  EXPECT_THROW(paired_ratio({1.0}, {1.0, 2.0}), std::invalid_argument);
  EXPECT_THROW(paired_ratio({}, {}), std::invalid_argument);
}

// The interval is made of order statistics: for 10 rounds the 2nd smallest and 2nd largest ratio
// (P(Binomial(10, 1/2) < 2) = 1.1%, < 3 would be 5.5%); for 6, the smallest and the largest.
TEST(PairedRatio, TheIntervalIsTheMediansDistributionFreeOne) {
  const std::vector<double> b(10, 1.0);
  const std::vector<double> a = {1.9, 1.1, 1.5, 1.2, 1.8, 1.3, 1.7, 1.4, 1.6, 1.0};
  const PairedRatio r = paired_ratio(a, b);
  EXPECT_NEAR(r.ratio, std::sqrt(1.4 * 1.5), 1e-12);  // between the middle two, in logs
  EXPECT_NEAR(r.lo, 1.1, 1e-12);
  EXPECT_NEAR(r.hi, 1.8, 1e-12);
  const PairedRatio six = paired_ratio({1.2, 1.1, 1.6, 1.3, 1.5, 1.4}, std::vector<double>(6, 1.0));
  EXPECT_NEAR(six.lo, 1.1, 1e-12);
  EXPECT_NEAR(six.hi, 1.6, 1e-12);
}

TEST(PairedRatio, VerdictsFollowTheIntervalAndTheBand) {
  const auto v = [](double r, double lo, double hi) {
    return ratio_verdict(PairedRatio{r, lo, hi, 10});
  };
  EXPECT_EQ(v(0.87, 0.80, 0.94), RatioVerdict::AFaster);
  EXPECT_EQ(v(1.20, 1.06, 1.40), RatioVerdict::BFaster);
  EXPECT_EQ(v(1.00, 0.97, 1.04), RatioVerdict::Same);
  EXPECT_EQ(v(0.98, 0.96, 0.99), RatioVerdict::Same);  // a real difference, but under 5%
  // Real and most likely over 5%, though the interval reaches into the band: decided, the
  // sentence shows the interval (a 6% effect would otherwise never be decided).
  EXPECT_EQ(v(0.939, 0.934, 0.953), RatioVerdict::AFaster);
  EXPECT_EQ(v(0.96, 0.90, 0.99), RatioVerdict::Inconclusive);  // real, but most likely under 5%
  EXPECT_EQ(v(0.94, 0.90, 1.10), RatioVerdict::Inconclusive);  // reaches across 1
  EXPECT_EQ(ratio_verdict(PairedRatio{0.5, 0.4, 0.6, 5}), RatioVerdict::Inconclusive);
}

// A load that triples the time of whole rounds hits both sides alike: 30 interleaved rounds find
// the effect in nearly every run.
TEST(PairedRatio, ARealEffectIsFoundUnderALoadThatComesAndGoes) {
  EXPECT_GE(count_verdicts(RatioVerdict::BFaster, 200, 30, 1.3, 3.0, 1.2), 196);
}

// Each measurement slowed by up to 3x on its own (nothing shared to cancel): the effect needs more
// rounds, and is never reversed.
TEST(PairedRatio, ARealEffectIsFoundUnderThreefoldNoiseWithEnoughRounds) {
  EXPECT_GE(count_verdicts(RatioVerdict::BFaster, 100, 120, 1.3, 1.0, 3.0), 95);
  EXPECT_EQ(count_verdicts(RatioVerdict::AFaster, 100, 120, 1.3, 1.0, 3.0), 0);
}

// Two identical sides are called different in at most 5% of seeded runs, even with few rounds
// under 3x noise, and called the same once the noise is small.
TEST(PairedRatio, IdenticalSidesAreAlmostNeverCalledDifferent) {
  for (int rounds : {6, 10, 30}) {
    SCOPED_TRACE(rounds);
    const int a = count_verdicts(RatioVerdict::AFaster, 100, rounds, 1.0, 3.0, 3.0),
              b = count_verdicts(RatioVerdict::BFaster, 100, rounds, 1.0, 3.0, 3.0);
    EXPECT_LE(a + b, 5);
  }
  EXPECT_GE(count_verdicts(RatioVerdict::Same, 100, 30, 1.0, 3.0, 1.02), 98);
}

}  // namespace
}  // namespace looplab
