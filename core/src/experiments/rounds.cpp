// rounds.cpp — the paired-rounds scheduler (rounds.hpp).
#include "looplab/experiments/rounds.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "looplab/base/clock.hpp"
#include "looplab/experiments/results.hpp"

namespace looplab {

constexpr long long kMaxUnits = 1LL << 40;  // a turn's units at most (const: this file's own)

PairedRounds::PairedRounds(std::vector<TimedSide> sides, std::uint64_t seed, TurnRule rule,
                           Clock clock, double tick_ms)
    : sides_(std::move(sides)),
      state_(sides_.size()),
      rule_(rule),
      clock_(std::move(clock)),
      tick_ms_(tick_ms),
      rng_(seed),
      order_(sides_.size()) {
  if (sides_.empty() || rule_.unit < 1 || !(rule_.min_ms >= 0.0))
    throw std::invalid_argument("PairedRounds: no sides, or a unit below 1");
  for (SideState& s : state_) s.units = rule_.unit;
  std::iota(order_.begin(), order_.end(), std::size_t{0});
  draw();
  if (!clock_) {
    const Stopwatch since;
    clock_ = [since] { return since.elapsed_ms(); };
    tick_ms_ = clock_resolution_ms();
  }
  rule_.min_ms = std::max(rule_.min_ms, 100.0 * tick_ms_);
}

double PairedRounds::now() const { return clock_(); }

bool PairedRounds::mid_round() const {
  return std::any_of(state_.begin(), state_.end(), [](const SideState& s) { return s.pending; });
}

// Every side once a round, in an order drawn afresh each round from the run's seed, so a load
// that drifts within a round, or a side that always follows another, falls on every side alike.
void PairedRounds::draw() {
  for (std::size_t i = order_.size(); i > 1; --i) {
    const auto j = static_cast<std::size_t>(rng_.next_u64() % i);
    std::swap(order_[i - 1], order_[j]);
  }
  place_ = 0;
}

bool PairedRounds::anyone_left() const {
  return std::any_of(order_.begin() + static_cast<std::ptrdiff_t>(place_), order_.end(),
                     [&](std::size_t s) { return sides_[s].takes_turn(); });
}

std::size_t PairedRounds::side() const {
  for (std::size_t i = place_; i < order_.size(); ++i)
    if (sides_[order_[i]].takes_turn()) return order_[i];
  return last_;
}

// The next side in this round's order that takes a turn; when none is left (one stopped since
// the last turn, or the round had closed), a fresh round.
std::optional<std::size_t> PairedRounds::next_side() {
  for (int pass = 0; pass < 2; ++pass) {
    while (place_ < order_.size()) {
      const std::size_t s = order_[place_++];
      if (sides_[s].takes_turn()) return s;
    }
    close_round();
  }
  return std::nullopt;
}

bool PairedRounds::turn() {
  const std::optional<std::size_t> next = next_side();
  if (!next) return false;
  const std::size_t s = last_ = *next;
  SideState& state = state_[s];
  if (sides_[s].prepare) sides_[s].prepare(state.units);
  const double start = now();
  const long long ran = sides_[s].run(state.units);
  const double ms = now() - start;
  state.timed_ms += ms;
  state.timed_units += ran;
  if (ran > 0) state.pending = Turn{ms, ran, state.units};
  if (!anyone_left()) close_round();
  return true;
}

// The units a side needs for its turns to last min_ms, from a turn that ran all it was asked.
long long PairedRounds::grown(const Turn& t, long long units) const {
  // At most 1000 times a round: a pace read from a short turn may be off.
  const double factor = t.ms > 0.0 ? std::min(1.25 * rule_.min_ms / t.ms, 1000.0) : 16.0;
  const double want = std::ceil(static_cast<double>(units) * std::max(factor, 2.0) /
                                    static_cast<double>(rule_.unit) -
                                1e-9);  // 125.00000000000001 units are 125
  return std::min(kMaxUnits, static_cast<long long>(want) * rule_.unit);
}

void PairedRounds::close_round() {
  bool any = false;    // a side took a turn in this round
  long long most = 0;  // units for every side, with same_units
  for (SideState& s : state_) {
    if (!s.pending) continue;
    any = true;
    if (s.pending->ms < rule_.min_ms && s.pending->ran == s.pending->asked && s.units < kMaxUnits)
      s.units = grown(*s.pending, s.units);
    most = std::max(most, s.units);
  }
  if (!any) return draw();
  bool counts = true;
  // A turn of too few ticks that ran all it was asked is calibration: longer ones follow. One that
  // ran out of work cannot be longer, and counts unless the clock did not move.
  for (const SideState& s : state_)
    if (s.pending && (s.pending->ms <= 0.0 ||
                      (s.pending->ms < 50.0 * tick_ms_ && s.pending->ran == s.pending->asked)))
      counts = false;
  for (std::size_t i = 0; i < state_.size(); ++i) {
    SideState& s = state_[i];
    if (rule_.same_units) s.units = most;
    if (counts && !s.pending) s.dropped = true;
    if (!s.pending) continue;
    const bool kept = counts && !s.dropped;
    if (kept) s.rounds_us.push_back(s.pending->ms * 1000.0 / static_cast<double>(s.pending->ran));
    s.pending.reset();
    if (sides_[i].closed) sides_[i].closed(kept);
  }
  counted_ += counts;
  draw();
}

}  // namespace looplab
