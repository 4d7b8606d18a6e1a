// paired_test.cpp — the paired ratio, its interval at the run's looks and its verdict (paired.hpp):
// exact ratios, the looks and their levels, intervals for any number of rounds, the four outcomes,
// the adaptive rule replayed exactly as runs apply it (identical sides are called different in at
// most 5% of runs however long a run looks, Run longer included; a real 1.3x effect is found).
#include "looplab/experiments/paired.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <set>
#include <stdexcept>
#include <vector>

#include "looplab/base/rng.hpp"
#include "looplab/experiments/comparison.hpp"
#include "looplab/experiments/rounds.hpp"

namespace looplab {
namespace paired_test {  // named: the unity build joins every test file's anonymous namespace

std::vector<double> ones(int n) { return std::vector<double>(static_cast<std::size_t>(n), 1.0); }

TEST(PairedRatio, ExactRatiosGiveTheirValueAndAPointInterval) {
  const std::vector<double> b = {1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0};
  std::vector<double> a = b;
  for (double& x : a) x *= 1.2;
  const PairedRatio r = paired_ratio(a, b);
  EXPECT_NEAR(r.ratio, 1.2, 1e-12);
  EXPECT_NEAR(r.lo, 1.2, 1e-12);
  EXPECT_NEAR(r.hi, 1.2, 1e-12);
  EXPECT_EQ(r.rounds, 8);
  EXPECT_EQ(ratio_verdict(r), RatioVerdict::BFaster);  // a takes 1.2x b's time
  EXPECT_TRUE(beyond_band(r));
  EXPECT_EQ(ratio_verdict(paired_ratio(b, a)), RatioVerdict::AFaster);
  std::vector<double> close = b;
  for (double& x : close) x *= 1.01;
  EXPECT_EQ(ratio_verdict(paired_ratio(close, b)), RatioVerdict::Same);
  // Seven rounds come before the first look: they decide nothing, however clear they look.
  const PairedRatio seven =
      paired_ratio({1.2, 2.4, 3.6, 4.8, 6.0, 7.2, 8.4}, {1, 2, 3, 4, 5, 6, 7});
  EXPECT_EQ(seven.rounds, 7);
  EXPECT_EQ(seven.level, 0.0);
  EXPECT_EQ(ratio_verdict(seven), RatioVerdict::Inconclusive);
  EXPECT_THROW(paired_ratio({1.0}, {1.0, 2.0}), std::invalid_argument);
  EXPECT_THROW(paired_ratio({}, {}), std::invalid_argument);
}

// Looks at 8, 16, 32, … rounds; look j spends 0.05/((j+1)(j+2)), and all of them together 5%.
TEST(PairedRatio, LooksDoubleAndTheirLevelsSumToFivePercent) {
  EXPECT_EQ(look_rounds(7), 0);
  EXPECT_EQ(look_rounds(8), 8);
  EXPECT_EQ(look_rounds(15), 8);
  EXPECT_EQ(look_rounds(16), 16);
  EXPECT_EQ(look_rounds(300), 256);
  EXPECT_EQ(look_rounds(100000), 65536);
  EXPECT_EQ(look_index(8), 0);
  EXPECT_EQ(look_index(256), 5);
  EXPECT_DOUBLE_EQ(look_level(0), 0.025);
  EXPECT_DOUBLE_EQ(look_level(1), 0.05 / 6.0);
  double spent = 0.0;
  for (int j = 0; j < 100000; ++j) spent += look_level(j);
  EXPECT_LE(spent, kErrorRate);
  EXPECT_GT(spent, 0.0499);
}

// The interval is made of order statistics of the look's rounds: at 8 rounds (level 2.5%) the
// smallest and largest; at 16 (level 0.83%) the 3rd smallest and 3rd largest (P(B(16, 1/2) < 3)
// = 0.21%, < 4 would be 1.06%); rounds after a look wait for the next one.
TEST(PairedRatio, TheIntervalIsTheLooksDistributionFreeOne) {
  const std::vector<double> eight = {1.2, 1.1, 1.6, 1.3, 1.5, 1.4, 1.7, 1.25};
  const PairedRatio r8 = paired_ratio(eight, ones(8));
  EXPECT_NEAR(r8.lo, 1.1, 1e-12);
  EXPECT_NEAR(r8.hi, 1.7, 1e-12);
  EXPECT_NEAR(r8.ratio, std::sqrt(1.3 * 1.4), 1e-12);  // between the middle two, in logs
  std::vector<double> ten = eight;
  ten.insert(ten.end(), {5.0, 5.0});  // after the look at 8: not used until 16
  const PairedRatio r10 = paired_ratio(ten, ones(10));
  EXPECT_EQ(r10.rounds, 8);
  EXPECT_EQ(r10.taken, 10);
  EXPECT_NEAR(r10.hi, 1.7, 1e-12);
  std::vector<double> sixteen;
  for (int i = 1; i <= 16; ++i) sixteen.push_back(1.0 + 0.01 * i);
  const PairedRatio r16 = paired_ratio(sixteen, ones(16));
  EXPECT_NEAR(r16.level, 0.05 / 6.0, 1e-15);
  EXPECT_NEAR(r16.lo, 1.03, 1e-12);
  EXPECT_NEAR(r16.hi, 1.14, 1e-12);
}

// The rank from the binomial tail in logs equals the direct sum where that one is exact, and
// stays a proper interval (k ≥ 1, k below the median's rank, near the normal approximation) for
// any number of rounds: a product of halves underflows at n = 1,075 and inverted the interval.
TEST(PairedRatio, IntervalRanksAreExactForAnyNumberOfRounds) {
  for (int n = 1; n <= 60; ++n) {
    double below = 0.0, term = std::pow(0.5, n);
    int k = 0;
    for (int j = 0; j < n; ++j) {
      below += term;
      if (below > 0.025) break;
      k = j + 1;
      term *= static_cast<double>(n - j) / (j + 1);
    }
    EXPECT_EQ(interval_rank(n, 0.05), k) << n;
  }
  for (int n : {1075, 5000, 100000}) {
    SCOPED_TRACE(n);
    const int k = interval_rank(n, 0.05);
    const double expected = n / 2.0 - 1.96 * std::sqrt(n) / 2.0;  // the normal approximation
    EXPECT_NEAR(k, expected, 2.0);
    std::vector<double> v;
    Rng rng(7);
    for (int i = 0; i < n; ++i) v.push_back(rng.uniform(0.5, 1.5));
    const Interval i = median_interval(v);
    EXPECT_LT(i.lo, i.hi);
    EXPECT_LT(i.lo, 1.0);
    EXPECT_GT(i.hi, 1.0);
    std::vector<double> b = ones(n);
    const PairedRatio r = paired_ratio(v, b);
    EXPECT_LE(r.lo, r.ratio);
    EXPECT_LE(r.ratio, r.hi);
    EXPECT_LT(r.lo, r.hi);
  }
}

TEST(PairedRatio, FourOutcomesEachWhatItsIntervalSupports) {
  const auto at = [](double r, double lo, double hi) {
    return PairedRatio{r, lo, hi, 16, 16, 0.01};
  };
  EXPECT_EQ(ratio_verdict(at(0.87, 0.80, 0.94)), RatioVerdict::AFaster);
  EXPECT_TRUE(beyond_band(at(0.87, 0.80, 0.94)));  // faster by more than 5%
  EXPECT_EQ(ratio_verdict(at(1.20, 1.06, 1.40)), RatioVerdict::BFaster);
  EXPECT_TRUE(beyond_band(at(1.20, 1.06, 1.40)));
  // Faster, but the interval reaches into the band: by more than 5% is not decided yet.
  EXPECT_EQ(ratio_verdict(at(0.939, 0.934, 0.953)), RatioVerdict::AFaster);
  EXPECT_FALSE(beyond_band(at(0.939, 0.934, 0.953)));
  EXPECT_FALSE(decided(at(0.939, 0.934, 0.953)));
  EXPECT_EQ(ratio_verdict(at(0.96, 0.90, 0.99)), RatioVerdict::AFaster);
  EXPECT_FALSE(decided(at(0.96, 0.90, 0.99)));
  EXPECT_EQ(ratio_verdict(at(1.00, 0.97, 1.04)), RatioVerdict::Same);
  EXPECT_EQ(ratio_verdict(at(0.98, 0.96, 0.99)), RatioVerdict::Same);  // real, but under 5%
  EXPECT_TRUE(decided(at(0.98, 0.96, 0.99)));
  EXPECT_EQ(ratio_verdict(at(0.94, 0.90, 1.10)), RatioVerdict::Inconclusive);  // across 1
  EXPECT_EQ(ratio_verdict(PairedRatio{0.5, 0.4, 0.6, 7, 7, 0.0}), RatioVerdict::Inconclusive);
  // The band is a setting: ±2% makes the same interval a decided difference.
  EXPECT_EQ(ratio_verdict(at(0.97, 0.96, 0.978), 0.02), RatioVerdict::AFaster);
  EXPECT_TRUE(beyond_band(at(0.97, 0.96, 0.978), 0.02));
  EXPECT_EQ(ratio_verdict(at(0.97, 0.96, 0.978)), RatioVerdict::Same);
}

// ---- the adaptive rule, replayed as a run applies it -------------------------------------------
// Two sides take their turns through the scheduler a run uses (rounds.hpp, on a fake clock: side b
// takes 1 ms a turn, side a `effect` times that with log-normal noise); after every round the run
// asks each timing comparison (compare() of the two sides' rounds) whether it is decided()
// (run.cpp: undecided()), and stops at the first round where it is, or at its cap; Run longer then
// raises the cap and the same sequence of rounds goes on.

using LogRatio = std::function<double(Rng&)>;

// The verdict at which the run stops, for caps 30, 100 and 300 and two Run longer continuations of
// 100 rounds each after the 300 (caps 400 and 500), from one sequence of rounds.
struct Replay {
  Verdict at_cap[5];
};
constexpr int kCaps[5] = {30, 100, 300, 400, 500};

Replay replay(Rng& rng, const LogRatio& noise, double effect, std::uint64_t seed) {
  double now_ms = 0.0;
  const auto always = [] { return true; };
  PairedRounds rounds({{"a", always,
                        [&](long long n) {
                          now_ms += static_cast<double>(n) * effect * std::exp(noise(rng));
                          return n;
                        }},
                       {"b", always,
                        [&](long long n) {
                          now_ms += static_cast<double>(n);
                          return n;
                        }}},
                      seed, {1.0, 1, false}, [&] { return now_ms; });
  Replay out{};
  int next_cap = 0;
  while (next_cap < 5) {
    do rounds.turn();
    while (rounds.mid_round());
    const Comparison c = compare("a_vs_b", paired_side("a", rounds.rounds_us(0)),
                                 paired_side("b", rounds.rounds_us(1)), Quantity::Time, "µs");
    const int n = static_cast<int>(rounds.rounds());
    if (c.decided()) {  // the run stops here, under every cap not yet reached
      for (; next_cap < 5; ++next_cap) out.at_cap[next_cap] = c.verdict;
      break;
    }
    for (; next_cap < 5 && n == kCaps[next_cap]; ++next_cap) out.at_cap[next_cap] = c.verdict;
  }
  return out;
}

struct Counts {
  int a[5] = {}, b[5] = {}, same[5] = {};
};
Counts count(int trials, const LogRatio& noise, double effect, std::uint64_t seed) {
  Counts c;
  for (int t = 0; t < trials; ++t) {
    Rng rng(seed + static_cast<std::uint64_t>(t));
    const Replay r = replay(rng, noise, effect, seed + static_cast<std::uint64_t>(t));
    for (int i = 0; i < 5; ++i) {
      c.a[i] += r.at_cap[i] == Verdict::A;
      c.b[i] += r.at_cap[i] == Verdict::B;
      c.same[i] += r.at_cap[i] == Verdict::Same;
    }
  }
  return c;
}

LogRatio normal(double sd) {
  return [sd](Rng& r) { return sd * r.normal(); };
}
// The load model of the earlier version of this test: each side slowed by its own factor in
// [1, 3] (log-ratio sd 0.45, heavy shoulders).
double threefold(Rng& r) { return r.uniform(0.0, std::log(3.0)) - r.uniform(0.0, std::log(3.0)); }

TEST(AdaptiveRule, IdenticalSidesAreCalledDifferentInAtMostFivePercentOfRuns) {
  constexpr int kTrials = 400;
  const std::pair<const char*, LogRatio> noises[] = {{"sd 0.05", normal(0.05)},
                                                     {"sd 0.1", normal(0.1)},
                                                     {"sd 0.2", normal(0.2)},
                                                     {"threefold load", threefold}};
  for (const auto& [name, noise] : noises) {
    const Counts c = count(kTrials, noise, 1.0, 2024);
    std::printf("identical sides, %-14s called different / same in %d runs, caps 30..500:", name,
                kTrials);
    for (int i = 0; i < 5; ++i) std::printf(" %d/%d", c.a[i] + c.b[i], c.same[i]);
    std::printf("\n");
    for (int i = 0; i < 5; ++i) {
      SCOPED_TRACE(std::string(name) + ", cap " + std::to_string(kCaps[i]));
      EXPECT_LE(c.a[i] + c.b[i], kTrials * 5 / 100);
    }
  }
  // Small noise: identical sides end "the same" (within ±5%) in nearly every run.
  EXPECT_GE(count(kTrials, normal(0.05), 1.0, 7).same[2], kTrials * 95 / 100);
}

TEST(AdaptiveRule, ATrueThirtyPercentIsFoundAndNeverReversed) {
  constexpr int kTrials = 400;
  const Counts c = count(kTrials, normal(0.2), 1.3, 99);  // a takes 1.3x b's time
  std::printf("1.3x at sd 0.2: found (b faster) in %d of %d runs within 300 rounds\n", c.b[2],
              kTrials);
  EXPECT_GE(c.b[2], kTrials * 90 / 100);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(c.a[i], 0);
}

}  // namespace paired_test
}  // namespace looplab
