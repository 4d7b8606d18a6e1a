// paired.cpp — the per-round ratio, its interval at the run's looks, the four-way verdict and the
// random order of turns (paired.hpp).
#include "looplab/experiments/paired.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace looplab {

int look_rounds(int rounds) {
  if (rounds < kMinDecidingRounds) return 0;
  int look = kMinDecidingRounds;
  while (look <= rounds / 2) look *= 2;
  return look;
}

int look_index(int look_rounds) {
  int j = 0;
  for (int n = kMinDecidingRounds; n < look_rounds; n *= 2) ++j;
  return j;
}

double look_level(int j) {
  return kErrorRate / (static_cast<double>(j + 1) * static_cast<double>(j + 2));
}

int interval_rank(int n, double alpha) {
  // P(B = j) in logs, from ln P(B = 0) = −n ln 2 upward; the sum below alpha/2 only ever adds
  // terms smaller than alpha/2, so exp never overflows, and terms that underflow are negligible.
  double log_term = -static_cast<double>(n) * std::log(2.0), below = 0.0;
  int k = 0;
  for (int j = 0; j < n; ++j) {
    below += std::exp(log_term);  // P(B <= j) = P(B < j + 1)
    if (below > alpha / 2.0) break;
    k = j + 1;
    log_term += std::log(static_cast<double>(n - j) / static_cast<double>(j + 1));
  }
  return k;
}

namespace {

double median_of_sorted(const std::vector<double>& v) {
  const std::size_t mid = v.size() / 2;
  return v.size() % 2 == 1 ? v[mid] : 0.5 * (v[mid - 1] + v[mid]);
}

}  // namespace

PairedRatio paired_ratio(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size() || a.empty())
    throw std::invalid_argument("paired_ratio: one time of each side per round");
  PairedRatio r;
  r.taken = static_cast<int>(a.size());
  const int look = look_rounds(r.taken);
  r.rounds = look > 0 ? look : r.taken;
  // Ratios in logs: a 2x and a 0.5x are equally far from 1, and the median commutes with exp.
  std::vector<double> logs(static_cast<std::size_t>(r.rounds));
  for (std::size_t i = 0; i < logs.size(); ++i) logs[i] = std::log(a[i] / b[i]);
  std::sort(logs.begin(), logs.end());
  r.ratio = std::exp(median_of_sorted(logs));
  int k = 1;  // before the first look: [smallest, largest], which decides nothing
  if (look > 0) {
    r.level = look_level(look_index(look));
    k = std::max(interval_rank(look, r.level), 1);
  }
  r.lo = std::exp(logs[static_cast<std::size_t>(k - 1)]);
  r.hi = std::exp(logs[static_cast<std::size_t>(r.rounds - k)]);
  return r;
}

Interval median_interval(std::vector<double> v) {
  if (v.empty()) return {};
  std::sort(v.begin(), v.end());
  const int n = static_cast<int>(v.size()), k = std::max(interval_rank(n, kErrorRate), 1);
  return {v[static_cast<std::size_t>(k - 1)], v[static_cast<std::size_t>(n - k)]};
}

RatioVerdict ratio_verdict(const PairedRatio& r, double band) {
  const double low = 1.0 / (1.0 + band), high = 1.0 + band;
  if (r.rounds < kMinDecidingRounds) return RatioVerdict::Inconclusive;
  if (r.lo >= low && r.hi <= high) return RatioVerdict::Same;  // any difference is < band
  if (r.hi < 1.0) return RatioVerdict::AFaster;                // a is faster: by how much, see
  if (r.lo > 1.0) return RatioVerdict::BFaster;                // beyond_band()
  return RatioVerdict::Inconclusive;
}

bool beyond_band(const PairedRatio& r, double band) {
  switch (ratio_verdict(r, band)) {
    case RatioVerdict::AFaster:
      return r.hi < 1.0 / (1.0 + band);
    case RatioVerdict::BFaster:
      return r.lo > 1.0 + band;
    default:
      return false;
  }
}

bool decided(const PairedRatio& r, double band) {
  return ratio_verdict(r, band) == RatioVerdict::Same || beyond_band(r, band);
}

}  // namespace looplab
