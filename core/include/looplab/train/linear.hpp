// looplab/train/linear.hpp — linear regression: the data, the model, scaling and the analysis.
//
// The model y ≈ x·W + b is written once against the Builder (LinearRegression) and trained by
// plain gradient descent on the mean squared error L = (1/n) Σ (x_i·W + b − y_i)².
// Because L is quadratic, everything about gradient descent on it can be worked out exactly:
//   Hessian        H = (2/n) Aᵀ A,  A = [X 1]      (constant)
//   closed form    θ* = argmin L,   L* = L(θ*)
//   gap            L(θ) − L* = ½ (θ − θ*)ᵀ H (θ − θ*)
//   one GD step    θ − θ* ← (I − lr·H)(θ − θ*): each eigen-direction shrinks by |1 − lr·λ_i|,
//   so it converges iff lr < 2/λ_max, and the slowest direction sets the pace: κ = λ_max/λ_min.
//
//   LinearData d = sine_trend_data();           // x = arange(0, 100, 0.1), y = x + 20 sin(x/10) +
//   15 Quadratic q(d.x, d.y);                      // closed form, eigenvalues, gap() Scaler s =
//   Scaler::fit(d.x, ScalingKind::Standardize); Tensor xs = s.transform(d.x);               // (x −
//   mean) / std LinearWeights raw = s.to_raw(scaled_weights);  // W = W_s/std, b = b_s −
//   mean·W_s/std
#pragma once

#include <Eigen/Core>
#include <optional>
#include <vector>

#include "looplab/base/tensor.hpp"
#include "looplab/data/xy_data.hpp"
#include "looplab/engine/builder.hpp"
#include "looplab/train/model.hpp"

namespace looplab {

// Weights in double, for analysis and for reporting.
struct LinearWeights {
  std::vector<double> w;
  double b = 0.0;
};

// y ≈ x·W + b with W [d x 1] and b [1 x 1], both starting at zero as in the seed.
class LinearRegression final : public Model {
 public:
  explicit LinearRegression(int features);
  std::vector<Tensor*> parameters() override { return {&w_, &b_}; }
  Value forward(Builder& b, Value x, const std::vector<Value>& params) const override {
    return b.dense(x, params[0], params[1]);
  }
  LinearWeights weights() const;
  void read_theta(double* theta) const;  // (W_1..W_d, b)

 private:
  Tensor w_, b_;
};

// A symmetric matrix's eigenvalues (ascending) and unit eigenvectors (columns, in that order; each
// with its largest component positive; 0×0 when asked for the values alone).
struct SymmetricEigen {
  Eigen::VectorXd values;
  Eigen::MatrixXd vectors;
};
// By cyclic Jacobi rotations (Eigen's JacobiRotation, the 2×2 step of its JacobiSVD), for the
// small matrices of the analysis (at most kMaxFeatures + 1 = 17 rows, xy_data.hpp): not Eigen's
// SelfAdjointEigenSolver, whose tridiagonalization and QL were 27 KB of the WebAssembly module
// (docs/size.md). As accurate (linear_test.cpp checks both against Eigen's solver, in double and
// long double); as fast up to 17 rows (0.01 ms at 9), but slower past that: 1 ms at 64, 300 ms
// at 256 where Eigen's takes 3 ms (native, -O3).
// Eigenvalues that are (nearly) equal leave their eigenvectors to the algorithm: any orthonormal
// basis of their space is right, and this one need not be Eigen's. Reads the whole matrix.
SymmetricEigen symmetric_eigen(Eigen::MatrixXd a, bool vectors = true);  // false: values only

// The preprocessing ladder, each rung removing more of what makes the valley narrow: centring
// (x − mean: the tilt between W and b), min-max ((x − min)/(max − min): the units, not centred),
// standardizing ((x − mean)/std: both), whitening (PCA: also the correlation between features).
enum class ScalingKind { Standardize, MinMax, Centre, Whiten };

// x' = ((x − offset)·R) / scale, R = I except for whitening: standardize uses (mean, population
// std), min-max (min, max − min), centring (mean, 1), whitening (mean, R the eigenvectors of x's
// population covariance, scale the square roots of its eigenvalues: x' has identity covariance).
// A constant column (an eigenvalue 0) keeps scale 1.
struct Scaler {
  std::vector<double> offset, scale;
  Eigen::MatrixXd rotation;  // d x d, whitening only (empty: the identity)
  static Scaler fit(const Tensor& x, ScalingKind kind);
  Tensor transform(const Tensor& x) const;
  LinearWeights to_raw(const LinearWeights& scaled) const;
  LinearWeights to_scaled(const LinearWeights& raw) const;
};

// Why gradient descent with rate lr needs the iterations it needs, in the eigenbasis of H
// (Quadratic::rates). Direction i keeps a factor |1 − lr·λ_i| of its error per step, and so a
// factor (1 − lr·λ_i)² of its share of the gap. The slowest direction, ρ = max_i |1 − lr·λ_i|,
// sets the pace: once the faster ones have died out, the gap is about gap_slow·ρ^(2k), so
//   k ≈ ln(gap_slow / tol) / (−2 ln ρ)
// where gap_slow is the part of the starting gap along the slowest direction(s). For κ = 1 every
// direction is the slowest and gap_slow is the whole starting gap. No fixed rate does better than
// lr = 2/(λmin + λmax), where ρ = (κ − 1)/(κ + 1).
struct RateAnalysis {
  double lambda_min = 0.0, lambda_max = 0.0, kappa = 1.0;
  double rho = 0.0;        // max_i |1 − lr·λ_i|
  double gap0 = 0.0;       // relative gap at the start
  double gap0_slow = 0.0;  // its part along the direction(s) whose factor is ρ
  // ⌈ln(gap0_slow/tol) / (−2 ln ρ)⌉; nullopt when ρ ≥ 1 (the run diverges or stalls).
  std::optional<long long> estimate;
  double best_lr = 0.0;                    // 2/(λmin + λmax)
  double best_rho = 0.0;                   // (κ − 1)/(κ + 1), the rate at best_lr
  std::optional<long long> best_estimate;  // the estimate at best_lr
};

// Exact facts about gradient descent on L(θ) = (1/n)|Aθ − y|², θ = (W, b), all in double.
class Quadratic {
 public:
  Quadratic(const Tensor& x, const Tensor& y);

  const LinearWeights& optimum() const { return optimum_; }
  double loss_at_optimum() const { return loss_star_; }
  const Eigen::VectorXd& eigenvalues() const { return eigenvalues_; }    // ascending
  const Eigen::MatrixXd& eigenvectors() const { return eigenvectors_; }  // columns, in that order
  // c = Vᵀ(θ − θ*): how far w lies from the optimum along each eigen-direction, in that order.
  Eigen::VectorXd eigen_coordinates(const LinearWeights& w) const;
  double condition_number() const {
    return eigenvalues_(eigenvalues_.size() - 1) / eigenvalues_(0);
  }
  double largest_stable_lr() const { return 2.0 / eigenvalues_(eigenvalues_.size() - 1); }

  double gap(const LinearWeights& w) const;           // L(θ) − L*, exact
  double relative_gap(const LinearWeights& w) const;  // gap / L* (see gap_scale())
  // The same for θ = (W_1..W_d, b) in a plain array; allocates nothing (called every step).
  double relative_gap(const double* theta) const;
  double gap_scale() const { return gap_scale_; }  // L*, floored for exact fits
  // The first iteration k at which exact-arithmetic gradient descent from `start` with rate lr has
  // relative gap ≤ tolerance; nullopt when it never gets there (lr ≥ 2/λ_max) or k > limit.
  std::optional<long long> predicted_iterations(const LinearWeights& start, double lr,
                                                double tolerance,
                                                long long limit = 1'000'000'000'000LL) const;
  // ρ, the slow direction's share of the gap and the estimate above, for rate lr from `start`.
  RateAnalysis rates(const LinearWeights& start, double lr, double tolerance) const;
  // Heavy ball (Momentum in optim.hpp) at its optimal rate and momentum for this quadratic,
  // α = 4/(√λmax + √λmin)² and β = ((√κ − 1)/(√κ + 1))², where every direction shrinks at
  // ρ = √β = (√κ − 1)/(√κ + 1) per step (GD's best: (κ − 1)/(κ + 1)).
  struct Tuning {
    double lr = 0.0, beta = 0.0, rho = 0.0;
  };
  Tuning best_heavy_ball() const;
  // Nesterov at the rate and momentum of Lessard, Recht and Packard (2016, "Analysis and design of
  // optimization algorithms via integral quadratic constraints"): α = 4/(3λmax + λmin),
  // β = (√(3κ + 1) − 2)/(√(3κ + 1) + 2), the error shrinking at ρ = 1 − 2/√(3κ + 1) per step.
  Tuning best_nesterov() const;
  // The first iteration k at which exact-arithmetic heavy ball (z ← β·z + g, θ ← θ − α·z, z = 0 at
  // the start) from `start` has relative gap ≤ tolerance; nullopt when k would pass limit. Each
  // eigen-direction's error follows e_{k+1} = (1 + β − αλ)·e_k − β·e_{k−1} with e_{−1} = e_0,
  // stepped in double: the gap need not fall monotonically (complex roots oscillate), so no
  // bisection as for GD. At the optimal α, β the extreme directions have a double root ±ρ, so
  // e_k = e_0·(1 + (1 ∓ ρ)·k)·(±ρ)^k: about twice the iterations ρ alone, ln(tol)/(2 ln ρ), says.
  std::optional<long long> predicted_heavy_ball_iterations(const LinearWeights& start, double lr,
                                                           double beta, double tolerance,
                                                           long long limit = 100'000'000) const;
  // The same for Nesterov momentum as optim.hpp steps it (z ← β·z + g, θ ← θ − α·(g + β·z)): per
  // eigen-direction z_{k+1} = β·z_k + λ·e_k, e_{k+1} = e_k − α·(λ·e_k + β·z_{k+1}), z_0 = 0.
  std::optional<long long> predicted_nesterov_iterations(const LinearWeights& start, double lr,
                                                         double beta, double tolerance,
                                                         long long limit = 100'000'000) const;
  // The same for Adam as optim.hpp steps it (Keras's update: m ← β₁m + (1 − β₁)g, v ← β₂v +
  // (1 − β₂)g², θ ← θ − lr·√(1 − β₂ᵗ)/(1 − β₁ᵗ)·m/(√v + ε)), in double on θ itself: Adam works
  // per parameter, not per eigen-direction, so g = H(θ − θ*) is formed every step.
  std::optional<long long> predicted_adam_iterations(const LinearWeights& start, double lr,
                                                     double tolerance,
                                                     long long limit = 100'000'000) const;
  const Eigen::MatrixXd& hessian() const { return hessian_; }
  // (H⁻¹)_jj from H's eigenpairs, Σ_k v_jk² / λ_k: no LU for a matrix of at most 17 rows
  // (kMaxFeatures + 1) whose eigenvectors are known (and none of its code in the module).
  double inverse_hessian_diagonal(Eigen::Index j) const;

 private:
  Eigen::VectorXd to_theta(const LinearWeights& w) const;

  LinearWeights optimum_;
  Eigen::MatrixXd hessian_;
  Eigen::VectorXd eigenvalues_;
  Eigen::MatrixXd eigenvectors_;
  std::vector<double> theta_star_, hessian_flat_;  // for the allocation-free relative_gap
  double loss_star_ = 0.0, gap_scale_ = 1.0;
};

}  // namespace looplab
