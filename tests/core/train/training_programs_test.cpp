// training_programs_test.cpp — the engine's passes on real training steps (the train layer's
// models and optimizers through GraphTrainer and the linear trainers): traced equals eager at every
// iteration, a traced or compiled step allocates nothing, fused programs equal unfused ones bit for
// bit, and a fused MLP step's buffers never overlap while live. (The passes on hand-built graphs:
// tests/core/engine/.)
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <new>
#include <vector>

#include "looplab/base/rng.hpp"
#include "looplab/engine/dead_nodes.hpp"
#include "looplab/engine/fusion.hpp"
#include "looplab/engine/memory_plan.hpp"
#include "looplab/engine/program.hpp"
#include "looplab/engine/tracer.hpp"
#include "looplab/train/graph_trainer.hpp"
#include "looplab/train/linear.hpp"
#include "looplab/train/linear_trainer.hpp"
#include "looplab/train/model.hpp"
#include "looplab/train/optim.hpp"

// Counts every allocation in this test binary, so a test can assert that a window allocated
// nothing. Every form of new and delete is replaced, so sanitizers see matching pairs.
static std::atomic<long> g_allocations{0};
static void* counted_malloc(std::size_t n) {
  ++g_allocations;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t n) { return counted_malloc(n); }
void* operator new[](std::size_t n) { return counted_malloc(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  ++g_allocations;
  return std::malloc(n ? n : 1);
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  ++g_allocations;
  return std::malloc(n ? n : 1);
}
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace looplab {
namespace {

CompileOptions fused(bool on) {
  CompileOptions o;
  o.fuse = on;
  return o;
}

// Loss curves of GraphTrainer runs, fused or not, for one model set-up.
std::vector<float> mlp_losses(bool fuse, Activation act, Loss loss, int batch, int unroll,
                              int steps, int rows = -1) {
  Rng init(5);
  Mlp mlp(1, {7}, 1, act, init);
  Adam adam(1e-2, mlp.parameters());
  GraphTrainer t(Mode::Traced, mlp, adam, {batch, 1}, {batch, 1}, unroll, true, loss, fused(fuse));
  Rng data(6);
  Tensor x({batch * unroll, 1}), y({batch * unroll, 1});
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<float>(data.normal());
    y[i] = loss == Loss::Bce ? (data.uniform() < 0.5 ? 0.0f : 1.0f)
                             : static_cast<float>(data.normal());
  }
  std::vector<const float*> xs, ys;
  for (int j = 0; j < unroll; ++j) {
    xs.push_back(x.data() + j * batch);
    ys.push_back(y.data() + j * batch);
  }
  std::vector<float> out, l(static_cast<std::size_t>(unroll));
  for (int s = 0; s < steps; ++s) {
    t.run(xs.data(), ys.data(), l.data(), rows);
    out.insert(out.end(), l.begin(), l.end());
  }
  return out;
}

TEST(Traced, EqualsEagerAtEveryIteration) {
  const LinearData d = sine_trend_data();
  const Tensor xs = Scaler::fit(d.x, ScalingKind::Standardize).transform(d.x);
  for (const Tensor* x : {&d.x, &xs}) {
    const float lr = x == &d.x ? 1e-4f : 0.1f;
    auto eager = make_linear_trainer(Mode::Eager, *x, d.y);
    auto traced = make_linear_trainer(Mode::Traced, *x, d.y);
    for (int i = 0; i < 3000; ++i) {
      const float a = eager->step(lr), b = traced->step(lr);
      ASSERT_NEAR(a, b, 1e-6 * std::abs(a)) << "iteration " << i;
    }
    EXPECT_NEAR(eager->weights().b, traced->weights().b, 1e-5);
  }
}

TEST(Traced, LearningRateIsAProgramInputNotAConstant) {
  const LinearData d = sine_trend_data();
  auto eager = make_linear_trainer(Mode::Eager, d.x, d.y);
  auto traced = make_linear_trainer(Mode::Traced, d.x, d.y);
  for (int i = 0; i < 50; ++i) {
    const float lr = i < 25 ? 1e-4f : 2e-4f;  // changed mid-run: a frozen constant would miss it
    ASSERT_NEAR(eager->step(lr), traced->step(lr), 1e-3f) << i;
  }
  EXPECT_NEAR(eager->weights().w[0], traced->weights().w[0], 1e-6);
}

TEST(Traced, StepsAllocateNothing) {
  const LinearData d = sine_trend_data();
  auto traced = make_linear_trainer(Mode::Traced, d.x, d.y);
  traced->step(1e-4f);
  const long before = g_allocations.load();
  for (int i = 0; i < 1000; ++i) traced->step(1e-4f);
  EXPECT_EQ(g_allocations.load() - before, 0) << "a traced step allocated";

  auto eager =
      make_linear_trainer(Mode::Eager, d.x, d.y);  // the contrast, and a check the counter works
  const long eager_before = g_allocations.load();
  eager->step(1e-4f);
  EXPECT_GT(g_allocations.load() - eager_before, 10);
}

TEST(Traced, FusedMlpStepsAllocateNothing) {
  // Dense groups and fused loops (Adam's updates, the loss and its gradient), with a relaxed batch.
  Rng init(3);
  Mlp mlp(1, {20}, 1, Activation::Tanh, init);
  Adam adam(1e-3, mlp.parameters());
  GraphTrainer t(Mode::Traced, mlp, adam, {100, 1}, {100, 1});
  ASSERT_GT(t.setup_info()["fused_groups"].get<int>(), 0);
  Tensor x({100, 1}, 0.3f), y({100, 1}, -0.2f);
  const float* xs[] = {x.data()};
  const float* ys[] = {y.data()};
  float loss = 0.0f;
  t.run(xs, ys, &loss);
  const long before = g_allocations.load();
  for (int i = 0; i < 200; ++i)
    t.run(xs, ys, &loss, i % 2 ? 100 : 37);  // every other call: 37 rows
  EXPECT_EQ(g_allocations.load() - before, 0) << "a fused traced step allocated";
}

// Compiled mode: the generated step and the kernels it calls allocate nothing either (a new batch
// shape generates code again, like a retrace, so the shape stays fixed here). The network is
// compiled_test.cpp's NewBatchShapesGenerateTheCodeAgain's at 100 rows, so its generated code is
// built once for both (the disk cache).
TEST(Compiled, StepsAllocateNothing) {
  Rng init(3);
  Mlp mlp(1, {8}, 1, Activation::Tanh, init);
  Adam adam(1e-2, mlp.parameters());
  GraphTrainer t(Mode::Compiled, mlp, adam, {100, 1}, {100, 1});
  Tensor x({100, 1}, 0.3f), y({100, 1}, -0.2f), x2({100, 1}, -0.1f);
  const float* xs[] = {x.data()};
  const float* ys[] = {y.data()};
  float loss = 0.0f;
  t.run(xs, ys, &loss);
  const long before = g_allocations.load();
  for (int i = 0; i < 200; ++i) {
    xs[0] = i % 2 ? x.data() : x2.data();  // rebinding the batch: no allocation either
    t.run(xs, ys, &loss);
  }
  EXPECT_EQ(g_allocations.load() - before, 0) << "a compiled step allocated";
}

TEST(FusedPrograms, EqualUnfusedBitForBit) {
  // 1037 rows: two full tiles and a part, and a length that is not a multiple of 8 (the reductions'
  // lanes).
  for (Activation act :
       {Activation::Tanh, Activation::Relu, Activation::Sigmoid, Activation::Linear})
    for (Loss loss : {Loss::Mse, Loss::Bce})
      for (int batch : {5, 64, 1037}) {
        const auto a = mlp_losses(true, act, loss, batch, 1, 30),
                   b = mlp_losses(false, act, loss, batch, 1, 30);
        ASSERT_EQ(a, b) << "activation " << static_cast<int>(act) << ", loss "
                        << static_cast<int>(loss) << ", batch " << batch;
      }
}

TEST(FusedPrograms, EqualUnfusedWhenUnrolledAndWithARelaxedBatch) {
  EXPECT_EQ(mlp_losses(true, Activation::Tanh, Loss::Mse, 80, 3, 20),
            mlp_losses(false, Activation::Tanh, Loss::Mse, 80, 3, 20));
  // Traced for 1037 rows, run on 523: every loop re-derives its length.
  const auto a = mlp_losses(true, Activation::Tanh, Loss::Mse, 1037, 1, 20, 523);
  EXPECT_EQ(a, mlp_losses(false, Activation::Tanh, Loss::Mse, 1037, 1, 20, 523));
  EXPECT_NE(a, mlp_losses(true, Activation::Tanh, Loss::Mse, 1037, 1, 20))
      << "the rows argument had no effect";
}

TEST(FusedPrograms, LinearRegressionIsOneLoopAndMatchesUnfused) {
  const LinearData d = sine_trend_data();
  LinearRegression m1(1), m2(1);
  Sgd s1(1e-4), s2(1e-4);
  GraphTrainer a(Mode::Traced, m1, s1, d.x.shape(), d.y.shape(), 1, true, Loss::Mse, fused(true));
  GraphTrainer b(Mode::Traced, m2, s2, d.x.shape(), d.y.shape(), 1, true, Loss::Mse, fused(false));
  const float* xs[] = {d.x.data()};
  const float* ys[] = {d.y.data()};
  for (int i = 0; i < 500; ++i) {
    float la = 0.0f, lb = 0.0f;
    a.run(xs, ys, &la);
    b.run(xs, ys, &lb);
    ASSERT_EQ(la, lb) << "iteration " << i;
  }
  EXPECT_EQ(m1.weights().w[0], m2.weights().w[0]);
  EXPECT_EQ(m1.weights().b, m2.weights().b);
  const json fa = a.setup_info(), fb = b.setup_info();
  EXPECT_EQ(fa["nodes_before_fusion"], fb["nodes_before_fusion"]);
  EXPECT_EQ(fb["nodes_after_fusion"],
            fb["nodes_before_fusion"]);  // unfused: one instruction per op
  // Forward, loss and all three reductions of the gradient in one loop over the 1000 points; the
  // two SGD updates of [1 x 1] parameters after it, two ops each (too short to be worth a loop).
  EXPECT_EQ(fa["nodes_after_fusion"].get<int>(), 5);
  EXPECT_EQ(fa["fused_groups"].get<int>(), 1);
  EXPECT_LT(fa["arena_bytes"].get<long long>(), fb["arena_bytes"].get<long long>());
}

TEST(Buffers, FusedMlpStepsHaveNoOverlappingLiveBuffers) {
  for (int unroll : {1, 4}) {
    Rng init(5);
    Mlp mlp(1, {16, 8}, 1, Activation::Relu, init);
    Adam adam(1e-3, mlp.parameters());
    adam.reserve_steps(unroll);
    Tracer t;
    Tensor x({100, 1}, 0.5f), y({100, 1}, 1.0f);
    const auto params = mlp.parameter_leaves(t);
    OptimizerState s = adam.leaves(t, params);
    std::vector<Value> roots;
    for (int j = 0; j < unroll; ++j) {
      const Value loss = t.mse(mlp.forward(t, t.input(x, "x"), s.params), t.input(y, "y"));
      s = adam.apply(t, s, gradients(t, loss, s.params), j);
      roots.push_back(loss);
    }
    roots.insert(roots.end(), s.params.begin(), s.params.end());
    const StepGraph g = remove_dead_nodes(t, roots);
    const FusionPlan plan = plan_fusion(g.ops);
    const BufferPlan b = plan_buffers(g.ops, plan);
    EXPECT_FALSE(plan_has_conflict(b.requests, b.memory)) << "unroll " << unroll;
    EXPECT_LT(b.memory.total_bytes, b.unplanned_bytes) << "unroll " << unroll;
    EXPECT_LT(b.requests.size(), g.ops.size()) << "fused intermediates need no buffer";
  }
}

}  // namespace
}  // namespace looplab
