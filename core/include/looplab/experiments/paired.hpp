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
// - Same: the whole interval lies inside the practical band [1/1.05, 1.05]: whatever the
//   difference, it is under 5%;
// - AFaster / BFaster: the whole interval lies on one side of 1 (the difference is real) and the
//   estimate beyond the band (it is most likely more than 5%); the sentence shows the interval;
// - Inconclusive: otherwise (the interval reaches across 1, or the difference is real but may be
//   under 5%), or there are fewer than kMinDecidingRounds rounds: more rounds are needed.
// As rounds accumulate the interval narrows around the true ratio, so every ratio but one exactly
// on the band's edge is decided in the end; two identical sides are called different only when
// the interval misses 1, in at most 5% of runs.
#pragma once

#include <cstddef>
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

// The same distribution-free 95% interval for the median of one side's rounds (its bar's
// whisker): [lo, hi]; [smallest, largest] below 6 rounds, [0, 0] for none.
struct Interval {
  double lo = 0.0, hi = 0.0;
};
Interval median_interval(std::vector<double> values);

enum class RatioVerdict { AFaster, BFaster, Same, Inconclusive };
RatioVerdict ratio_verdict(const PairedRatio& r, double band = kPracticalBand);

// Whose turn it is when sides take turns in rounds, the order reversed every round (A B C, C B A,
// A B C, …), so a load that drifts within a round does not always fall on the same sides.
//
//   AlternatingTurns turns(3);                              // side() == 0, round() == 0
//   turns.next([&](std::size_t s) { return running(s); });  // the next side still running
class AlternatingTurns {
 public:
  explicit AlternatingTurns(std::size_t sides) : sides_(sides) {}
  std::size_t side() const { return round_ % 2 ? sides_ - 1 - place_ : place_; }
  std::size_t round() const { return round_; }
  // Moves to the next side that takes(side) in this round's order, else into the next round;
  // false (and side() unchanged) when no side takes a turn.
  template <class Takes>
  bool next(Takes&& takes) {
    for (int rounds = 0; rounds < 2; ++rounds) {
      while (++place_ < sides_)
        if (takes(side())) return true;
      ++round_;
      place_ = static_cast<std::size_t>(-1);  // ++ makes it 0
    }
    place_ = 0;
    return false;
  }
  // The first side of a new round that takes a turn (extra rounds start afresh).
  template <class Takes>
  bool restart(Takes&& takes) {
    place_ = static_cast<std::size_t>(-1);
    return next(takes);
  }

 private:
  std::size_t sides_, round_ = 0, place_ = 0;
};

}  // namespace looplab
