// mlp_test.cpp — the MLP and Adam: Adam's first steps against hand-worked values, unrolled ==
// traced == eager == reference loss curves. (The execution-modes experiment:
// tests/core/experiments/execution_modes_test.cpp.)
#include <gtest/gtest.h>

#include <cmath>

#include "looplab/train/graph_trainer.hpp"
#include "looplab/train/mlp_reference.hpp"

namespace looplab {
namespace {

// L(w) = mean((w·x − y)²) with x = 1, y = 0: g = 2w. Adam with lr 0.1 from w = 1.
TEST(Adam, FirstStepsMatchHandWorkedValues) {
  class Scalar final : public Model {
   public:
    Tensor w{Shape{1, 1}, std::vector<float>{1.0f}};
    std::vector<Tensor*> parameters() override { return {&w}; }
    Value forward(Builder& b, Value x, const std::vector<Value>& p) const override {
      return b.matmul(x, p[0]);
    }
  };
  for (Mode mode : {Mode::Eager, Mode::Traced}) {
    Scalar model;
    Adam adam(0.1, model.parameters());
    GraphTrainer t(mode, model, adam, {1, 1}, {1, 1});
    const float one = 1.0f, zero = 0.0f;
    const float* xs[] = {&one};
    const float* ys[] = {&zero};
    double w = 1.0, m = 0.0, v = 0.0;
    for (int step = 1; step <= 3; ++step) {
      float loss = 0.0f;
      t.run(xs, ys, &loss);
      EXPECT_NEAR(loss, w * w, 1e-5);  // float32 constants: 1 − 0.999f is 1.3e-5 off 0.001
      const double g = 2.0 * w;
      m = 0.9 * m + 0.1 * g;
      v = 0.999 * v + 0.001 * g * g;
      const double lr_t =
          0.1 * std::sqrt(1.0 - std::pow(0.999, step)) / (1.0 - std::pow(0.9, step));
      w -= lr_t * m / (std::sqrt(v) + 1e-7);
      EXPECT_NEAR(model.w[0], w, 1e-5) << mode_name(mode) << " step " << step;
      if (step == 1) {
        EXPECT_NEAR(w, 0.9, 1e-5);  // Adam's first step is lr·sign(g)
      }
    }
  }
}

struct MlpData {
  Tensor x{{200, 1}}, y{{200, 1}};
  MlpData() {
    Rng rng(5);
    for (std::size_t i = 0; i < 200; ++i) x[i] = static_cast<float>(rng.normal());
    for (std::size_t i = 0; i < 200; ++i) y[i] = static_cast<float>(std::sin(3.0 * x[i]));
  }
};

// Runs `steps` steps over batches of 20 and returns the losses.
std::vector<float> losses_of(Mode mode, int unroll, Activation act, int steps) {
  MlpData d;
  Rng init(9);
  Mlp mlp(1, {8}, 1, act, init);
  std::vector<float> out;
  if (mode == Mode::Reference) {
    ReferenceMlp ref(mlp, 20, 1e-2);
    for (int s = 0; s < steps; ++s)
      out.push_back(ref.step(d.x.data() + (s % 10) * 20, d.y.data() + (s % 10) * 20));
    return out;
  }
  Adam adam(1e-2, mlp.parameters());
  GraphTrainer t(mode, mlp, adam, {20, 1}, {20, 1}, unroll);
  for (int s = 0; s < steps; s += unroll) {
    std::vector<const float*> xs, ys;
    for (int j = 0; j < unroll; ++j) {
      xs.push_back(d.x.data() + ((s + j) % 10) * 20);
      ys.push_back(d.y.data() + ((s + j) % 10) * 20);
    }
    std::vector<float> l(static_cast<std::size_t>(unroll));
    t.run(xs.data(), ys.data(), l.data());
    out.insert(out.end(), l.begin(), l.end());
  }
  return out;
}

TEST(Mlp, AllModesGiveTheSameLossCurve) {
  for (Activation act : {Activation::Tanh, Activation::Relu, Activation::Sigmoid}) {
    const std::vector<float> ref = losses_of(Mode::Reference, 1, act, 1000);
    for (auto [mode, unroll] :
         {std::pair{Mode::Eager, 1}, std::pair{Mode::Traced, 1}, std::pair{Mode::Traced, 5}}) {
      const std::vector<float> got = losses_of(mode, unroll, act, 1000);
      ASSERT_EQ(got.size(), ref.size());
      for (std::size_t i = 0; i < ref.size(); ++i)
        ASSERT_NEAR(got[i], ref[i], 1e-5 * std::abs(ref[i]) + 1e-7)
            << mode_name(mode) << " unroll " << unroll << " activation " << static_cast<int>(act)
            << " step " << i;
    }
    EXPECT_LT(ref.back(), 0.5f * ref.front()) << "training should make progress";
  }
}

// The reference loop works on blocks of 8 rows and pads the last; here 3 features (a sum over
// features in the hidden layer and in dW1), 5 hidden units and batches of 13 (one full block and
// one padded one) against the traced program.
TEST(Mlp, ReferenceWithSeveralFeaturesAndAPartialBlockMatchesTraced) {
  constexpr int kD = 3, kB = 13;
  Tensor x({10 * kB, kD}), y({10 * kB, 1});
  Rng rng(11);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(rng.normal());
  for (std::size_t r = 0; r < y.size(); ++r)
    y[r] = std::sin(x[r * kD]) + 0.5f * x[r * kD + 1] * x[r * kD + 2];
  Tensor labels({10 * kB, 1});  // binary cross-entropy's targets: y > 0
  for (std::size_t r = 0; r < y.size(); ++r) labels[r] = y[r] > 0.0f ? 1.0f : 0.0f;
  for (Activation act : {Activation::Tanh, Activation::Relu, Activation::Sigmoid})
    for (Loss loss : {Loss::Mse, Loss::Bce}) {
      Rng init(4);
      Mlp mlp(kD, {5}, 1, act, init);
      ReferenceMlp ref(mlp, kB, 1e-2, loss);
      Adam adam(1e-2, mlp.parameters());
      GraphTrainer traced(Mode::Traced, mlp, adam, {kB, kD}, {kB, 1}, 1, true, loss);
      for (int s = 0; s < 300; ++s) {
        const float* xs[] = {x.data() + (s % 10) * kB * kD};
        const float* ys[] = {(loss == Loss::Bce ? labels : y).data() + (s % 10) * kB};
        float got = 0.0f;
        traced.run(xs, ys, &got);
        const float want = ref.step(xs[0], ys[0]);
        ASSERT_NEAR(got, want, 1e-5 * std::abs(want) + 1e-7)
            << "activation " << static_cast<int>(act) << " loss " << static_cast<int>(loss)
            << " step " << s;
      }
    }
}

// The reference's float32 per-lane gradient sums at the largest batch the experiments allow
// (10,000 rows: 1,250 per lane) stay within 1e-5 of traced, whose kernels sum in double.
TEST(Mlp, ReferenceAtTheLargestBatchMatchesTraced) {
  constexpr int kB = 10000;
  Tensor x({kB, 1}), y({kB, 1});
  Rng rng(12);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(rng.normal());
  for (std::size_t i = 0; i < y.size(); ++i) y[i] = std::sin(2.0f * x[i]);
  Rng init(5);
  Mlp mlp(1, {20}, 1, Activation::Tanh, init);
  ReferenceMlp ref(mlp, kB, 1e-2);
  Adam adam(1e-2, mlp.parameters());
  GraphTrainer traced(Mode::Traced, mlp, adam, {kB, 1}, {kB, 1});
  for (int s = 0; s < 200; ++s) {
    const float* xs[] = {x.data()};
    const float* ys[] = {y.data()};
    float got = 0.0f;
    traced.run(xs, ys, &got);
    const float want = ref.step(xs[0], ys[0]);
    ASSERT_NEAR(got, want, 1e-5 * std::abs(want)) << "step " << s;
  }
}

TEST(Mlp, GlorotInitIsDeterministicAndBounded) {
  Rng a(3), b(3);
  Mlp m1(4, {16}, 1, Activation::Tanh, a), m2(4, {16}, 1, Activation::Tanh, b);
  const double limit = std::sqrt(6.0 / (4 + 16));
  for (std::size_t i = 0; i < m1.tensors()[0].size(); ++i) {
    EXPECT_EQ(m1.tensors()[0][i], m2.tensors()[0][i]);
    EXPECT_LE(std::abs(m1.tensors()[0][i]), limit);
  }
  for (std::size_t i = 0; i < m1.tensors()[1].size(); ++i) EXPECT_EQ(m1.tensors()[1][i], 0.0f);
}

}  // namespace
}  // namespace looplab

namespace looplab {
namespace {

TEST(Mlp, CrossEntropyModesAgreeAndLearn) {
  Tensor x({200, 1}), y({200, 1});
  Rng rng(8);
  for (std::size_t i = 0; i < 200; ++i) {
    x[i] = static_cast<float>(rng.normal());
    y[i] = x[i] + 0.3f * static_cast<float>(rng.normal()) > 0.0f ? 1.0f : 0.0f;  // learnable labels
  }
  std::vector<float> curves[3];
  for (int m = 0; m < 3; ++m) {
    Rng init(9);
    Mlp mlp(1, {8}, 1, Activation::Tanh, init);
    if (m == 2) {
      ReferenceMlp ref(mlp, 20, 1e-2, Loss::Bce);
      for (int s = 0; s < 500; ++s)
        curves[m].push_back(ref.step(x.data() + (s % 10) * 20, y.data() + (s % 10) * 20));
      continue;
    }
    Adam adam(1e-2, mlp.parameters());
    GraphTrainer t(m == 0 ? Mode::Eager : Mode::Traced, mlp, adam, {20, 1}, {20, 1}, 1, true,
                   Loss::Bce);
    for (int s = 0; s < 500; ++s) {
      const float* xs[] = {x.data() + (s % 10) * 20};
      const float* ys[] = {y.data() + (s % 10) * 20};
      float l;
      t.run(xs, ys, &l);
      curves[m].push_back(l);
    }
  }
  EXPECT_NEAR(curves[0][0], std::log(2.0), 0.2);  // an untrained classifier: about ln 2
  for (std::size_t i = 0; i < curves[2].size(); ++i) {
    ASSERT_NEAR(curves[0][i], curves[2][i], 1e-5 * std::abs(curves[2][i]) + 1e-6)
        << "eager vs reference, step " << i;
    ASSERT_NEAR(curves[1][i], curves[2][i], 1e-5 * std::abs(curves[2][i]) + 1e-6)
        << "traced vs reference, step " << i;
  }
  EXPECT_LT(curves[2].back(), 0.4f) << "the labels are learnable";
}

}  // namespace
}  // namespace looplab
