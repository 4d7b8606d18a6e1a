// linear.cpp — linear regression: the model, scaling and the exact analysis.
#include "looplab/train/linear.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>

#include "looplab/train/optim.hpp"

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
    const double spread = kind == ScalingKind::Standardize ? std::sqrt(ss / n)
                          : kind == ScalingKind::MinMax    ? hi - lo
                                                           : 1.0;
    s.offset.push_back(kind == ScalingKind::MinMax ? lo : mean);
    s.scale.push_back(spread > 0.0 ? spread : 1.0);
  }
  if (kind == ScalingKind::Whiten) {
    // The population covariance's eigenvectors rotate x onto uncorrelated axes; dividing each by
    // the square root of its variance leaves the identity.
    Eigen::MatrixXd centred(n, d);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < d; ++j)
        centred(i, j) = x[static_cast<std::size_t>(i) * d + j] - s.offset[j];
    const SymmetricEigen eig = symmetric_eigen(centred.transpose().lazyProduct(centred) / n);
    s.rotation = eig.vectors;
    for (int j = 0; j < d; ++j) {
      const double sd = std::sqrt(std::max(0.0, eig.values(j)));
      s.scale[j] = sd > 0.0 ? sd : 1.0;
    }
  }
  return s;
}

Tensor Scaler::transform(const Tensor& x) const {
  Tensor out(x.shape());
  const int n = x.shape().rows, d = x.shape().cols;
  std::vector<double> z(d);
  for (int i = 0; i < n; ++i) {
    const std::size_t row = static_cast<std::size_t>(i) * d;
    for (int j = 0; j < d; ++j) z[j] = x[row + j] - offset[j];
    for (int j = 0; j < d; ++j) {
      double v = z[j];
      if (rotation.size() > 0) {
        v = 0.0;
        for (int k = 0; k < d; ++k) v += z[k] * rotation(k, j);
      }
      out[row + j] = static_cast<float>(v / scale[j]);
    }
  }
  return out;
}

// x'·W_s + b_s = ((x − o)·R)/s · W_s + b_s  ⇒  W = R·(W_s/s),  b = b_s − o·W.
LinearWeights Scaler::to_raw(const LinearWeights& scaled) const {
  const std::size_t d = scaled.w.size();
  std::vector<double> v(d);
  for (std::size_t j = 0; j < d; ++j) v[j] = scaled.w[j] / scale[j];
  LinearWeights raw{v, scaled.b};
  if (rotation.size() > 0)
    for (std::size_t j = 0; j < d; ++j) {
      raw.w[j] = 0.0;
      for (std::size_t k = 0; k < d; ++k) raw.w[j] += rotation(j, k) * v[k];
    }
  for (std::size_t j = 0; j < d; ++j) raw.b -= offset[j] * raw.w[j];
  return raw;
}

// The inverse: W_s = s·(Rᵀ·W) (R is orthonormal), b_s = b + o·W.
LinearWeights Scaler::to_scaled(const LinearWeights& raw) const {
  const std::size_t d = raw.w.size();
  LinearWeights scaled{raw.w, raw.b};
  if (rotation.size() > 0)
    for (std::size_t j = 0; j < d; ++j) {
      scaled.w[j] = 0.0;
      for (std::size_t k = 0; k < d; ++k) scaled.w[j] += rotation(k, j) * raw.w[k];
    }
  for (std::size_t j = 0; j < d; ++j) {
    scaled.w[j] *= scale[j];
    scaled.b += offset[j] * raw.w[j];
  }
  return scaled;
}

SymmetricEigen symmetric_eigen(Eigen::MatrixXd a, bool vectors) {
  const Eigen::Index n = a.rows();
  Eigen::MatrixXd v = Eigen::MatrixXd::Identity(vectors ? n : 0, vectors ? n : 0);
  // Each sweep rotates away every off-diagonal entry not yet negligible beside its diagonal,
  // |a_pq| ≤ ε·√|a_pp|·√|a_qq| (the test that keeps the small eigenvalues' relative accuracy);
  // the sweeps converge quadratically. A pair holding a NaN is never rotated, so the sweeps end
  // (64 at the most) and the NaN stays in the result.
  constexpr double eps = std::numeric_limits<double>::epsilon();
  for (int sweep = 0; sweep < 64; ++sweep) {
    bool rotated = false;
    for (Eigen::Index p = 0; p + 1 < n; ++p)
      for (Eigen::Index q = p + 1; q < n; ++q) {
        if (!(std::abs(a(p, q)) >
              eps * std::sqrt(std::abs(a(p, p))) * std::sqrt(std::abs(a(q, q)))))
          continue;
        Eigen::JacobiRotation<double> j;
        j.makeJacobi(a, p, q);  // Jᵀ·[a_pp a_pq; a_pq a_qq]·J is diagonal
        a.applyOnTheLeft(p, q, j.adjoint());
        a.applyOnTheRight(p, q, j);
        a(p, q) = a(q, p) = 0.0;
        if (vectors) v.applyOnTheRight(p, q, j);
        rotated = true;
      }
    if (!rotated) break;
  }
  SymmetricEigen out{a.diagonal(), std::move(v)};
  for (Eigen::Index i = 0; i < n; ++i) {  // ascending, by selection: n is small
    Eigen::Index k = 0, big = 0;
    out.values.tail(n - i).minCoeff(&k);
    std::swap(out.values(i), out.values(i + k));
    if (!vectors) continue;
    out.vectors.col(i).swap(out.vectors.col(i + k));
    out.vectors.col(i).cwiseAbs().maxCoeff(&big);
    if (out.vectors(big, i) < 0.0) out.vectors.col(i) = -out.vectors.col(i);
  }
  return out;
}

namespace {

// argmin |a·θ − y| by QR on A itself, not the normal equations: κ(AᵀA) = κ(A)² would cost digits
// for raw inputs. As ColPivHouseholderQR::solve, with Qᵀy formed one reflector at a time: its
// general path (blocked, for many right-hand sides, with a double GEMM) was 8 KB of the
// WebAssembly module.
Eigen::VectorXd least_squares(const Eigen::MatrixXd& a, Eigen::VectorXd y) {
  const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(a);
  const Eigen::Index r = qr.nonzeroPivots(), rows = a.rows();
  double work = 0.0;
  for (Eigen::Index k = 0; k < r; ++k)
    y.tail(rows - k).applyHouseholderOnTheLeft(qr.matrixQR().col(k).tail(rows - k - 1),
                                               qr.hCoeffs()(k), &work);
  qr.matrixQR().topLeftCorner(r, r).triangularView<Eigen::Upper>().solveInPlace(y.head(r));
  Eigen::VectorXd theta = Eigen::VectorXd::Zero(a.cols());
  for (Eigen::Index i = 0; i < r; ++i) theta(qr.colsPermutation().indices()(i)) = y(i);
  return theta;
}

}  // namespace

Quadratic::Quadratic(const Tensor& x, const Tensor& y) {
  const int n = x.shape().rows, d = x.shape().cols;
  Eigen::MatrixXd a(n, d + 1);
  Eigen::VectorXd target(n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < d; ++j) a(i, j) = x[static_cast<std::size_t>(i) * d + j];
    a(i, d) = 1.0;
    target(i) = y[static_cast<std::size_t>(i)];
  }
  const Eigen::VectorXd theta = least_squares(a, target);
  optimum_.w.assign(theta.data(), theta.data() + d);
  optimum_.b = theta(d);
  loss_star_ = (a.lazyProduct(theta) - target).squaredNorm() / n;
  hessian_ = (2.0 / n) * a.transpose().lazyProduct(a);
  SymmetricEigen eig = symmetric_eigen(hessian_);
  eigenvalues_ = std::move(eig.values);
  theta_star_.assign(theta.data(), theta.data() + theta.size());
  for (int i = 0; i <= d; ++i)
    for (int j = 0; j <= d; ++j) hessian_flat_.push_back(hessian_(i, j));
  eigenvectors_ = std::move(eig.vectors);
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

double Quadratic::inverse_hessian_diagonal(Eigen::Index j) const {
  double sum = 0.0;
  for (Eigen::Index k = 0; k < eigenvalues_.size(); ++k)
    sum += eigenvectors_(j, k) * eigenvectors_(j, k) / eigenvalues_(k);
  return sum;
}

Eigen::VectorXd Quadratic::eigen_coordinates(const LinearWeights& w) const {
  return eigenvectors_.transpose().lazyProduct(to_theta(w) - to_theta(optimum_));
}

double Quadratic::gap(const LinearWeights& w) const {
  const Eigen::VectorXd delta = to_theta(w) - to_theta(optimum_);
  return 0.5 * delta.dot(hessian_.lazyProduct(delta));
}

double Quadratic::relative_gap(const LinearWeights& w) const { return gap(w) / gap_scale_; }

double Quadratic::relative_gap(const double* theta) const {
  const std::size_t p = theta_star_.size();
  double delta[kMaxFeatures + 1];
  if (p > kMaxFeatures + 1)
    return relative_gap(LinearWeights{{theta, theta + p - 1}, theta[p - 1]});
  for (std::size_t i = 0; i < p; ++i) delta[i] = theta[i] - theta_star_[i];
  double g = 0.0;
  for (std::size_t i = 0; i < p; ++i)
    for (std::size_t j = 0; j < p; ++j) g += delta[i] * hessian_flat_[i * p + j] * delta[j];
  return 0.5 * g / gap_scale_;
}

std::optional<long long> Quadratic::predicted_iterations(const LinearWeights& start, double lr,
                                                         double tolerance, long long limit) const {
  // In the eigenbasis, the gap after k steps is ½ Σ λ_i c_i² (1 − lr·λ_i)^(2k).
  const Eigen::VectorXd c = eigen_coordinates(start);
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

// Eigenvalues within this ratio are equal: float32 inputs leave equal ones apart by rounding.
constexpr double kSameEigenvalues = 1.0 + 1e-7;

Quadratic::Tuning Quadratic::best_nesterov() const {
  const double lo = eigenvalues_(0), hi = eigenvalues_(eigenvalues_.size() - 1);
  const double kappa = hi / lo, s = std::sqrt(3.0 * kappa + 1.0);
  if (kappa <= kSameEigenvalues) return {4.0 / (3.0 * hi + lo), 0.0, 0.0};
  return {4.0 / (3.0 * hi + lo), std::max(0.0, (s - 2.0) / (s + 2.0)),
          std::max(0.0, 1.0 - 2.0 / s)};
}

Quadratic::Tuning Quadratic::best_heavy_ball() const {
  const double lo = std::sqrt(eigenvalues_(0)),
               hi = std::sqrt(eigenvalues_(eigenvalues_.size() - 1));
  // (√κ − 1)/(√κ + 1); κ = 1 to float32 rounding of the inputs: no momentum (not β = 1e-19).
  const double rho = hi * hi <= kSameEigenvalues * lo * lo ? 0.0 : (hi - lo) / (hi + lo);
  return {4.0 / ((hi + lo) * (hi + lo)), rho * rho, rho};
}

namespace {

// The first k at which the gap ½ Σ λ_i e_i² reaches `target`, stepping each eigen-direction's
// error e_i and its second state s_i with step(λ_i, e_i, s_i); nullopt past `limit` or diverged.
template <class Step>
std::optional<long long> first_within(const Eigen::VectorXd& lambda, Eigen::VectorXd e,
                                      Eigen::VectorXd s, double target, long long limit,
                                      Step&& step) {
  for (long long k = 0; k <= limit; ++k) {
    double gap = 0.0;
    for (Eigen::Index i = 0; i < e.size(); ++i) gap += 0.5 * lambda(i) * e(i) * e(i);
    if (gap <= target) return k;
    if (!(gap < 1e300)) return std::nullopt;  // diverged
    for (Eigen::Index i = 0; i < e.size(); ++i) step(lambda(i), e(i), s(i));
  }
  return std::nullopt;
}

}  // namespace

std::optional<long long> Quadratic::predicted_heavy_ball_iterations(const LinearWeights& start,
                                                                    double lr, double beta,
                                                                    double tolerance,
                                                                    long long limit) const {
  const Eigen::VectorXd c = eigen_coordinates(start);
  // s: e_{k−1}, e_{−1} = e_0.
  return first_within(eigenvalues_, c, c, tolerance * gap_scale_, limit,
                      [&](double lambda, double& e, double& before) {
                        const double next = (1.0 + beta - lr * lambda) * e - beta * before;
                        before = e;
                        e = next;
                      });
}

std::optional<long long> Quadratic::predicted_nesterov_iterations(const LinearWeights& start,
                                                                  double lr, double beta,
                                                                  double tolerance,
                                                                  long long limit) const {
  const Eigen::VectorXd c = eigen_coordinates(start);
  // s: z, the momentum along the direction, z_0 = 0.
  return first_within(eigenvalues_, c, Eigen::VectorXd::Zero(c.size()), tolerance * gap_scale_,
                      limit, [&](double lambda, double& e, double& z) {
                        z = beta * z + lambda * e;
                        e -= lr * (lambda * e + beta * z);
                      });
}

std::optional<long long> Quadratic::predicted_adam_iterations(const LinearWeights& start, double lr,
                                                              double tolerance,
                                                              long long limit) const {
  const OptimizerOptions keras;  // β₁, β₂ and ε as the trainers use them
  const double target = tolerance * gap_scale_;
  Eigen::VectorXd e = to_theta(start) - to_theta(optimum_);
  Eigen::VectorXd g(e.size()), m = Eigen::VectorXd::Zero(e.size()), v = m;
  double b1t = 1.0, b2t = 1.0;              // β₁ᵗ, β₂ᵗ
  for (long long k = 0; k <= limit; ++k) {  // allocates nothing: up to a million steps
    g.noalias() = hessian_.lazyProduct(e);
    const double gap = 0.5 * e.dot(g);
    if (gap <= target) return k;
    if (!(gap < 1e300)) return std::nullopt;  // diverged
    b1t *= keras.beta1;
    b2t *= keras.beta2;
    m = keras.beta1 * m + (1.0 - keras.beta1) * g;
    v = keras.beta2 * v + (1.0 - keras.beta2) * g.cwiseAbs2();
    // The step as optim.cpp computes it: m/(√v + ε), then times the bias-corrected rate.
    e.array() -= (lr * std::sqrt(1.0 - b2t) / (1.0 - b1t)) *
                 (m.array() / (v.array().sqrt() + keras.epsilon));
  }
  return std::nullopt;
}

RateAnalysis Quadratic::rates(const LinearWeights& start, double lr, double tolerance) const {
  const Eigen::VectorXd c = eigen_coordinates(start);
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
