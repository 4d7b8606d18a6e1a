// looplab/experiments/paired.hpp — the statistic behind a timing verdict on a busy machine: two
// sides timed in rounds (each round both sides, in an order drawn at random), so a load that comes
// and goes slows both alike, and the ratio A/B estimated per round, with a 95% interval that stays
// valid however often a run looks at it.
//
//   std::vector<double> a_us, b_us;        // round i: a_us[i] and b_us[i], timed back to back
//   const PairedRatio r = paired_ratio(a_us, b_us);   // {ratio, lo, hi, rounds, taken, level}
//   switch (ratio_verdict(r)) { case RatioVerdict::AFaster: ... }
//   beyond_band(r)   // faster by more than the band, or only faster?
//
// The estimate is the median of the per-round ratios; its interval the distribution-free one for a
// median (Conover 3.6), judged only at 8, 16, 32, … rounds with the 5% spent across those looks, so
// it holds however often a run looks and whenever it stops (docs/design.md, "Looking again keeps
// the 5%"). A verdict is four-way (band: ±5% by default, a setting): Same, the whole interval
// inside [1/(1 + band), 1 + band]; AFaster / BFaster, the whole interval on one side of 1
// (beyond_band(): beyond the band's edge too); Inconclusive otherwise, or before the first look.
// decided(): Same, or faster beyond the band: a run stops timing once every verdict is decided.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace looplab {

// How far from 1 a ratio must be to matter: 5% either way by default (a ratio in [1/1.05, 1.05]
// is "the same" for a student comparing two ways to run a training loop); a run's `band` setting.
inline constexpr double kPracticalBand = 0.05;
// The error rate spent over all the looks of a run.
inline constexpr double kErrorRate = 0.05;
// The first look: fewer rounds than this decide nothing. At look 0 (α_0 = 2.5%) 8 rounds give an
// interval [smallest, largest] (2/2⁸ ≤ 2.5%); 7 would too, but the looks double from here.
inline constexpr int kMinDecidingRounds = 8;

// The rounds of the last look at or before `rounds` (0 below the first look), and that look's
// index j and level α_j.
int look_rounds(int rounds);
int look_index(int look_rounds);
double look_level(int look_index);

// The rank k of the distribution-free (1 − alpha) interval [x(k), x(n+1−k)] for the median of n
// values: the largest k with P(Binomial(n, 1/2) < k) <= alpha/2; 0 when even [x(1), x(n)] falls
// short. Computed in logs: exact for any n (a product of halves underflows at n = 1,075).
int interval_rank(int n, double alpha);

struct PairedRatio {
  double ratio = 1.0;         // median of a_i / b_i over the look's rounds
  double lo = 0.0, hi = 0.0;  // its interval at the look's level ([smallest, largest] before one)
  int rounds = 0;             // the rounds the look used (all of them before the first look)
  int taken = 0;              // every round given (the ones after the look wait for the next)
  double level = 0.0;         // α spent at this look; 0 before the first
};

// a[i] and b[i] were measured in the same round (both positive). Throws std::invalid_argument when
// the sizes differ or no round is given.
PairedRatio paired_ratio(const std::vector<double>& a, const std::vector<double>& b);

// A distribution-free 95% interval for the median of one side's rounds (its bar's whisker, one
// look): [lo, hi]; [smallest, largest] below 6 rounds, [0, 0] for none.
struct Interval {
  double lo = 0.0, hi = 0.0;
};
Interval median_interval(std::vector<double> values);

enum class RatioVerdict { AFaster, BFaster, Same, Inconclusive };
RatioVerdict ratio_verdict(const PairedRatio& r, double band = kPracticalBand);
// A or B faster, and the whole interval beyond the band's edge: faster by more than the band.
bool beyond_band(const PairedRatio& r, double band = kPracticalBand);
// Nothing more to learn: Same, or faster beyond the band.
bool decided(const PairedRatio& r, double band = kPracticalBand);

}  // namespace looplab
