// looplab/experiments/paired.hpp — the statistic behind a timing verdict on a busy machine: two
// sides timed in alternating rounds (A B B A A B …), so a load that comes and goes slows both
// alike, and the ratio A/B estimated per round, with a 95% confidence interval.
//
//   std::vector<double> a_us, b_us;        // round i: a_us[i] and b_us[i], timed back to back
//   const PairedRatio r = paired_ratio(a_us, b_us);          // {ratio, lo, hi, rounds}
//   switch (ratio_verdict(r)) { case RatioVerdict::AFaster: ... }
//
// The estimate is the median of the per-round ratios (a load spike in one round moves it by one
// rank, not by its size). Its 95% interval is the distribution-free one for a median: the k-th
// smallest and k-th largest per-round ratio, k the largest rank with P(Binomial(n, 1/2) < k) <=
// 2.5% (Conover, Practical Nonparametric Statistics, 3.6). It assumes only that rounds are
// independent, holds for any noise distribution and any n >= 6, and needs no random resampling,
// so a verdict follows from the run's numbers alone.
// A verdict is three-way and says which of "an effect" and "noise" the numbers show:
// - AFaster / BFaster: the whole interval lies beyond the practical band (below 1/1.05 or above
//   1.05);
// - Same: the whole interval lies inside the band;
// - Inconclusive: the interval reaches across an edge of the band, or there are fewer than
//   kMinDecidingRounds rounds: more rounds are needed.
#pragma once

#include <vector>

namespace looplab {

// How far from 1 a ratio must be to matter: 5% either way (a ratio in [1/1.05, 1.05] is "the
// same" for a student comparing two ways to run a training loop). Declared once, here.
inline constexpr double kPracticalBand = 0.05;

// Fewer rounds than this decide nothing: with 5, even [smallest, largest] covers the median with
// only 94% (1 − 2/2⁵), so no 95% interval exists.
inline constexpr int kMinDecidingRounds = 6;

struct PairedRatio {
  double ratio = 1.0;         // median over rounds of a_i / b_i
  double lo = 0.0, hi = 0.0;  // its 95% interval ([smallest, largest] below 6 rounds)
  int rounds = 0;
};

// a[i] and b[i] were measured in the same round (both positive). Throws std::invalid_argument when
// the sizes differ or no round is given.
PairedRatio paired_ratio(const std::vector<double>& a, const std::vector<double>& b);

enum class RatioVerdict { AFaster, BFaster, Same, Inconclusive };
RatioVerdict ratio_verdict(const PairedRatio& r, double band = kPracticalBand);

}  // namespace looplab
