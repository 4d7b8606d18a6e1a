// rounds_test.cpp — the paired-rounds scheduler (rounds.hpp) on fake sides and a fake clock: every
// side once a round in an order drawn from the seed, the turn length it calibrates and which rounds
// count, work outside the stopwatch, sides that stop; and through a run (run.hpp): the cap on extra
// rounds, and Run longer continuing the same rounds.
#include "looplab/experiments/rounds.hpp"

#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "looplab/base/clock.hpp"
#include "looplab/base/rng.hpp"
#include "looplab/experiments/comparison.hpp"
#include "looplab/experiments/run.hpp"

namespace looplab {
namespace rounds_test {  // named: the unity build joins every test file's anonymous namespace

// Sides on a fake clock: side s takes ms_per_unit[s] per unit; every turn is logged.
struct Fake {
  double now = 0.0;
  std::vector<double> ms_per_unit;
  std::vector<std::size_t> log;  // whose turn, in order
  std::vector<long long> asked;  // units asked, per turn
  std::vector<TimedSide> sides() {
    std::vector<TimedSide> out;
    for (std::size_t s = 0; s < ms_per_unit.size(); ++s)
      out.push_back({"side " + std::to_string(s), [] { return true; },
                     [this, s](long long n) {
                       now += ms_per_unit[s] * static_cast<double>(n);
                       log.push_back(s);
                       asked.push_back(n);
                       return n;
                     }});
    return out;
  }
  // On a clock that ticks in 5 µs (a browser's): a turn counts from 0.25 ms (50 ticks).
  PairedRounds rounds(std::uint64_t seed, TurnRule rule) {
    return PairedRounds(
        sides(), seed, rule, [this] { return now; }, 0.005);
  }
};

std::vector<std::size_t> order(std::uint64_t seed, int rounds) {
  Fake f{0.0, {1.0, 1.0}, {}, {}};
  PairedRounds r = f.rounds(seed, {1.0, 1, true});
  for (int i = 0; i < 2 * rounds; ++i) EXPECT_TRUE(r.turn());
  EXPECT_EQ(r.rounds(), static_cast<std::size_t>(rounds));
  return f.log;
}

TEST(PairedRounds, EverySideOnceARoundInAnOrderDrawnFromTheSeed) {
  const std::vector<std::size_t> seq = order(11, 200);
  int zero_first = 0;
  for (std::size_t i = 0; i < 200; ++i) {
    EXPECT_EQ((std::set<std::size_t>{seq[2 * i], seq[2 * i + 1]}.size()), 2u);
    zero_first += seq[2 * i] == 0;
  }
  EXPECT_GT(zero_first, 60);  // both orders occur, about half each
  EXPECT_LT(zero_first, 140);
  EXPECT_EQ(order(11, 200), seq);  // reproducible from the seed
  EXPECT_NE(order(12, 200), seq);
}

TEST(PairedRounds, ShortTurnsCalibrateAndAreNotCounted) {
  Fake f{0.0, {0.01, 0.1}, {}, {}};  // 10 µs and 100 µs a unit; turns must last 1 ms
  PairedRounds same = f.rounds(3, {1.0, 1, true});
  same.turn();
  same.turn();
  EXPECT_EQ(same.rounds(), 0u);   // 10 µs and 100 µs turns: calibration
  EXPECT_EQ(same.units(0), 125);  // 1.25 ms at side 0's pace, for both sides
  EXPECT_EQ(same.units(1), 125);
  same.turn();
  same.turn();
  ASSERT_EQ(same.rounds(), 1u);
  EXPECT_DOUBLE_EQ(same.rounds_us(0)[0], 10.0);  // µs per unit
  EXPECT_DOUBLE_EQ(same.rounds_us(1)[0], 100.0);
  EXPECT_DOUBLE_EQ(same.timed_ms(0), 0.01 * 126);  // calibration included
  EXPECT_EQ(same.timed_units(0), 126);

  Fake g{0.0, {0.01, 0.1}, {}, {}};
  PairedRounds own = g.rounds(3, {1.0, 4, false});  // each side its own units, multiples of 4
  own.turn();
  own.turn();
  EXPECT_EQ(own.units(0), 128);  // 4 units took 0.04 ms: 1.25 ms needs 125, rounded up to 128
  EXPECT_EQ(own.units(1), 16);   // 4 units took 0.4 ms: 12.5 -> 16
  EXPECT_EQ(own.rounds(), 0u);   // 0.04 ms is 8 ticks of 5 µs
}

TEST(PairedRounds, ATurnThatRanOutOfWorkCountsAndOneTheClockMissedDoesNot) {
  long long left = 3;  // side a has three units of work left
  double now = 0.0, b_ms = 1.0;
  PairedRounds r(
      {{"a", [&] { return left > 0; },
        [&](long long n) {
          const long long ran = std::min(n, left);
          left -= ran;
          now += 0.01 * static_cast<double>(ran);
          return ran;
        }},
       {"b", [] { return true; },
        [&](long long n) {
          now += b_ms * static_cast<double>(n);
          return n;
        }}},
      5, {1.0, 1, false}, [&] { return now; }, 0.005);
  r.turn();
  r.turn();
  EXPECT_EQ(r.rounds(), 0u);  // a's 10 µs turn: calibration
  EXPECT_EQ(r.units(0), 125);
  r.turn();
  r.turn();
  ASSERT_EQ(r.rounds(), 1u);  // a ran its last 2 units in 20 µs: it cannot take longer, it counts
  EXPECT_NEAR(r.rounds_us(0)[0], 10.0, 1e-9);
  b_ms = 0.0;  // b alone now, and the clock does not move: nothing to count
  r.turn();
  EXPECT_EQ(r.rounds(), 1u);
}

TEST(PairedRounds, PrepareRunsOutsideTheStopwatchWithTheTurnsUnits) {
  double now = 0.0;
  std::vector<long long> prepared;
  PairedRounds r({{"a", [] { return true; },
                   [&](long long n) {
                     now += static_cast<double>(n);
                     return n;
                   },
                   [&](long long n) {
                     prepared.push_back(n);
                     now += 100.0;  // a rebuild: not part of the turn
                   }}},
                 1, {1.0, 1, true}, [&] { return now; });
  r.turn();
  r.turn();
  EXPECT_EQ(prepared, (std::vector<long long>{1, 1}));
  EXPECT_EQ(r.rounds_us(0), (std::vector<double>{1000.0, 1000.0}));
}

TEST(PairedRounds, ASideThatStopsKeepsItsRoundsAndTheOthersGoOn) {
  bool b_runs = true;
  double now = 0.0;
  std::vector<bool> closed;
  const auto ms = [&](double per) {
    return [&, per](long long n) {
      now += per * static_cast<double>(n);
      return n;
    };
  };
  PairedRounds r(
      {{"a", [] { return true; }, ms(1.0), {}, [&](bool kept) { closed.push_back(kept); }},
       {"b", [&] { return b_runs; }, ms(2.0)}},
      9, {1.0, 1, false}, [&] { return now; });
  for (int i = 0; i < 6; ++i) r.turn();
  b_runs = false;
  for (int i = 0; i < 4; ++i) r.turn();  // a alone: four rounds of one turn
  EXPECT_EQ(r.rounds(), 7u);
  EXPECT_EQ(r.rounds_us(0).size(), 7u);
  EXPECT_EQ(r.rounds_us(1).size(), 3u);
  EXPECT_EQ(closed, std::vector<bool>(7, true));
  b_runs = true;  // a side that missed a counted round gains none again: it would pair with nothing
  for (int i = 0; i < 4; ++i) r.turn();
  EXPECT_EQ(r.rounds_us(1).size(), 3u);
  // Paired by round: b's three rounds against a's first three.
  const Comparison c = compare("a_vs_b", paired_side("a", r.rounds_us(0)),
                               paired_side("b", r.rounds_us(1)), Quantity::Time, "µs");
  EXPECT_EQ(c.paired->taken, 3);
  EXPECT_DOUBLE_EQ(c.paired->ratio, 0.5);
}

TEST(PairedRounds, NoSideTakingATurnRunsNothing) {
  PairedRounds r({{"a", [] { return false; }, [](long long n) { return n; }}}, 1, {});
  EXPECT_FALSE(r.turn());
  EXPECT_FALSE(r.mid_round());
  EXPECT_THROW(PairedRounds({}, 1, {}), std::invalid_argument);
}

// ---- through a run: the cap on extra rounds and Run longer -------------------------------------

// Two sides with the same work, 20-60 µs a turn at random on the real clock: at band 0.005 their
// verdict stays open for many thousands of rounds, so the cap ends the run.
class SameWorkRun final : public ChunkedRun {
 public:
  explicit SameWorkRun(double max_seconds)
      : ChunkedRun("same-work",
                   Params(json{{"max_seconds", max_seconds}, {"band", 0.005}, {"seed", 4}})) {
    std::vector<TimedSide> sides;
    for (const char* name : {"a", "b"})
      sides.push_back({name, [] { return true; },
                       [this](long long n) {
                         const double ms = 0.02 * static_cast<double>(n) * rng_.uniform(1.0, 3.0);
                         const Stopwatch w;
                         while (w.elapsed_ms() < ms) {
                         }
                         return n;
                       }});
    rounds_ = &add_rounds(std::move(sides), {0.02, 1, true});
  }
  bool finished() const override { return rounds_->rounds() >= 8; }
  std::size_t rounds() const { return rounds_->rounds(); }

 private:
  void work_one() override { rounds_->turn(); }
  std::vector<Comparison> comparisons() const override {
    return {compare("a_vs_b", paired_side("a", rounds_->rounds_us(0)),
                    paired_side("b", rounds_->rounds_us(1)), Quantity::Time, "µs")};
  }
  double fraction() const override { return 0.0; }
  json progress_message() const override { return "timing"; }
  json runs() const override { return json::array(); }
  json summary() const override { return json::object(); }
  PairedRounds* rounds_ = nullptr;
  Rng rng_{7};
};

TEST(PairedRoundsInARun, TheCapEndsExtraRoundsAndRunLongerContinuesThem) {
  SameWorkRun run(0.05);
  const Stopwatch w;
  while (!run.advance(5.0)) {
  }
  const std::size_t first = run.rounds();
  EXPECT_GT(first, 8u);               // extra rounds were taken...
  EXPECT_LT(w.elapsed_ms(), 2000.0);  // ...and stopped by the 50 ms cap (generous: a busy CI)
  EXPECT_TRUE(run.extend(0.05));
  EXPECT_FALSE(run.done());
  while (!run.advance(5.0)) {
  }
  EXPECT_GT(run.rounds(), first);  // the same rounds, continued
  EXPECT_TRUE(json::parse(run.result_json())["summary"]["run_longer"]);  // still open
}

}  // namespace rounds_test
}  // namespace looplab
