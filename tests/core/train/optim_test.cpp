// optim_test.cpp — the optimizers and learning-rate schedules (train/optim.hpp): three steps of
// each against hand-derived values, eagerly and traced (one trace following the schedule);
// momentum and Nesterov with β = 0 bit for bit gradient descent in every mode; eager == traced ==
// compiled loss curves for each optimizer on a small MLP; a schedule never retraces; heavy ball at
// the theory's optimal α, β on quadratics with κ = 10, 100 and 10⁴ within ±10% of the predicted
// iteration count; bad hyperparameters refused by name and range.
#include "looplab/train/optim.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "looplab/base/error.hpp"
#include "looplab/base/rng.hpp"
#include "looplab/train/graph_trainer.hpp"
#include "looplab/train/model.hpp"
#include "looplab/train/trace_cache.hpp"

namespace looplab {
namespace {

using OptimizerFactory = std::function<std::unique_ptr<Optimizer>(const std::vector<Tensor*>&)>;

// L(w) = mean((w·x − y)²) with x = 1, y = 0: g = 2w, from w = 1.
class OptimScalar final : public Model {
 public:
  Tensor w{Shape{1, 1}, std::vector<float>{1.0f}};
  std::vector<Tensor*> parameters() override { return {&w}; }
  Value forward(Builder& b, Value x, const std::vector<Value>& p) const override {
    return b.matmul(x, p[0]);
  }
};

// w after each of `want.size()` steps on OptimScalar, in mode (unroll 1), checked against want,
// and the loss before each step against w²; then the same steps as one unrolled traced call.
void expect_scalar_path(const OptimizerFactory& make, const std::vector<double>& want) {
  const float one = 1.0f, zero = 0.0f;
  for (Mode mode : {Mode::Eager, Mode::Traced}) {
    OptimScalar model;
    const std::unique_ptr<Optimizer> opt = make(model.parameters());
    GraphTrainer t(mode, model, *opt, {1, 1}, {1, 1});
    const float* xs[] = {&one};
    const float* ys[] = {&zero};
    double w = 1.0;
    for (std::size_t k = 0; k < want.size(); ++k) {
      float loss = 0.0f;
      t.run(xs, ys, &loss);
      EXPECT_NEAR(loss, w * w, 2e-6) << mode_name(mode) << " step " << k + 1;
      w = want[k];
      EXPECT_NEAR(model.w[0], w, 2e-6) << mode_name(mode) << " step " << k + 1;
    }
  }
  OptimScalar model;
  const std::unique_ptr<Optimizer> opt = make(model.parameters());
  const int k = static_cast<int>(want.size());
  GraphTrainer t(Mode::Traced, model, *opt, {1, 1}, {1, 1}, k);
  const std::vector<const float*> xs(want.size(), &one), ys(want.size(), &zero);
  std::vector<float> losses(want.size());
  t.run(xs.data(), ys.data(), losses.data());
  EXPECT_NEAR(model.w[0], want.back(), 2e-6) << "unrolled " << k;
}

TEST(Optimizers, SgdStepsMatchHandDerivedValues) {
  // w ← w − 0.1·2w = 0.8·w
  expect_scalar_path([](auto) { return std::make_unique<Sgd>(0.1); }, {0.8, 0.64, 0.512});
}

TEST(Optimizers, HeavyBallStepsMatchHandDerivedValues) {
  // z ← 0.9z + 2w, w ← w − 0.1z:  z = 2, 3.4, 3.98;  w = 0.8, 0.46, 0.062
  expect_scalar_path([](auto p) { return std::make_unique<Momentum>(0.1, p, 0.9); },
                     {0.8, 0.46, 0.062});
}

TEST(Optimizers, NesterovStepsMatchHandDerivedValues) {
  // z ← 0.9z + g, w ← w − 0.1(g + 0.9z):  g = 2, 1.24, 0.4448;  z = 2, 3.04, 3.1808;
  // w = 1 − 0.38 = 0.62, 0.62 − 0.3976 = 0.2224, 0.2224 − 0.330752 = −0.108352
  expect_scalar_path([](auto p) { return std::make_unique<Momentum>(0.1, p, 0.9, true); },
                     {0.62, 0.2224, -0.108352});
}

TEST(Optimizers, AdamWithAScheduleMatchesHandDerivedValues) {
  // Adam's update (mlp_test.cpp checks it at a constant rate) at α = 0.1·0.5^(t−1).
  std::vector<double> want;
  double w = 1.0, m = 0.0, v = 0.0;
  for (int t = 1; t <= 3; ++t) {
    const double g = 2.0 * w;
    m = 0.9 * m + 0.1 * g;
    v = 0.999 * v + 0.001 * g * g;
    const double rate = 0.1 * std::pow(0.5, t - 1);
    w -= rate * std::sqrt(1.0 - std::pow(0.999, t)) / (1.0 - std::pow(0.9, t)) * m /
         (std::sqrt(v) + 1e-7);
    want.push_back(w);
  }
  EXPECT_NEAR(want[0], 0.9, 1e-6);  // Adam's first step is α·sign(g)
  expect_scalar_path(
      [](auto p) {
        auto adam = std::make_unique<Adam>(0.1, p);
        adam->set_schedule(LrSchedule::exponential(0.5));
        return adam;
      },
      want);
}

TEST(LrSchedules, RatesMatchTheirFormulas) {
  const LrSchedule constant, step = LrSchedule::step(2, 0.5),
                             exponential = LrSchedule::exponential(0.5),
                             cosine = LrSchedule::cosine(2, 0.1);
  const double want_step[] = {0.1, 0.1, 0.05, 0.05, 0.025};       // 0.1·0.5^⌊(t−1)/2⌋
  const double want_exp[] = {0.1, 0.05, 0.025, 0.0125, 0.00625};  // 0.1·0.5^(t−1)
  // 0.1·(0.1 + 0.9·½(1 + cos(π·min(t − 1, 2)/2))): 0.1, 0.1·(0.1 + 0.45), 0.1·0.1 from then on
  const double want_cos[] = {0.1, 0.055, 0.01, 0.01, 0.01};
  for (int t = 1; t <= 5; ++t) {
    EXPECT_EQ(constant.rate(0.1, t), 0.1);
    EXPECT_NEAR(step.rate(0.1, t), want_step[t - 1], 1e-15) << "step, t = " << t;
    EXPECT_NEAR(exponential.rate(0.1, t), want_exp[t - 1], 1e-15) << "exponential, t = " << t;
    EXPECT_NEAR(cosine.rate(0.1, t), want_cos[t - 1], 1e-15) << "cosine, t = " << t;
  }
  // Adam's rate is the schedule's times its bias correction √(1 − β2^t)/(1 − β1^t).
  Tensor p({1, 1});
  Adam adam(0.1, {&p});
  adam.set_schedule(step);
  EXPECT_NEAR(adam.rate_at(3), 0.05 * std::sqrt(1.0 - std::pow(0.999, 3)) / (1.0 - 0.729), 1e-15);
}

TEST(LrSchedules, SgdStepsFollowEachScheduleInOneTrace) {
  // w ← (1 − 2α_t)·w with α_t from the schedule (the traced program is traced once: α_t is an
  // input). step(2, 0.5): α = 0.1, 0.1, 0.05; exponential(0.5): α = 0.1, 0.05, 0.025;
  // cosine(4): α = 0.1, 0.1·½(1 + cos(π/4)) = 0.0853553, 0.05.
  const auto sgd_with = [](LrSchedule s) {
    return [s](auto) {
      auto sgd = std::make_unique<Sgd>(0.1);
      sgd->set_schedule(s);
      return sgd;
    };
  };
  expect_scalar_path(sgd_with(LrSchedule::step(2, 0.5)), {0.8, 0.64, 0.576});
  expect_scalar_path(sgd_with(LrSchedule::exponential(0.5)), {0.8, 0.72, 0.684});
  expect_scalar_path(sgd_with(LrSchedule::cosine(4)), {0.8, 0.66343146, 0.59708831});
}

TEST(LrSchedules, HeavyBallRateMultipliesTheWholeStep) {
  // z as without a schedule (2, 3.4, 4.32 here), w ← w − α_t·z with α_t = 0.1·0.5^(t−1):
  // w = 1 − 0.2 = 0.8, 0.8 − 0.05·3.4 = 0.63, 0.63 − 0.025·4.32 = 0.522
  expect_scalar_path(
      [](auto p) {
        auto opt = std::make_unique<Momentum>(0.1, p, 0.9);
        opt->set_schedule(LrSchedule::exponential(0.5));
        return opt;
      },
      {0.8, 0.63, 0.522});
}

TEST(LrSchedules, AScheduleNeverRetraces) {
  // Through the trace cache (a traced function as a framework has it): three steps at three rates,
  // one trace, and heavy ball's values from the test above.
  OptimScalar model;
  Momentum opt(0.1, model.parameters(), 0.9);
  opt.set_schedule(LrSchedule::exponential(0.5));
  TraceCache cache(model, opt, {});
  const float one = 1.0f, zero = 0.0f;
  for (double want : {0.8, 0.63, 0.522}) {
    cache.call(&one, &zero, 1, true);
    EXPECT_NEAR(model.w[0], want, 2e-6);
  }
  EXPECT_EQ(cache.traces(), 1);
}

// Batches of 20 from 200 points of y = sin(3x), x ~ N(0, 1), through Dense(8, tanh) → Dense(1).
struct OptimMlpRun {
  std::vector<float> losses;
  std::vector<float> params;  // every parameter after the last step, concatenated
};

OptimMlpRun optim_mlp_run(Mode mode, const OptimizerFactory& make, int steps) {
  Tensor x({200, 1}), y({200, 1});
  Rng rng(5);
  for (std::size_t i = 0; i < 200; ++i) x[i] = static_cast<float>(rng.normal());
  for (std::size_t i = 0; i < 200; ++i) y[i] = static_cast<float>(std::sin(3.0 * x[i]));
  Rng init(9);
  Mlp mlp(1, {8}, 1, Activation::Tanh, init);
  const std::unique_ptr<Optimizer> opt = make(mlp.parameters());
  GraphTrainer t(mode, mlp, *opt, {20, 1}, {20, 1});
  OptimMlpRun out;
  for (int s = 0; s < steps; ++s) {
    const float* xs[] = {x.data() + (s % 10) * 20};
    const float* ys[] = {y.data() + (s % 10) * 20};
    float loss = 0.0f;
    t.run(xs, ys, &loss);
    out.losses.push_back(loss);
  }
  for (Tensor* p : mlp.parameters())
    out.params.insert(out.params.end(), p->data(), p->data() + p->size());
  return out;
}

// The mean loss over the first and over the last 10 steps (one pass over the data each).
double first_epoch(const std::vector<float>& l) {
  double sum = 0.0;
  for (std::size_t i = 0; i < 10; ++i) sum += l[i];
  return sum / 10.0;
}
double last_epoch(const std::vector<float>& l) {
  double sum = 0.0;
  for (std::size_t i = l.size() - 10; i < l.size(); ++i) sum += l[i];
  return sum / 10.0;
}

OptimizerOptions optim_options(const LrSchedule& schedule, double beta = 0.9) {
  OptimizerOptions o;
  o.schedule = schedule;
  o.beta = beta;
  return o;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(Optimizers, MomentumWithBetaZeroIsGradientDescentBitForBit) {
  for (Mode mode : {Mode::Eager, Mode::Traced, Mode::Compiled}) {
    const OptimMlpRun gd = optim_mlp_run(
        mode, [](auto) { return std::make_unique<Sgd>(0.05); }, 100);
    for (bool nesterov : {false, true}) {
      const OptimMlpRun m = optim_mlp_run(
          mode, [&](auto p) { return std::make_unique<Momentum>(0.05, p, 0.0, nesterov); }, 100);
      EXPECT_TRUE(same_bits(m.losses, gd.losses)) << mode_name(mode) << " nesterov " << nesterov;
      EXPECT_TRUE(same_bits(m.params, gd.params)) << mode_name(mode) << " nesterov " << nesterov;
    }
    EXPECT_LT(last_epoch(gd.losses), 0.8 * first_epoch(gd.losses))
        << "training should make progress";
  }
}

TEST(Optimizers, EagerTracedAndCompiledGiveTheSameLossCurve) {
  const std::pair<const char*, OptimizerFactory> cases[] = {
      {"sgd, step schedule",
       [](auto p) {
         return make_optimizer("sgd", 0.2, p, optim_options(LrSchedule::step(50, 0.5)));
       }},
      {"momentum, cosine schedule",
       [](auto p) {
         return make_optimizer("momentum", 0.02, p, optim_options(LrSchedule::cosine(200, 0.1)));
       }},
      {"nesterov, exponential schedule",
       [](auto p) {
         return make_optimizer("nesterov", 0.02, p,
                               optim_options(LrSchedule::exponential(0.995), 0.8));
       }},
      {"adam", [](auto p) { return make_optimizer("adam", 1e-2, p); }}};
  for (const auto& [name, make] : cases) {
    const std::vector<float> eager = optim_mlp_run(Mode::Eager, make, 200).losses;
    for (Mode mode : {Mode::Traced, Mode::Compiled}) {
      const std::vector<float> got = optim_mlp_run(mode, make, 200).losses;
      ASSERT_EQ(got.size(), eager.size());
      for (std::size_t i = 0; i < eager.size(); ++i)
        ASSERT_NEAR(got[i], eager[i], 1e-5 * std::abs(eager[i]) + 1e-7)
            << name << ", " << mode_name(mode) << ", step " << i;
    }
    EXPECT_LT(last_epoch(eager), 0.5 * first_epoch(eager))
        << name << ": training should make progress";
  }
}

// Linear regression without a bias on designed features: X = diag(a_1, a_2, a_3) (3 rows),
// a_i = √(1.5·λ_i), y = X·1, so L(w) = (1/3)‖Xw − y‖² = ½ Σ λ_i (w_i − 1)², H = diag(λ_i) with
// λ = L, √(Lμ), μ for L = 1, μ = 1/κ, and L* = 0 exactly (y is X·1 in float too).
class OptimDiagonal final : public Model {
 public:
  Tensor w{Shape{3, 1}};
  std::vector<Tensor*> parameters() override { return {&w}; }
  Value forward(Builder& b, Value x, const std::vector<Value>& p) const override {
    return b.matmul(x, p[0]);
  }
};

// Heavy ball at the optimal α = 4/(√L + √μ)², β = ((√κ − 1)/(√κ + 1))² (Polyak; Distill's "Why
// Momentum Really Works") on that quadratic, to a relative gap L(w_k)/L(w_0) ≤ tol = 1e-6.
//
// The prediction. Along eigen-direction λ the error e_k = w_k − 1 follows
//   e_{k+1} = (1 + β − αλ)·e_k − β·e_{k−1},   e_{−1} = e_0 (z starts at 0),
// with roots r of r² − (1 + β − αλ)·r + β = 0. At the optimal α, β the discriminant is 0 for
// λ = μ and λ = L: double roots r = +ρ and r = −ρ, ρ = √β = (√κ − 1)/(√κ + 1); between them
// the roots are complex with |r| = ρ. So every direction decays at the rate ρ, but the extreme
// ones are critically damped: a double root gives e_k = (A + B·k)·r^k, and e_0, e_{−1} fix
//   e_k = e_0·(1 + (1 − r)·k)·r^k.
// The gap is ½ Σ λ_i e_i², so, with the middle direction's share (no factor k, and weight λ_mid
// ≪ L) left out,
//   gap_k / gap_0 ≈ [L·(1 + (1 + ρ)k)² + μ·(1 + (1 − ρ)k)²]·ρ^(2k) / (L + √(Lμ) + μ)
// and the predicted count is the first k where that is ≤ tol. The rate alone,
// k ≈ ln(tol)/(2 ln ρ), ignores the factor (1 + (1 + ρ)k)² ≈ (2k)² and predicts about half the
// iterations (11, 35, 346 against 16, 58, 708 here); the test checks that it falls short.
// λ, α and β are computed from the float features as stored.
TEST(HeavyBall, ConvergesInThePredictedIterationsAtTheOptimalRateAndMomentum) {
  const double tol = 1e-6;
  for (double kappa : {10.0, 100.0, 1e4}) {
    SCOPED_TRACE("kappa " + std::to_string(kappa));
    const double designed[] = {1.0, 1.0 / std::sqrt(kappa), 1.0 / kappa};
    Tensor x({3, 3}), y({3, 1});
    double lambda[3];
    for (int i = 0; i < 3; ++i) {
      const float a = static_cast<float>(std::sqrt(1.5 * designed[i]));
      x[static_cast<std::size_t>(i * 3 + i)] = a;
      y[static_cast<std::size_t>(i)] = a;
      lambda[i] = 2.0 / 3.0 * static_cast<double>(a) * static_cast<double>(a);
    }
    const double big = lambda[0], small = lambda[2], k = big / small;
    const double alpha = 4.0 / std::pow(std::sqrt(big) + std::sqrt(small), 2.0);
    const double rho = (std::sqrt(k) - 1.0) / (std::sqrt(k) + 1.0);
    // gap_k / gap_0 by the formula above
    const auto share = [&](long long n) {
      const double dn = static_cast<double>(n);
      return (big * std::pow(1.0 + (1.0 + rho) * dn, 2.0) +
              small * std::pow(1.0 + (1.0 - rho) * dn, 2.0)) *
             std::pow(rho, 2.0 * dn) / (lambda[0] + lambda[1] + lambda[2]);
    };
    long long predicted = 0;
    while (share(predicted) > tol) ++predicted;
    const long long rate_only =
        static_cast<long long>(std::ceil(std::log(tol) / (2 * std::log(rho))));

    OptimDiagonal model;
    Momentum hb(alpha, model.parameters(), rho * rho);
    GraphTrainer t(Mode::Traced, model, hb, {3, 3}, {3, 1});
    const float* xs[] = {x.data()};
    const float* ys[] = {y.data()};
    float loss0 = 0.0f, loss = 0.0f;
    t.run(xs, ys, &loss0);
    long long measured = 1;
    for (; measured < 100 * predicted; ++measured) {
      t.run(xs, ys, &loss);  // the loss at w_measured, before this step's update
      if (loss <= tol * loss0) break;
    }
    std::cout << "heavy ball, kappa " << kappa << ": " << measured << " iterations, predicted "
              << predicted << " (the rate alone: " << rate_only << ")\n";
    EXPECT_NEAR(static_cast<double>(measured), static_cast<double>(predicted), 0.1 * predicted);
    EXPECT_LT(rate_only, measured);
  }
}

TEST(Optimizers, BadHyperparametersAreRefusedByNameAndRange) {
  Tensor p({1, 1});
  const auto message_of = [](const std::function<void()>& f) -> std::string {
    try {
      f();
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "(no error)";
  };
  EXPECT_EQ(message_of([&] { Momentum(0.1, {&p}, 1.0); }),
            "momentum beta: must be a number in [0, 1), got 1");
  EXPECT_EQ(message_of([&] { Momentum(0.1, {&p}, -0.5, true); }),
            "nesterov beta: must be a number in [0, 1), got -0.5");
  EXPECT_EQ(message_of([&] { Adam(0.1, {&p}, 1.5); }),
            "adam beta1: must be a number in [0, 1), got 1.5");
  EXPECT_EQ(message_of([&] { Adam(0.1, {&p}, 0.9, 1.0); }),
            "adam beta2: must be a number in [0, 1), got 1");
  EXPECT_EQ(message_of([&] { Adam(0.1, {&p}, 0.9, 0.999, 0.0); }),
            "adam epsilon: must be a finite number > 0, got 0");
  EXPECT_EQ(message_of([&] { Sgd(-1.0); }), "lr: must be a finite number >= 0, got -1");
  EXPECT_EQ(message_of([&] { Sgd(std::nan("")); }).rfind("lr: must be a finite number >= 0", 0),
            0u);
  EXPECT_EQ(message_of([] { LrSchedule::step(0, 0.5); }),
            "step schedule every: must be an integer >= 1, got 0");
  EXPECT_EQ(message_of([] { LrSchedule::step(10, 0.0); }),
            "step schedule gamma: must be a number in (0, 1], got 0");
  EXPECT_EQ(message_of([] { LrSchedule::exponential(1.5); }),
            "exponential schedule gamma: must be a number in (0, 1], got 1.5");
  EXPECT_EQ(message_of([] { LrSchedule::cosine(0); }),
            "cosine schedule steps: must be an integer >= 1, got 0");
  EXPECT_EQ(message_of([] { LrSchedule::cosine(100, 2.0); }),
            "cosine schedule floor: must be a number in [0, 1], got 2");
  EXPECT_EQ(message_of([&] { make_optimizer("momentum", 0.1, {&p}, optim_options({}, 1.0)); }),
            "momentum beta: must be a number in [0, 1), got 1");
  // "nesterov" is momentum with the look-ahead, its β checked under its own name (this replaces a
  // dynamic_cast to Momentum: the wasm build has no RTTI).
  EXPECT_EQ(message_of([&] { make_optimizer("nesterov", 0.1, {&p}, optim_options({}, 1.0)); }),
            "nesterov beta: must be a number in [0, 1), got 1");
  try {
    make_optimizer("rmsprop", 0.1, {&p});
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("sgd | momentum | nesterov | adam"), std::string::npos)
        << e.what();
  }
}

TEST(Optimizers, MakeOptimizerKnowsEveryNameAndKeepsTheSchedule) {
  Tensor p({1, 1});
  for (const char* name : {"sgd", "momentum", "nesterov", "adam"}) {
    const auto opt = make_optimizer(name, 0.1, {&p}, optim_options(LrSchedule::exponential(0.5)));
    const double correction =
        std::string(name) == "adam" ? std::sqrt(1.0 - 0.999 * 0.999) / (1.0 - 0.9 * 0.9) : 1.0;
    EXPECT_NEAR(opt->rate_at(2), 0.05 * correction, 1e-15) << name;
    EXPECT_EQ(opt->slot_tensors().size(), std::string(name) == "sgd"    ? 0u
                                          : std::string(name) == "adam" ? 2u
                                                                        : 1u)
        << name;
  }
}

}  // namespace
}  // namespace looplab
