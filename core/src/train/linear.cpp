// linear.cpp — linear regression: the model, scaling and the exact analysis.
#include "looplab/train/linear.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>

namespace looplab {

LinearRegression::LinearRegression(int features) : w_({features, 1}), b_({1, 1}) {}

LinearWeights LinearRegression::weights() const {
  LinearWeights out;
  for (std::size_t i = 0; i < w_.size(); ++i) out.w.push_back(w_[i]);
  out.b = b_[0];
  return out;
}

void LinearRegression::read_theta(double* theta) const {
  for (std::size_t i = 0; i < w_.size(); ++i) theta[i] = w_[i];
  theta[w_.size()] = b_[0];
}

Scaler Scaler::fit(const Tensor& x, ScalingKind kind) {
  const int n = x.shape().rows, d = x.shape().cols;
  Scaler s;
  for (int j = 0; j < d; ++j) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo, sum = 0.0;
    for (int i = 0; i < n; ++i) {
      const double v = x[static_cast<std::size_t>(i) * d + j];
      lo = std::min(lo, v);
      hi = std::max(hi, v);
      sum += v;
    }
    const double mean = sum / n;
    double ss = 0.0;
    for (int i = 0; i < n; ++i) {
      const double v = x[static_cast<std::size_t>(i) * d + j] - mean;
      ss += v * v;
    }
    const double spread = kind == ScalingKind::Standardize ? std::sqrt(ss / n) : hi - lo;
    s.offset.push_back(kind == ScalingKind::Standardize ? mean : lo);
    s.scale.push_back(spread > 0.0 ? spread : 1.0);
  }
  return s;
}

Tensor Scaler::transform(const Tensor& x) const {
  Tensor out(x.shape());
  const int n = x.shape().rows, d = x.shape().cols;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < d; ++j) {
      const std::size_t k = static_cast<std::size_t>(i) * d + j;
      out[k] = static_cast<float>((x[k] - offset[j]) / scale[j]);
    }
  return out;
}

// x'·W_s + b_s = Σ (x_j − o_j)/s_j · W_s,j + b_s  ⇒  W_j = W_s,j / s_j,  b = b_s − Σ o_j·W_s,j /
// s_j.
LinearWeights Scaler::to_raw(const LinearWeights& scaled) const {
  LinearWeights raw{std::vector<double>(scaled.w.size()), scaled.b};
  for (std::size_t j = 0; j < scaled.w.size(); ++j) {
    raw.w[j] = scaled.w[j] / scale[j];
    raw.b -= offset[j] * raw.w[j];
  }
  return raw;
}

LinearWeights Scaler::to_scaled(const LinearWeights& raw) const {
  LinearWeights scaled{std::vector<double>(raw.w.size()), raw.b};
  for (std::size_t j = 0; j < raw.w.size(); ++j) {
    scaled.w[j] = raw.w[j] * scale[j];
    scaled.b += offset[j] * raw.w[j];
  }
  return scaled;
}

Quadratic::Quadratic(const Tensor& x, const Tensor& y) {
  const int n = x.shape().rows, d = x.shape().cols;
  Eigen::MatrixXd a(n, d + 1);
  Eigen::VectorXd target(n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < d; ++j) a(i, j) = x[static_cast<std::size_t>(i) * d + j];
    a(i, d) = 1.0;
    target(i) = y[static_cast<std::size_t>(i)];
  }
  // QR on A itself, not the normal equations: κ(AᵀA) = κ(A)² would cost digits for raw inputs.
  const Eigen::VectorXd theta = a.colPivHouseholderQr().solve(target);
  optimum_.w.assign(theta.data(), theta.data() + d);
  optimum_.b = theta(d);
  loss_star_ = (a * theta - target).squaredNorm() / n;
  hessian_ = (2.0 / n) * (a.transpose() * a);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(hessian_);
  eigenvalues_ = eig.eigenvalues();
  theta_star_.assign(theta.data(), theta.data() + theta.size());
  for (int i = 0; i <= d; ++i)
    for (int j = 0; j <= d; ++j) hessian_flat_.push_back(hessian_(i, j));
  eigenvectors_ = eig.eigenvectors();
  // NOTE: an exact fit (noise 0) has L* ≈ 0; relative gaps are then taken against 1e-12·mean(y²).
  const double floor = 1e-12 * std::max(target.squaredNorm() / n, 1e-300);
  gap_scale_ = std::max(loss_star_, floor);
}

Eigen::VectorXd Quadratic::to_theta(const LinearWeights& w) const {
  Eigen::VectorXd t(static_cast<Eigen::Index>(w.w.size()) + 1);
  for (std::size_t j = 0; j < w.w.size(); ++j) t(static_cast<Eigen::Index>(j)) = w.w[j];
  t(t.size() - 1) = w.b;
  return t;
}

double Quadratic::gap(const LinearWeights& w) const {
  const Eigen::VectorXd delta = to_theta(w) - to_theta(optimum_);
  return 0.5 * delta.dot(hessian_ * delta);
}

double Quadratic::relative_gap(const LinearWeights& w) const { return gap(w) / gap_scale_; }

double Quadratic::relative_gap(const double* theta) const {
  const std::size_t p = theta_star_.size();
  double delta[16];
  if (p > 16) return relative_gap(LinearWeights{{theta, theta + p - 1}, theta[p - 1]});
  for (std::size_t i = 0; i < p; ++i) delta[i] = theta[i] - theta_star_[i];
  double g = 0.0;
  for (std::size_t i = 0; i < p; ++i)
    for (std::size_t j = 0; j < p; ++j) g += delta[i] * hessian_flat_[i * p + j] * delta[j];
  return 0.5 * g / gap_scale_;
}

std::optional<long long> Quadratic::predicted_iterations(const LinearWeights& start, double lr,
                                                         double tolerance, long long limit) const {
  // In the eigenbasis, the gap after k steps is ½ Σ λ_i c_i² (1 − lr·λ_i)^(2k).
  const Eigen::VectorXd c = eigenvectors_.transpose() * (to_theta(start) - to_theta(optimum_));
  const double target = tolerance * gap_scale_;
  auto gap_after = [&](long long k) {
    double g = 0.0;
    for (Eigen::Index i = 0; i < c.size(); ++i) {
      const double rho = std::abs(1.0 - lr * eigenvalues_(i));
      g += 0.5 * eigenvalues_(i) * c(i) * c(i) *
           std::exp(2.0 * static_cast<double>(k) * std::log(rho));
    }
    return g;
  };
  if (gap_after(0) <= target) return 0;
  for (Eigen::Index i = 0; i < c.size(); ++i)
    if (std::abs(1.0 - lr * eigenvalues_(i)) >= 1.0 && eigenvalues_(i) * c(i) * c(i) > 0.0)
      return std::nullopt;
  long long hi = 1;
  while (gap_after(hi) > target) {
    if (hi > limit) return std::nullopt;
    hi *= 2;
  }
  long long lo = hi / 2;  // gap_after(lo) > target ≥ gap_after(hi)
  while (hi - lo > 1) {
    const long long mid = lo + (hi - lo) / 2;
    (gap_after(mid) > target ? lo : hi) = mid;
  }
  return hi;
}

Quadratic::HeavyBall Quadratic::best_heavy_ball() const {
  const double lo = std::sqrt(eigenvalues_(0)),
               hi = std::sqrt(eigenvalues_(eigenvalues_.size() - 1));
  const double rho = (hi - lo) / (hi + lo);  // (√κ − 1)/(√κ + 1)
  return {4.0 / ((hi + lo) * (hi + lo)), rho * rho, rho};
}

std::optional<long long> Quadratic::predicted_heavy_ball_iterations(const LinearWeights& start,
                                                                    double lr, double beta,
                                                                    double tolerance,
                                                                    long long limit) const {
  const Eigen::VectorXd c = eigenvectors_.transpose() * (to_theta(start) - to_theta(optimum_));
  Eigen::VectorXd e = c, before = c;  // e_k and e_{k−1}
  const double target = tolerance * gap_scale_;
  for (long long k = 0; k <= limit; ++k) {
    double gap = 0.0;
    for (Eigen::Index i = 0; i < e.size(); ++i) gap += 0.5 * eigenvalues_(i) * e(i) * e(i);
    if (gap <= target) return k;
    if (!(gap < 1e300)) return std::nullopt;  // diverged
    for (Eigen::Index i = 0; i < e.size(); ++i) {
      const double next = (1.0 + beta - lr * eigenvalues_(i)) * e(i) - beta * before(i);
      before(i) = e(i);
      e(i) = next;
    }
  }
  return std::nullopt;
}

RateAnalysis Quadratic::rates(const LinearWeights& start, double lr, double tolerance) const {
  const Eigen::VectorXd c = eigenvectors_.transpose() * (to_theta(start) - to_theta(optimum_));
  const Eigen::Index p = c.size();
  // share(i): direction i's part of the starting relative gap, ½ λ_i c_i² / L*.
  auto share = [&](Eigen::Index i) { return 0.5 * eigenvalues_(i) * c(i) * c(i) / gap_scale_; };
  // The estimate for one rate: ρ, and the share of the directions as slow as ρ. NOTE: "as slow"
  // means ln ρ_i within 0.1 % of ln ρ, not equal: float32 inputs leave the two eigenvalues of
  // standardized x a few 1e-9 apart, and at lr = 0.9 that splits |1 − lr·λ| = 0.8 in two.
  auto estimate_at = [&](double rate, double& rho, double& slow) -> std::optional<long long> {
    rho = 0.0;
    for (Eigen::Index i = 0; i < p; ++i)
      rho = std::max(rho, std::abs(1.0 - rate * eigenvalues_(i)));
    slow = 0.0;
    for (Eigen::Index i = 0; i < p; ++i) {
      const double r = std::abs(1.0 - rate * eigenvalues_(i));
      if (r >= rho || (r > 0.0 && rho > 0.0 &&
                       std::abs(std::log(r) - std::log(rho)) <= 1e-3 * std::abs(std::log(rho))))
        slow += share(i);
    }
    if (!(rho < 1.0)) return std::nullopt;
    if (slow <= tolerance) return 0;
    // NOTE: ρ = 0 (κ = 1 at the best rate) lands on the optimum in one step.
    if (rho <= 0.0) return 1;
    return static_cast<long long>(std::ceil(std::log(slow / tolerance) / (-2.0 * std::log(rho))));
  };
  RateAnalysis r;
  r.lambda_min = eigenvalues_(0);
  r.lambda_max = eigenvalues_(p - 1);
  r.kappa = condition_number();
  for (Eigen::Index i = 0; i < p; ++i) r.gap0 += share(i);
  r.estimate = estimate_at(lr, r.rho, r.gap0_slow);
  r.best_lr = 2.0 / (r.lambda_min + r.lambda_max);
  double best_slow = 0.0;
  r.best_estimate = estimate_at(r.best_lr, r.best_rho, best_slow);
  return r;
}

}  // namespace looplab
