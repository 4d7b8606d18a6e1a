// program_test.cpp — compiled programs end to end: traced == eager, the learning rate as a
// program input, what compile() reports, rebinding inputs, moving a program, zero allocations per
// step (this file counts every allocation of the test binary).
#include "looplab/engine/program.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <new>

#include "looplab/base/rng.hpp"
#include "looplab/engine/eager.hpp"
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

TEST(Traced, CompileStatsCountWhatEachPassDid) {
  Tensor x({64, 1}, 1.0f), y({64, 1}, 2.0f), w({1, 1}, 0.5f), b({1, 1}), lr({1, 1}, 0.1f);
  Tracer t;
  const Value xv = t.input(x, "x"), wv = t.parameter(w, "W"), bv = t.parameter(b, "b");
  const Value pred = t.dense(xv, wv, bv);
  t.square(t.matmul(xv, wv));  // recorded, but nothing needs it
  const Value loss = t.mse(pred, t.input(y, "y"));
  const auto g = gradients(t, loss, {wv, bv});
  const Value lv = t.input(lr, "lr");
  const Program p =
      compile(t, {loss},
              {{wv, t.sub(wv, t.mul_scalar(g[0], lv))}, {bv, t.sub(bv, t.mul_scalar(g[1], lv))}});
  const CompileStats& s = p.stats();
  EXPECT_EQ(s.nodes_traced, t.size());
  EXPECT_LT(s.nodes_live, s.nodes_traced);         // the unused square and its matmul are gone
  EXPECT_LT(s.nodes_before_fusion, s.nodes_live);  // leaves are no op nodes
  EXPECT_LT(s.nodes_after_fusion, s.nodes_before_fusion);
  EXPECT_EQ(s.instructions, s.nodes_after_fusion);
  EXPECT_GT(s.fused_groups, 0);
  EXPECT_LT(s.arena_bytes, s.unplanned_bytes);
  EXPECT_GT(s.flops_per_step, 0.0);
  EXPECT_GE(s.compile_ms, 0.0);
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

TEST(Traced, BindInputSwitchesDataWithoutRetracing) {
  Tensor a({4, 1}, 1.0f), b2({4, 1}, 3.0f), w({1, 1}, 2.0f);
  Tracer t;
  const Value in = t.input(a, "x");
  const Value out = t.mean(t.matmul(in, t.parameter(w, "W")));
  Program p = compile(t, {out}, {});
  p.run();
  EXPECT_FLOAT_EQ(p.output(0), 2.0f);
  p.bind_input(in, b2.data());
  p.run();
  EXPECT_FLOAT_EQ(p.output(0), 6.0f);
}

TEST(Traced, AMovedProgramRunsAndRebindsLikeTheOriginal) {
  Tensor a({100, 1}, 1.0f), b({100, 1}, 3.0f), w({1, 1}, 2.0f);
  Tracer t;
  const Value in = t.input(a, "x"), wv = t.parameter(w, "W");
  const Value out = t.mean(t.square(t.matmul(in, wv)));  // a fused loop
  Program p = compile(t, {out}, {});
  Program moved = std::move(p);
  moved.run();
  EXPECT_FLOAT_EQ(moved.output(0), 4.0f);
  moved.bind_input(in, b.data());
  moved.run();
  EXPECT_FLOAT_EQ(moved.output(0), 36.0f);
  moved.bind_input(in, b.data(), {50, 1});  // a relaxed batch: half the rows
  moved.run();
  EXPECT_FLOAT_EQ(moved.output(0), 36.0f);
}

}  // namespace
}  // namespace looplab
