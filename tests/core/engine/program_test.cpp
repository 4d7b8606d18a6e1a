// program_test.cpp — compiled programs of hand-built graphs: what compile() reports, rebinding
// inputs, moving a program. (On real training steps, traced == eager and zero allocations per
// step: tests/core/train/training_programs_test.cpp.)
#include "looplab/engine/program.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "looplab/base/rng.hpp"
#include "looplab/engine/eager.hpp"
#include "looplab/engine/tracer.hpp"

namespace looplab {
namespace {

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
