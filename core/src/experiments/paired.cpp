// paired.cpp — the per-round ratio, its interval and the three-way verdict (paired.hpp).
#include "looplab/experiments/paired.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace looplab {
namespace {

// The rank k of the distribution-free 95% interval [x(k), x(n+1-k)] for the median of n values:
// the largest k with P(Binomial(n, 1/2) < k) <= 2.5%; 0 when even [x(1), x(n)] falls short of 95%
// (n < 6).
int interval_rank(int n) {
  double below = 0.0, term = std::pow(0.5, n);  // P(B = j), starting at j = 0
  int k = 0;
  for (int j = 0; j < n; ++j) {
    below += term;  // P(B <= j) = P(B < j + 1)
    if (below > 0.025) break;
    k = j + 1;
    term *= static_cast<double>(n - j) / static_cast<double>(j + 1);
  }
  return k;
}

}  // namespace

PairedRatio paired_ratio(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size() || a.empty())
    throw std::invalid_argument("paired_ratio: one time of each side per round");
  // Ratios in logs: a 2x and a 0.5x are equally far from 1, and the median commutes with exp.
  std::vector<double> logs(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) logs[i] = std::log(a[i] / b[i]);
  std::sort(logs.begin(), logs.end());
  const int n = static_cast<int>(logs.size());
  PairedRatio r;
  r.rounds = n;
  const std::size_t mid = logs.size() / 2;
  r.ratio = std::exp(n % 2 == 1 ? logs[mid] : 0.5 * (logs[mid - 1] + logs[mid]));
  const int k = std::max(interval_rank(n), 1);
  r.lo = std::exp(logs[static_cast<std::size_t>(k - 1)]);
  r.hi = std::exp(logs[static_cast<std::size_t>(n - k)]);
  return r;
}

Interval median_interval(std::vector<double> v) {
  if (v.empty()) return {};
  std::sort(v.begin(), v.end());
  const int n = static_cast<int>(v.size()), k = std::max(interval_rank(n), 1);
  return {v[static_cast<std::size_t>(k - 1)], v[static_cast<std::size_t>(n - k)]};
}

RatioVerdict ratio_verdict(const PairedRatio& r, double band) {
  const double low = 1.0 / (1.0 + band), high = 1.0 + band;
  if (r.rounds < kMinDecidingRounds) return RatioVerdict::Inconclusive;
  if (r.lo >= low && r.hi <= high) return RatioVerdict::Same;     // any difference is < 5%
  if (r.hi < 1.0 && r.ratio < low) return RatioVerdict::AFaster;  // a is faster, by > 5% likely
  if (r.lo > 1.0 && r.ratio > high) return RatioVerdict::BFaster;
  return RatioVerdict::Inconclusive;
}

}  // namespace looplab
