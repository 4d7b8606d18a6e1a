// valley.cpp — runs to a tolerance and the valley picture (valley.hpp).
#include "looplab/experiments/valley.hpp"

#include <Eigen/Dense>
#include <cstdio>
#include <cstdlib>

#include "looplab/base/i18n.hpp"

namespace looplab {
namespace {

constexpr int kGrid = 49;           // contour grid points per axis: odd, so θ* is the centre point
constexpr int kLevels = 10;         // contour lines per panel
constexpr double kLevelSpan = 2.0;  // decades of gap between the outermost and innermost line
constexpr std::size_t kDataPoints = 200;

// A value for the contour grid rounded to 6 significant digits: the picture needs no more, and the
// JSON of 2 × 49² points stays small.
double rounded(double v) {
  if (!std::isfinite(v) || v == 0.0) return v;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return std::strtod(buf, nullptr);
}

}  // namespace

void ToleranceRun::start(std::size_t d, long long iteration_limit) {
  at = {std::vector<double>(d, 0.0), 0.0};
  theta_.assign(d + 1, 0.0);
  limit = iteration_limit;
}

json iterations_message(const ToleranceRun& r) {
  if (r.hit) return msg("std.iter", {{"n", *r.hit}});
  if (r.diverged_at) return msg("std.iter_diverged", {{"n", *r.diverged_at}});
  return msg("std.iter_not_reached", {{"n", r.iteration}});
}

json optional_json(const std::optional<long long>& v) { return v ? json(*v) : json(nullptr); }

void add_valley_grid(Series& grid, const Quadratic& q) {
  const LinearWeights& opt = q.optimum();
  const double gap0 = q.gap({std::vector<double>(opt.w.size(), 0.0), 0.0});
  const Eigen::MatrixXd inverse = q.hessian().inverse();
  const double center[2] = {opt.w.at(0), opt.b};
  double half[2];
  for (int j = 0; j < 2; ++j) {
    half[j] = 1.15 * std::sqrt(2.0 * gap0 * inverse(j, j));
    // NOTE: a start at the optimum (y ≡ 0) has no level set to frame: show a unit box.
    if (!(half[j] > 0.0) || !std::isfinite(half[j])) half[j] = std::max(1.0, std::abs(center[j]));
  }
  for (int i = 0; i < kGrid; ++i)
    for (int k = 0; k < kGrid; ++k) {
      const double t = 2.0 * k / (kGrid - 1) - 1.0, u = 2.0 * i / (kGrid - 1) - 1.0;
      const LinearWeights at{{center[0] + half[0] * t}, center[1] + half[1] * u};
      grid.add({rounded(at.w[0]), rounded(at.b), rounded(q.relative_gap(at))});
    }
}

std::vector<double> valley_levels(double gap0) {
  const double top = gap0 > 0.0 ? gap0 : 1.0;
  std::vector<double> levels;
  for (int k = 0; k < kLevels; ++k)
    levels.push_back(rounded(top * std::pow(10.0, -kLevelSpan * k / (kLevels - 1))));
  return levels;
}

void add_data_sample(Series& data, const LinearData& d) {
  const std::size_t n = d.x.shape().rows;
  const std::size_t m = std::min(n, kDataPoints);
  for (std::size_t i = 0; i < m; ++i) {
    const std::size_t at = m == 1 ? 0 : i * (n - 1) / (m - 1);
    data.add({d.x[at], d.y[at]});
  }
}

}  // namespace looplab
