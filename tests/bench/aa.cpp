// aa.cpp — an A/A bench of the paired verdicts (not a pass/fail test): one real side paired with
// itself, through the same pieces a run uses (the paired-rounds scheduler, rounds.hpp, for the
// order and the turns' length; compare() and decided() after every round; a cap), many times
// over; how often are identical sides called different?
//
//   build/native/looplab_bench_aa [runs] [cap] [turn_us] [busy]   busy: a spinning thread per core
//   node build/wasm/looplab_bench_aa.js [runs] [cap] [turn_us]    (no threads in this wasm build)
//
// A side is W1's traced step (seed 004 linear regression, N = 1000), a turn at least turn_us µs of
// steps (default 200, as optimizers' turns; shorter turns are noisier; the scheduler calibrates
// the steps, uncounted); both sides are separate trainers of the same program. Prints the outcome
// counts and the rounds each run took.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>
#ifndef __EMSCRIPTEN__
#include <thread>
#endif

#include "looplab/base/clock.hpp"
#include "looplab/experiments/comparison.hpp"
#include "looplab/experiments/rounds.hpp"
#include "looplab/train/linear.hpp"
#include "looplab/train/linear_trainer.hpp"

namespace looplab {
namespace {

const char* outcome(const Comparison& c) {
  switch (c.verdict) {
    case Verdict::A:
    case Verdict::B:
      return c.beyond_band() ? "different, beyond the band" : "different, within the band";
    case Verdict::Same:
      return "the same";
    case Verdict::Inconclusive:
      return "not enough evidence";
  }
  return "?";
}

int run(int runs, int cap, double turn_us, bool busy) {
#ifndef __EMSCRIPTEN__
  std::atomic<bool> stop{false};
  std::vector<std::thread> load;
  if (busy)
    for (unsigned i = 0; i < std::max(1u, std::thread::hardware_concurrency()); ++i)
      load.emplace_back([&] {
        volatile double x = 1.0;
        while (!stop.load(std::memory_order_relaxed)) x = x * 1.0000001 + 1e-9;
      });
#else
  (void)busy;
#endif
  const LinearData d = sine_trend_data();
  auto a = make_linear_trainer(Mode::Traced, d.x, d.y),
       b = make_linear_trainer(Mode::Traced, d.x, d.y);
  for (auto* t : {a.get(), b.get()})  // warm: a first call (and wasm's tier-up) is slow
    for (int i = 0; i < 2000; ++i) t->step(1e-4f);
  const auto side = [](const char* name, LinearTrainer& t) {
    return TimedSide{name, [] { return true; },
                     [&t](long long k) {
                       for (long long i = 0; i < k; ++i) t.step(1e-4f);
                       return k;
                     }};
  };
  std::map<std::string, int> counts;
  std::vector<int> rounds;
  long long k = 0;
  for (int r = 0; r < runs; ++r) {
    PairedRounds turns({side("a", *a), side("a'", *b)}, 1000 + static_cast<std::uint64_t>(r),
                       {turn_us / 1000.0, 1, true});
    Comparison c;
    do {
      do turns.turn();
      while (turns.mid_round());
      c = compare("a_vs_a", paired_side("a", turns.rounds_us(0)),
                  paired_side("a'", turns.rounds_us(1)), Quantity::Time, "µs per step");
    } while (!c.decided() && static_cast<int>(turns.rounds()) < cap);
    ++counts[outcome(c)];
    rounds.push_back(static_cast<int>(turns.rounds()));
    k = turns.units(0);
  }
#ifndef __EMSCRIPTEN__
  stop = true;
  for (auto& t : load) t.join();
#endif
  std::sort(rounds.begin(), rounds.end());
  std::printf("A/A: %d runs, cap %d rounds, %lld steps a turn%s\n", runs, cap, k,
              busy ? ", a busy thread per core" : "");
  for (const auto& [name, n] : counts)
    std::printf("  %-28s %4d  (%.1f%%)\n", name.c_str(), n, 100.0 * n / runs);
  std::printf("  rounds per run: min %d, median %d, max %d\n", rounds.front(),
              rounds[rounds.size() / 2], rounds.back());
  return 0;
}

}  // namespace
}  // namespace looplab

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 200;
  const int cap = argc > 2 ? std::atoi(argv[2]) : 300;
  const double turn_us = argc > 3 ? std::atof(argv[3]) : 200.0;
  const bool busy = argc > 4 && std::string(argv[4]) == "busy";
  return looplab::run(runs, cap, turn_us, busy);
}
