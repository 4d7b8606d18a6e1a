// valley.cpp — runs to a tolerance and the valley picture (valley.hpp).
#include "looplab/experiments/valley.hpp"

#include <Eigen/Dense>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>

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

std::vector<double> gap_by_direction(const Quadratic& q, const LinearWeights& w) {
  const Eigen::VectorXd c = q.eigen_coordinates(w);
  std::vector<double> share(static_cast<std::size_t>(c.size()));
  for (Eigen::Index i = 0; i < c.size(); ++i)
    share[i] = 0.5 * q.eigenvalues()(i) * c(i) * c(i) / q.gap_scale();
  return share;
}

json iterations_message(const ToleranceRun& r) {
  if (r.hit) return msg("std.iter", {{"n", *r.hit}});
  if (r.diverged_at) return msg("std.iter_diverged", {{"n", *r.diverged_at}});
  return msg("std.iter_not_reached", {{"n", r.iteration}});
}

namespace {

// A point's coordinates in the valley's plane (valley_in_eigen_plane).
std::array<double, 2> valley_coordinates(const Quadratic& q, const LinearWeights& w) {
  if (!valley_in_eigen_plane(q)) return {w.w.at(0), w.b};
  const Eigen::VectorXd c = q.eigen_coordinates(w);
  return {c(0), c(c.size() - 1)};  // the slowest direction, the fastest
}

struct ScalingRung {
  const char* name;
  const char* label;
  ScalingKind kind;
};
constexpr ScalingRung kScalingRungs[] = {
    {"standardize", "standardized x", ScalingKind::Standardize},
    {"minmax", "min-max scaled x", ScalingKind::MinMax},
    {"centre", "centred x", ScalingKind::Centre},
    {"whiten", "whitened x", ScalingKind::Whiten},
};

const ScalingRung& scaling_rung(const std::string& name) {
  for (const ScalingRung& r : kScalingRungs)
    if (name == r.name) return r;
  throw std::invalid_argument("no scaling " + name);  // the choice was validated
}

}  // namespace

std::vector<std::string> scaling_names() {
  std::vector<std::string> names;
  for (const ScalingRung& r : kScalingRungs) names.push_back(r.name);
  return names;
}
ScalingKind scaling_kind(const std::string& name) { return scaling_rung(name).kind; }
std::string scaling_label(const std::string& name) { return scaling_rung(name).label; }

std::array<double, 4> path_columns(const Quadratic& q, const LinearWeights& own,
                                   const LinearWeights& raw) {
  const std::array<double, 2> at = valley_coordinates(q, own);
  const bool line = raw.w.size() == 1;
  const double none = std::numeric_limits<double>::quiet_NaN();
  return {at[0], at[1], line ? raw.w[0] : none, line ? raw.b : none};
}

json weights_arg(const std::vector<double>& w) {
  if (w.size() == 1) return w[0];
  json list = json::array();
  for (const double v : w) list.push_back(msg("std.weight", {{"w", v}}));
  return joined(list, "sep.comma");
}

void add_weights(json& run, const LinearWeights& raw) {
  if (raw.w.size() > 1) run["weights"] = raw.w;
}

json optional_json(const std::optional<long long>& v) { return v ? json(*v) : json(nullptr); }

bool valley_in_eigen_plane(const Quadratic& q) { return q.optimum().w.size() > 1; }

namespace {

// The eigen-plane's grid: θ = θ* + u·e_min + v·e_max, where the gap is ½(λmin·u² + λmax·v²).
void add_eigen_grid(Series& grid, const Quadratic& q) {
  const Eigen::VectorXd& lambda = q.eigenvalues();
  const Eigen::Index p = lambda.size();
  const LinearWeights& opt = q.optimum();
  const double gap0 = q.gap({std::vector<double>(opt.w.size(), 0.0), 0.0});
  double half[2];
  const double extremes[2] = {lambda(0), lambda(p - 1)};
  for (int j = 0; j < 2; ++j) {
    half[j] = 1.15 * std::sqrt(2.0 * gap0 / extremes[j]);
    if (!(half[j] > 0.0) || !std::isfinite(half[j])) half[j] = 1.0;
  }
  for (int i = 0; i < kGrid; ++i)
    for (int k = 0; k < kGrid; ++k) {
      const double u = half[0] * (2.0 * k / (kGrid - 1) - 1.0);
      const double v = half[1] * (2.0 * i / (kGrid - 1) - 1.0);
      const double gap = 0.5 * (extremes[0] * u * u + extremes[1] * v * v) / q.gap_scale();
      grid.add({rounded(u), rounded(v), rounded(gap)});
    }
}

}  // namespace

void add_valley_grid(Series& grid, const Quadratic& q) {
  if (valley_in_eigen_plane(q)) return add_eigen_grid(grid, q);
  const LinearWeights& opt = q.optimum();
  const double gap0 = q.gap({std::vector<double>(opt.w.size(), 0.0), 0.0});
  const double center[2] = {opt.w.at(0), opt.b};
  double half[2];
  for (int j = 0; j < 2; ++j) {
    half[j] = 1.15 * std::sqrt(2.0 * gap0 * q.inverse_hessian_diagonal(j));
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
    data.add({d.x[at * static_cast<std::size_t>(d.x.shape().cols)], d.y[at]});
  }
}

}  // namespace looplab
