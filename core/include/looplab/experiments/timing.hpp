// looplab/experiments/timing.hpp — the arithmetic behind the overhead and matrix experiments:
// timing a step in chunks, fitting t(N) = a + b·N, and the seed-001 percentages.
//
//   ChunkTiming t = time_steps([&] { return trainer.step(lr); }, 3.0, 5);   // median µs per step
//   CostLine fit = fit_cost_line({10, 100, 1000}, {1.2, 1.5, 4.1});        // a, b, crossover a/b
//   double pct = percent_faster(2.0, 3.0);                                 // +50: the first is
//   faster
#pragma once

#include <cmath>
#include <optional>
#include <vector>

#include "looplab/experiments/results.hpp"

namespace looplab {

struct ChunkTiming {
  double us_per_step = 0.0;  // median over the timed chunks
  double spread_us = 0.0;    // half the interquartile range of the chunks' µs per step
  long long steps_per_chunk = 0, steps = 0;
  float last_loss = 0.0f;
  bool diverged = false;  // a non-finite loss was seen
};

// Half the interquartile range of per-chunk timings: how far chunks of the same work scatter (load
// from other processes, the scheduler). A difference smaller than this is not a measured
// difference.
double half_iqr(std::vector<double> v);

// Browser clocks tick in 5-100 µs, so one step is never timed alone: the steps per chunk double
// (from 1) until one chunk takes at least chunk_ms, then `repeats` chunks of that many steps are
// timed and the median per-step time kept. step() returns the step's loss.
template <class Step>
ChunkTiming time_steps(Step&& step, double chunk_ms, int repeats) {
  ChunkTiming t;
  const auto run = [&](long long k) {
    const Stopwatch w;
    for (long long i = 0; i < k; ++i) {
      t.last_loss = step();
      if (!std::isfinite(t.last_loss)) t.diverged = true;
    }
    t.steps += k;
    return w.elapsed_ms();
  };
  constexpr long long kMaxSteps = 1LL << 40;
  long long k = 1;
  while (run(k) < chunk_ms && !t.diverged && k < kMaxSteps) k *= 2;
  std::vector<double> per_step;
  while (static_cast<int>(per_step.size()) < repeats && !t.diverged) {
    const double ms = run(k);
    // The chunk that ended the doubling may have been slow by accident (a cold first call, a
    // pause); a chunk far shorter than chunk_ms would be timed by a few clock ticks, or read 0.
    // Then double again and start the timed chunks over.
    if (ms < chunk_ms / 4 && k < kMaxSteps) {
      k *= 2;
      per_step.clear();
      continue;
    }
    per_step.push_back(ms * 1000.0 / static_cast<double>(k));
  }
  t.steps_per_chunk = k;
  t.us_per_step = median(per_step);
  t.spread_us = half_iqr(per_step);
  return t;
}

// t(N) = a + b·N by least squares with relative-error weights: minimizes Σ ((a + b·N_i − t_i) /
// t_i)², so each decade of N counts alike (plain least squares would fit only the largest N).
// crossover = a / b: the N at which the work per point costs as much as the fixed overhead
// (unset unless a > 0 and b > 0).
struct CostLine {
  double a = 0.0, b = 0.0;
  std::optional<double> crossover;
};
CostLine fit_cost_line(const std::vector<double>& n, const std::vector<double>& t);

// Seed 001's percentage for "first vs second": (longer/shorter − 1) × 100, positive when the first
// is faster (shorter time), negative when it is slower. 2 s vs 3 s -> +50; 3 s vs 2 s -> −50.
double percent_faster(double t_first, double t_second);

// `points` integers from lo to hi, log-spaced, rounded, duplicates dropped (lo and hi included).
std::vector<long long> log_spaced(long long lo, long long hi, int points);

}  // namespace looplab
