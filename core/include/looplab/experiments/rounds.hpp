// looplab/experiments/rounds.hpp — the paired-rounds scheduler every timed experiment runs its
// timings through: its sides take turns in rounds, every side once a round in an order drawn from
// the run's seed, each turn timed and long enough for the clock; a round counts once every side
// still running has had its turn. paired.hpp turns the counted rounds into verdicts; run.hpp takes
// more rounds while a verdict is open (the stopping rule) and on "Run longer".
//
//   PairedRounds& r = add_rounds({{"eager", running, [&](long long n) { return steps(e, n); }},
//                                 {"traced", running, [&](long long n) { return steps(t, n); }}},
//                                {.min_ms = 1.0, .unit = 1});          // in a ChunkedRun
//   r.turn();                 // one side's turn: prepare (untimed), run (timed)
//   r.rounds_us(0);           // µs per unit of side 0, one value per counted round
//
// The turn length (a turn grows until it lasts min_ms, at least 100 clock ticks) and which rounds
// count (none with a turn read from under 50 ticks) are written down in docs/design.md, "One
// scheduler"; rule.same_units keeps sides whose configured work must end together in step.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "looplab/base/rng.hpp"

namespace looplab {

// One side of a paired timing.
struct TimedSide {
  std::string name;
  // Whether the side takes a turn now: it has work left and has not diverged. A side that stops
  // taking turns before its round is counted keeps the rounds it has and gains no more.
  std::function<bool()> takes_turn;
  // Runs up to `units` units of the side's work (steps, epochs, replays) and returns how many it
  // ran (0: none, the turn is not timed). Timed by the scheduler.
  std::function<long long(long long units)> run;
  // Before each turn, outside the stopwatch, with the units the turn will run: builds what the
  // turn needs (a session freed between visits, fresh trainers for its replays). Optional.
  std::function<void(long long units)> prepare = {};
  // When a round it took a turn in closes: whether that turn joined the side's counted rounds
  // (a side that splits its turn's time, as pipelines does, keeps the split of counted turns).
  // Optional.
  std::function<void(bool counted)> closed = {};
};

struct TurnRule {
  double min_ms = 1.0;     // a turn lasts at least this long once calibrated
  long long unit = 1;      // turns are whole multiples of this many units (an unrolled call's k)
  bool same_units = true;  // every side runs as many units a turn
};

class PairedRounds {
 public:
  // A clock in ms; the default is the steady clock (Stopwatch) with its measured tick
  // (results.hpp: clock_resolution_ms). Tests pass a fake one and its tick.
  using Clock = std::function<double()>;

  PairedRounds(std::vector<TimedSide> sides, std::uint64_t seed, TurnRule rule, Clock clock = {},
               double tick_ms = 0.0);

  // Takes the next side's turn: prepare, then run, timed. False (nothing ran) when no side takes a
  // turn. After the last side of a round the round is closed: counted, or calibration.
  bool turn();

  const std::string& name(std::size_t side) const { return sides_[side].name; }
  // The side whose turn is next in this round, else the side whose turn was last.
  std::size_t side() const;
  // Some side has had its turn in a round that is not closed yet.
  bool mid_round() const;
  // Rounds counted so far.
  std::size_t rounds() const { return counted_; }
  // µs per unit of the side's turns in the counted rounds it took part in, in round order.
  const std::vector<double>& rounds_us(std::size_t side) const { return state_[side].rounds_us; }
  // Units a turn of this side runs now.
  long long units(std::size_t side) const { return state_[side].units; }
  // Everything this side's turns took, counted or not: ms and units.
  double timed_ms(std::size_t side) const { return state_[side].timed_ms; }
  long long timed_units(std::size_t side) const { return state_[side].timed_units; }

 private:
  struct Turn {
    double ms = 0.0;
    long long ran = 0, asked = 0;
  };
  struct SideState {
    long long units = 1;
    std::optional<Turn> pending;  // its turn in the round under way
    std::vector<double> rounds_us;
    bool dropped = false;  // missed a counted round: its later turns would pair with nothing
    double timed_ms = 0.0;
    long long timed_units = 0;
  };
  std::optional<std::size_t> next_side();
  bool anyone_left() const;  // a side later in this round's order takes a turn
  void close_round();        // counted or calibration; then a new order is drawn
  void draw();
  long long grown(const Turn& t, long long units) const;
  double now() const;

  std::vector<TimedSide> sides_;
  std::vector<SideState> state_;
  TurnRule rule_;
  Clock clock_;
  double tick_ms_;
  Rng rng_;                           // draws each round's order
  std::vector<std::size_t> order_;    // this round's, drawn afresh each round (Fisher–Yates)
  std::size_t place_ = 0, last_ = 0;  // the next place in order_ to ask; the side that ran last
  std::size_t counted_ = 0;
};

}  // namespace looplab
