// timing.cpp — the weighted cost-line fit, the percentage faster and log-spaced sizes.
#include "looplab/experiments/timing.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace looplab {

CostLine fit_cost_line(const std::vector<double>& n, const std::vector<double>& t) {
  if (n.size() != t.size() || n.size() < 2)
    throw std::invalid_argument("fit_cost_line: needs two or more (N, t) pairs");
  // Normal equations of the weighted problem, w_i = 1 / t_i²:
  //   [Σw   ΣwN ] [a]   [Σwt ]
  //   [ΣwN  ΣwN²] [b] = [ΣwNt]
  for (const double ti : t)
    if (!(ti > 0.0) || !std::isfinite(ti))
      throw std::invalid_argument("fit_cost_line: times must be positive and finite");
  double sw = 0, swn = 0, swnn = 0, swt = 0, swnt = 0;
  for (std::size_t i = 0; i < n.size(); ++i) {
    const double w = 1.0 / (t[i] * t[i]);
    sw += w;
    swn += w * n[i];
    swnn += w * n[i] * n[i];
    swt += w * t[i];
    swnt += w * n[i] * t[i];
  }
  const double det = sw * swnn - swn * swn;
  if (!(std::abs(det) > 0.0)) throw std::invalid_argument("fit_cost_line: needs two different N");
  CostLine c;
  c.a = (swnn * swt - swn * swnt) / det;
  c.b = (sw * swnt - swn * swt) / det;
  if (c.a > 0.0 && c.b > 0.0) c.crossover = c.a / c.b;
  return c;
}

double half_iqr(std::vector<double> v) {
  if (v.size() < 2) return 0.0;
  std::sort(v.begin(), v.end());
  const auto at = [&](double q) {  // linear interpolation between order statistics
    const double pos = q * static_cast<double>(v.size() - 1);
    const auto i = static_cast<std::size_t>(pos);
    return i + 1 < v.size() ? v[i] + (v[i + 1] - v[i]) * (pos - static_cast<double>(i)) : v[i];
  };
  return 0.5 * (at(0.75) - at(0.25));
}

double percent_faster(double t_first, double t_second) {
  if (t_first <= t_second) return (t_second / t_first - 1.0) * 100.0;
  return -(t_first / t_second - 1.0) * 100.0;
}

std::vector<long long> log_spaced(long long lo, long long hi, int points) {
  std::vector<long long> out;
  for (int i = 0; i < points; ++i) {
    const double f = points == 1 ? 0.0 : static_cast<double>(i) / (points - 1);
    const long long v = std::llround(std::exp(std::log(static_cast<double>(lo)) * (1.0 - f) +
                                              std::log(static_cast<double>(hi)) * f));
    if (out.empty() || v > out.back()) out.push_back(std::clamp(v, lo, hi));
  }
  return out;
}

}  // namespace looplab
