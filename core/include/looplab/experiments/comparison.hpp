// looplab/experiments/comparison.hpp — a comparison a run states, as data: two measured sides,
// which direction is better, and a verdict computed from the values and their spreads.
//
// Every conclusion an experiment prints ("traced was 1.7× faster", "the same loss") is rendered
// from one of these, so no sentence can claim what its numbers do not show. The result carries
// them as summary.comparisons (result_contract.hpp), for the page and for other languages.
//
//   const Comparison c = compare("traced_vs_eager", {"traced", 18.8, 0.4}, {"eager", 32.6, 1.1},
//                                Quantity::Time, "µs per step");
//   c.verdict == Verdict::A;           // traced: lower time, and the gap exceeds both spreads
//   c.sentence() -> "traced was 1.73× faster than eager (18.8 vs 32.6 µs per step)"
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "looplab/base/json.hpp"
#include "looplab/experiments/paired.hpp"

namespace looplab {

// One side of a comparison: what was measured, its value and its spread (half the interquartile
// range of its chunks, a tolerance for exact quantities, or 0 when measured once).
struct Measure {
  Measure() = default;
  Measure(std::string label_, double value_, double spread_ = 0.0)
      : label(std::move(label_)), value(value_), spread(spread_) {}

  std::string label;
  double value = 0.0;
  double spread = 0.0;
  // A time measured in paired rounds with the other side of its comparison (paired.hpp): one value
  // per round, round i of both sides timed back to back. Empty for a value measured apart (a
  // count, a loss).
  std::vector<double> rounds;
  bool in_rounds = false;  // timed in paired rounds (paired_side), even before any round counted
  bool bound = false;      // a count that stopped at its limit: the true count is at least this
};

// The practical band (paired.hpp) of the comparisons being made: the current run's "band" setting
// while it works (a BandScope), kPracticalBand elsewhere. compare() records it in the comparison.
double practical_band();
class BandScope {
 public:
  explicit BandScope(double band);
  ~BandScope();
  BandScope(const BandScope&) = delete;
  BandScope& operator=(const BandScope&) = delete;

 private:
  double saved_;
};

// A side timed in paired rounds: its value is the median of its rounds, its spread their half-IQR.
Measure paired_side(std::string label, std::vector<double> rounds);
// Rounds timed in µs (rounds.hpp) as ms, for sides that compare milliseconds.
std::vector<double> in_ms(std::vector<double> rounds_us);
// median_interval(rounds) as [lo, hi], a run's whisker for its bar.
json interval_json(const std::vector<double>& rounds);

// Final losses of runs that compute the same numbers agree to float32 rounding, not bit for bit
// (fused and unfused sums round differently): a loss is a Measure with this relative spread.
inline constexpr double kLossAgreement = 1e-5;
inline Measure loss_measure(std::string label, double loss) {
  return {std::move(label), loss, kLossAgreement * (loss < 0 ? -loss : loss)};
}

// What is compared decides the words and which direction is better.
enum class Quantity {
  Time,   // lower is better: "faster", "slower", "took the same time"
  Count,  // lower is better: "needed 3× fewer iterations"
  Loss,   // lower is better: "ended at a lower loss", "ended at the same loss"
  Rate,   // higher is better: "3× the throughput"
};

// Inconclusive: only for times measured in paired rounds, when their ratio's 95% interval reaches
// across an edge of the practical band (paired.hpp): "not enough evidence yet", never "the same".
enum class Verdict { A, B, Same, Inconclusive };

struct Comparison {
  std::string id;  // stable name, e.g. "traced_vs_eager"
  Measure a, b;
  Quantity quantity = Quantity::Time;
  std::string unit;  // "µs per step", "iterations", "" for a plain loss
  Verdict verdict = Verdict::Same;
  // Set when both sides carry rounds: the ratio a/b over the rounds both have, with its interval;
  // the verdict then follows from it (ratio_verdict), not from the spreads.
  std::optional<PairedRatio> paired;
  double band = kPracticalBand;  // the practical band the paired verdict was judged against

  bool lower_is_better() const { return quantity != Quantity::Rate; }
  // Paired: A or B faster by more than the band (the whole interval beyond it; paired.hpp).
  // Unpaired: every A or B.
  bool beyond_band() const;
  // Nothing more for rounds to decide: same, or faster beyond the band (always, unpaired).
  bool decided() const;
  // The winner's advantage as a factor ≥ 1 (worse / better; from the paired ratio when there is
  // one); 1 when the verdict is Same or Inconclusive.
  double factor() const;
  // The comparison as one clause, e.g. "traced was 1.73× faster than eager (18.8 vs 32.6 µs per
  // step)" or "traced and eager took the same time within their spread (18.8 ± 0.9 vs 19.1 ±
  // 1.2 µs per step)". Never "0.7× faster": the factor is always the winner's, ≥ 1.
  std::string sentence() const;
  // The verdict in a few words for a headline card: "traced 1.73× faster", "raw 3,409× fewer
  // iterations", "no measurable difference".
  std::string short_text() const;
  json message() const;        // sentence() as a message (comparison_message)
  json short_message() const;  // short_text() as a message (comparison_short_message)
  json to_json() const;
};

// The comparison named `id`, or nullptr: summaries pick comparisons by name, never by position.
const Comparison* find_comparison(const std::vector<Comparison>& all, std::string_view id);
// The comparison named `id`, which the caller made: throws std::logic_error when it is missing.
const Comparison& comparison(const std::vector<Comparison>& all, std::string_view id);
// The comparisons timed in paired rounds (their sides carry rounds): a run's timing verdicts.
std::vector<Comparison> paired_only(std::vector<Comparison> all);

// The verdict from values and spreads: "same" when |a − b| ≤ a.spread + b.spread (no measurable
// difference on this run) or the values agree to 1e-12 relative; otherwise the better side. When
// both sides carry rounds (times only), from their paired ratio instead: a, b, same or
// inconclusive (paired.hpp). Throws std::invalid_argument for rounds on a quantity other than time.
Comparison compare(std::string id, Measure a, Measure b, Quantity quantity, std::string unit);

json comparisons_json(const std::vector<Comparison>& comparisons);

// A JSON comparison (to_json()'s record) as a message (base/i18n.hpp): the clause sentence()
// renders in English, and the few words short_text() does. to_json() carries both, as "message"
// and "short", so the page renders the core's sentence in the reader's language.
json comparison_message(const json& comparison);
json comparison_short_message(const json& comparison);

// Recomputes a JSON comparison's verdict from its values and spreads, or from its ratio, interval
// and rounds when it has them; the contract check uses it. Returns "a", "b", "same" or
// "inconclusive", or "" when the record is malformed.
std::string verdict_of(const json& comparison);

}  // namespace looplab
