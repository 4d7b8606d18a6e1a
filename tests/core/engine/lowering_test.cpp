// lowering_test.cpp — tiny traced graphs through the passes to instructions: one plain kernel call
// per Single group, a Dense group's epilogue writing the output, a Loop's steps and sinks, the
// peepholes applied, constants copied and input reads recorded.
#include "looplab/engine/lowering.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "looplab/engine/dead_nodes.hpp"
#include "looplab/engine/detail/code.hpp"

namespace looplab {
namespace {

std::unique_ptr<detail::Code> lowered(const Tracer& t, const std::vector<Value>& outputs,
                                      bool fuse = true) {
  const StepGraph g = remove_dead_nodes(t, outputs);
  const FusionPlan plan = fuse ? plan_fusion(g.ops) : unfused_plan(g.ops.size());
  return lower(t, g, plan, plan_buffers(g.ops, plan), outputs, {});
}

TEST(Lowering, UnfusedEveryOpIsOneKernelCall) {
  Tensor x({4, 1}, 3.0f), y({4, 1}, 1.0f);
  Tracer t;
  const Value xv = t.input(x, "x"), yv = t.input(y, "y");
  const Value loss = t.mse(xv, yv);  // Sub, Square, Mean
  const auto c = lowered(t, {loss}, false);
  ASSERT_EQ(c->instructions.size(), 3u);
  EXPECT_TRUE(c->loops.empty());
  const OpKind kinds[] = {OpKind::Sub, OpKind::Square, OpKind::Mean};
  for (std::size_t i = 0; i < 3; ++i) {
    const detail::Instruction& ins = c->instructions[i];
    EXPECT_EQ(ins.loop, -1);
    EXPECT_EQ(ins.n_epilogue, 0);
    EXPECT_EQ(ins.nodes, (std::vector<int>{static_cast<int>(i)}));
    EXPECT_EQ(ins.op.forward, op_def(kinds[i]).forward);
  }
  EXPECT_EQ(c->instructions[0].op.args.in[0], x.data());  // inputs read the caller's tensors
  EXPECT_EQ(c->instructions[1].op.args.in[0], c->instructions[0].op.args.out);
  EXPECT_EQ(c->instructions[2].op.args.out, c->outputs[0]);
  EXPECT_EQ(c->stats.instructions, 3);
  EXPECT_GT(c->stats.flops_per_step, 0.0);
  c->run(1);
  EXPECT_FLOAT_EQ(c->outputs[0][0], 4.0f);
}

TEST(Lowering, ADenseGroupIsOneInstructionWhoseLastEpilogueWritesTheOutput) {
  Tensor x({100, 4}, 0.5f), w({4, 5}, 0.1f), b({1, 5}, 0.2f);
  Tracer t;
  const Value xv = t.input(x, "x"), wv = t.parameter(w, "W"), bv = t.parameter(b, "b");
  const Value h = t.tanh(t.dense(xv, wv, bv));
  const auto c = lowered(t, {h});
  ASSERT_EQ(c->instructions.size(), 1u);
  const detail::Instruction& ins = c->instructions[0];
  EXPECT_EQ(ins.op.forward, op_def(OpKind::MatMul).forward);
  ASSERT_EQ(ins.n_epilogue, 2);
  EXPECT_EQ(ins.epilogue[0].forward, op_def(OpKind::AddRow).forward);
  EXPECT_EQ(ins.epilogue[1].forward, op_def(OpKind::Tanh).forward);
  EXPECT_EQ(ins.epilogue[1].args.out, c->outputs[0]);
  for (const detail::Kernel& k : {ins.op, ins.epilogue[0], ins.epilogue[1]})
    EXPECT_NE(k.args.in[0], k.args.out) << "never in place";
  c->run(1);
  EXPECT_NEAR(c->outputs[0][0], std::tanh(0.4), 1e-6);
}

TEST(Lowering, ALoopSumsSquaresInItsSinkAndKeepsIntermediatesInTiles) {
  Tensor x({256, 1}, 3.0f), y({256, 1}, 1.0f);
  Tracer t;
  const Value xv = t.input(x, "x"), yv = t.input(y, "y");
  const Value loss = t.mse(xv, yv);
  const auto c = lowered(t, {loss});
  ASSERT_EQ(c->instructions.size(), 1u);
  ASSERT_EQ(c->loops.size(), 1u);
  const detail::Loop& L = c->loops[0];
  EXPECT_EQ(L.n, 256u);
  ASSERT_EQ(L.steps.size(), 2u);  // Sub, then the mean summing squares: the Square is folded
  EXPECT_EQ(L.steps[0].op, OpKind::Sub);
  EXPECT_EQ(L.values[static_cast<std::size_t>(L.steps[0].out)].tile, 0);  // no buffer: a tile
  ASSERT_EQ(L.sinks.size(), 1u);
  EXPECT_TRUE(L.sinks[0].square);
  EXPECT_TRUE(L.sinks[0].mean);
  EXPECT_FALSE(L.sinks[0].dot);
  EXPECT_EQ(L.sinks[0].out, c->outputs[0]);
  EXPECT_EQ(c->input_uses[static_cast<std::size_t>(xv.id)].size(), 1u);  // to rebind x
  c->run(1);
  EXPECT_FLOAT_EQ(c->outputs[0][0], 4.0f);
}

TEST(Lowering, AUniformValueReadOnlyByMulsIsComputedOncePerRun) {
  Tensor a({90, 1}, 2.0f);
  Tracer t;
  const Value x = t.input(a, "x");
  const Value n = t.constant(Tensor({1, 1}, 90.0f));
  const Value g = t.mul(x, t.apply(OpKind::MeanGrad, {n, x}));
  const auto c = lowered(t, {g});
  ASSERT_EQ(c->loops.size(), 1u);
  const detail::Loop& L = c->loops[0];
  ASSERT_EQ(L.steps.size(), 2u);
  EXPECT_TRUE(L.steps[0].once);
  EXPECT_EQ(L.steps[0].op, OpKind::MeanGrad);
  EXPECT_EQ(L.steps[1].op, OpKind::MulScalar);  // the Mul, by the once-per-run value
  EXPECT_EQ(L.steps[1].how[1], LoopOperand::Scalar);
  ASSERT_EQ(c->constants.size(), 1u);  // the program's copy of the constant 90
  c->run(1);
  EXPECT_FLOAT_EQ(c->outputs[0][89], 2.0f);  // x · 90 / 90
}

}  // namespace
}  // namespace looplab
