// ladder_test.cpp — several features and the preprocessing ladder (issue 36) against exact theory:
// κ of every rung against eigenvalues computed here with a general (non-symmetric) solver, heavy
// ball and Nesterov in float32 against their exact recurrences, whitening's one-step convergence,
// and eager == traced == compiled with three features.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <cmath>
#include <iostream>

#include "looplab/data/xy_data.hpp"
#include "looplab/train/graph_trainer.hpp"
#include "looplab/train/linear.hpp"
#include "looplab/train/linear_trainer.hpp"
#include "looplab/train/optim.hpp"

namespace looplab {
namespace {

constexpr ScalingKind kRungs[] = {ScalingKind::Centre, ScalingKind::MinMax,
                                  ScalingKind::Standardize, ScalingKind::Whiten};

LinearWeights zeros(int d) { return {std::vector<double>(static_cast<std::size_t>(d), 0.0), 0.0}; }

// κ of H = (2/n)·AᵀA, A = [x 1], built element by element and solved as a general matrix.
double independent_kappa(const Tensor& x) {
  const int n = x.shape().rows, d = x.shape().cols;
  Eigen::MatrixXd h = Eigen::MatrixXd::Zero(d + 1, d + 1);
  for (int i = 0; i < n; ++i)
    for (int r = 0; r <= d; ++r)
      for (int c = 0; c <= d; ++c) {
        const double a = r < d ? x[static_cast<std::size_t>(i) * d + r] : 1.0;
        const double b = c < d ? x[static_cast<std::size_t>(i) * d + c] : 1.0;
        h(r, c) += 2.0 * a * b / n;
      }
  const Eigen::VectorXd lambda = Eigen::EigenSolver<Eigen::MatrixXd>(h).eigenvalues().real();
  return lambda.maxCoeff() / lambda.minCoeff();
}

// The ladder on the seed's x, x², x³ and on two features with correlation r: every rung's κ as the
// analysis reports it, against the independent one.
TEST(Ladder, ConditionNumberOfEveryRungMatchesItsEigenvalues) {
  const LinearData seed = sine_trend_data();
  const Tensor cubic = polynomial_features(seed.x, 3);
  struct Case {
    const char* name;
    Tensor x;
    Tensor y;
  };
  const LinearData r9 = correlated_data(1000, 0.9, 1.0, 0.0, 1.0, 7);
  const LinearData r99 = correlated_data(1000, 0.99, 1.0, 0.0, 1.0, 7);
  const Case cases[] = {
      {"x, x², x³", cubic, seed.y}, {"r = 0.9", r9.x, r9.y}, {"r = 0.99", r99.x, r99.y}};
  for (const Case& c : cases) {
    const double raw = Quadratic(c.x, c.y).condition_number();
    EXPECT_NEAR(raw / independent_kappa(c.x), 1.0, 1e-3) << c.name << ", raw";
    for (ScalingKind kind : kRungs) {
      const Tensor xs = Scaler::fit(c.x, kind).transform(c.x);
      const double kappa = Quadratic(xs, c.y).condition_number();
      std::cout << c.name << ": κ " << static_cast<int>(kind) << " = " << kappa << " (raw " << raw
                << ")\n";
      EXPECT_NEAR(kappa / independent_kappa(xs), 1.0, 1e-6) << c.name;
      // On the seed's powers every rung helps; min-max of centred features can hurt (it shifts
      // them to [0, 1], off centre): r = 0.9 goes from 19 raw to 548.
      if (&c == &cases[0]) EXPECT_LT(kappa, raw) << c.name;
    }
    // Whitening leaves nothing to condition: κ = 1 (to float32 rounding of x').
    const Tensor white = Scaler::fit(c.x, ScalingKind::Whiten).transform(c.x);
    EXPECT_NEAR(Quadratic(white, c.y).condition_number(), 1.0, 1e-3) << c.name;
  }
  // Standardized correlated features keep κ = (1 + r)/(1 − r) of their sample correlation.
  for (const double r : {0.9, 0.99}) {
    const LinearData d = correlated_data(20000, r, 1.0, 0.0, 1.0, 3);
    const Tensor xs = Scaler::fit(d.x, ScalingKind::Standardize).transform(d.x);
    double sxy = 0.0;
    for (int i = 0; i < 20000; ++i) sxy += xs[2 * static_cast<std::size_t>(i)] * xs[2 * i + 1];
    const double sample_r = sxy / 20000.0;
    EXPECT_NEAR(Quadratic(xs, d.y).condition_number(), (1.0 + sample_r) / (1.0 - sample_r),
                1e-3 * (1.0 + sample_r) / (1.0 - sample_r))
        << r;
  }
}

// Features with covariance diag(κ, 1), centred: H = 2·diag(κ, 1, 1), so κ(H) = κ.
LinearData with_condition(double kappa) {
  LinearData d = correlated_data(2000, 0.3, 1.0, 2.0, 0.5, 11);
  d.x = Scaler::fit(d.x, ScalingKind::Whiten).transform(d.x);
  for (int i = 0; i < 2000; ++i)
    d.x[2 * static_cast<std::size_t>(i)] *= static_cast<float>(std::sqrt(kappa));
  return d;
}

// Iterations of a float32 traced optimizer from θ = 0 until the relative gap is ≤ tol.
long long measured(const LinearData& d, const Quadratic& q, const std::string& name,
                   const Quadratic::Tuning& t, long long limit) {
  LinearRegression model(d.x.shape().cols);
  OptimizerOptions o;
  o.beta = t.beta;
  const auto opt = make_optimizer(name, t.lr, model.parameters(), o);
  GraphTrainer trainer(Mode::Traced, model, *opt, d.x.shape(), d.y.shape());
  const float* xs[] = {d.x.data()};
  const float* ys[] = {d.y.data()};
  double theta[3];
  for (long long k = 0; k < limit; ++k) {
    model.read_theta(theta);
    if (q.relative_gap(theta) <= 1e-6) return k;
    float loss = 0.0f;
    trainer.run(xs, ys, &loss);
  }
  return -1;
}

TEST(Ladder, MomentumCountsMeetTheirExactRecurrences) {
  for (const double kappa : {10.0, 100.0, 1e4, 2580.0}) {
    const LinearData d = with_condition(kappa);
    const Quadratic q(d.x, d.y);
    EXPECT_NEAR(q.condition_number() / kappa, 1.0, 1e-3);
    for (const char* name : {"momentum", "nesterov"}) {
      const bool nag = std::string(name) == "nesterov";
      const Quadratic::Tuning t = nag ? q.best_nesterov() : q.best_heavy_ball();
      const auto predicted = nag ? q.predicted_nesterov_iterations(zeros(2), t.lr, t.beta, 1e-6)
                                 : q.predicted_heavy_ball_iterations(zeros(2), t.lr, t.beta, 1e-6);
      ASSERT_TRUE(predicted.has_value()) << name << " κ " << kappa;
      const long long got = measured(d, q, name, t, 10 * *predicted + 100);
      std::cout << name << " at κ " << kappa << ": " << got << " measured, " << *predicted
                << " predicted\n";
      EXPECT_NEAR(static_cast<double>(got), static_cast<double>(*predicted),
                  0.1 * static_cast<double>(*predicted) + 1.0)
          << name << " κ " << kappa;
    }
  }
}

// The recurrence is Nesterov's as optim.hpp steps it: with β = 0 it is gradient descent's count.
TEST(Ladder, NesterovWithoutMomentumIsGradientDescentsPrediction) {
  const LinearData d = with_condition(50.0);
  const Quadratic q(d.x, d.y);
  const double lr = 1.0 / q.eigenvalues().maxCoeff();
  EXPECT_EQ(q.predicted_nesterov_iterations(zeros(2), lr, 0.0, 1e-6),
            q.predicted_iterations(zeros(2), lr, 1e-6));
}

TEST(Ladder, WhitenedXConvergesInOneGradientStep) {
  const LinearData seed = sine_trend_data();
  const Tensor cubic = polynomial_features(seed.x, 3);
  const Tensor white = Scaler::fit(cubic, ScalingKind::Whiten).transform(cubic);
  const Quadratic q(white, seed.y);
  // H = 2·I: lr = 1/λ = 0.5 lands on the optimum.
  EXPECT_EQ(q.predicted_iterations(zeros(3), 0.5, 1e-6), 1);
  const auto t = make_linear_trainer(Mode::Traced, white, seed.y);
  EXPECT_GT(q.relative_gap(t->weights()), 1e-6);
  t->step(0.5f);
  EXPECT_LE(q.relative_gap(t->weights()), 1e-6);
}

// Whitening's weights map back to raw units: the same predictions, so the same closed form.
TEST(Ladder, WhitenedWeightsMapBackToTheRawOptimum) {
  const LinearData d = correlated_data(500, 0.95, 2.0, -1.0, 0.3, 5);
  const Scaler s = Scaler::fit(d.x, ScalingKind::Whiten);
  const Quadratic raw(d.x, d.y), white(s.transform(d.x), d.y);
  const LinearWeights back = s.to_raw(white.optimum());
  for (std::size_t j = 0; j < 2; ++j) EXPECT_NEAR(back.w[j], raw.optimum().w[j], 1e-4);
  EXPECT_NEAR(back.b, raw.optimum().b, 1e-4);
  const LinearWeights there = s.to_scaled(raw.optimum());
  for (std::size_t j = 0; j < 2; ++j) EXPECT_NEAR(there.w[j], white.optimum().w[j], 1e-4);
  EXPECT_NEAR(there.b, white.optimum().b, 1e-4);
}

TEST(Ladder, EveryModeAgreesOnThreeFeatures) {
  const LinearData seed = sine_trend_data();
  const Tensor cubic = polynomial_features(seed.x, 3);
  const Tensor xs = Scaler::fit(cubic, ScalingKind::Standardize).transform(cubic);
  const auto eager = make_linear_trainer(Mode::Eager, xs, seed.y);
  const auto traced = make_linear_trainer(Mode::Traced, xs, seed.y);
  const auto compiled = make_linear_trainer(Mode::Compiled, xs, seed.y);
  const auto reference = make_linear_trainer(Mode::Reference, xs, seed.y);
  for (int k = 0; k < 50; ++k) {
    const float le = eager->step(0.1f), lt = traced->step(0.1f), lc = compiled->step(0.1f);
    const float lr = reference->step(0.1f);
    ASSERT_EQ(le, lt) << "step " << k;
    ASSERT_NEAR(lc, lt, 1e-5 * std::abs(lt)) << "step " << k;
    ASSERT_NEAR(lr, lt, 1e-4 * std::abs(lt)) << "step " << k;  // its own order of float sums
  }
  const LinearWeights we = eager->weights(), wt = traced->weights(), wc = compiled->weights();
  ASSERT_EQ(we.w.size(), 3u);
  for (std::size_t j = 0; j < 3; ++j) {
    EXPECT_EQ(we.w[j], wt.w[j]);
    EXPECT_NEAR(wc.w[j], wt.w[j], 1e-5 * std::max(1.0, std::abs(wt.w[j])));
    EXPECT_NEAR(reference->weights().w[j], wt.w[j], 1e-4 * std::max(1.0, std::abs(wt.w[j])));
  }
}

TEST(Ladder, PolynomialFeaturesArePowersOfX) {
  const Tensor x(Shape{2, 1}, {2.0f, -3.0f});
  const Tensor p = polynomial_features(x, 3);
  ASSERT_EQ(p.shape().cols, 3);
  EXPECT_EQ(p[0], 2.0f);
  EXPECT_EQ(p[1], 4.0f);
  EXPECT_EQ(p[2], 8.0f);
  EXPECT_EQ(p[5], -27.0f);
}

}  // namespace
}  // namespace looplab
