// fusion_test.cpp — the fusion pass on synthetic graphs (what fuses, what must not, the roles
// read from the op table, the peepholes) and inputs of folded ops rebound. (Fused training steps
// against unfused ones, bit for bit: tests/core/train/training_programs_test.cpp.)
#include "looplab/engine/fusion.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "looplab/base/rng.hpp"
#include "looplab/engine/program.hpp"
#include "looplab/engine/tracer.hpp"

namespace looplab {
namespace {

// A synthetic graph: nodes are appended in topological order; inputs are node indices or -1 (a
// leaf).
struct G {
  std::vector<OpNode> nodes;
  int op(OpKind k, Shape out, int a = -1, Shape sa = {}, int b = -1, Shape sb = {},
         OpAttrs attrs = {}) {
    OpNode n;
    n.op = k;
    n.in = {a, b};
    n.in_shape = {sa, sb};
    n.shape = out;
    n.attrs = attrs;
    nodes.push_back(n);
    return static_cast<int>(nodes.size()) - 1;
  }
  void root(int k) { nodes[static_cast<std::size_t>(k)].root = true; }
};

const Shape kVec{256, 1}, kOne{1, 1};  // loops form from 64 elements on

TEST(Fusion, ShortVectorsStayOneInstructionPerOp) {
  G g;
  const Shape tiny{20, 1};
  const int a = g.op(OpKind::Sub, tiny, -1, tiny, -1, tiny);
  const int b = g.op(OpKind::Square, tiny, a, tiny);
  g.root(b);
  const FusionPlan p = plan_fusion(g.nodes);
  EXPECT_EQ(p.groups.size(), 2u);
  EXPECT_EQ(p.fused_groups, 0);
}

TEST(Fusion, AnElementwiseChainAndItsReductionBecomeOneLoop) {
  G g;  // mean((x − y)²): only the mean needs a buffer
  const int d = g.op(OpKind::Sub, kVec, -1, kVec, -1, kVec);
  const int sq = g.op(OpKind::Square, kVec, d, kVec);
  const int m = g.op(OpKind::Mean, kOne, sq, kVec);
  g.root(m);
  const FusionPlan p = plan_fusion(g.nodes);
  ASSERT_EQ(p.groups.size(), 1u);
  EXPECT_EQ(p.groups[0].kind, GroupKind::Loop);
  EXPECT_EQ(p.fused_groups, 1);
  EXPECT_FALSE(p.materialized[static_cast<std::size_t>(d)]);
  EXPECT_FALSE(p.materialized[static_cast<std::size_t>(sq)]);
  EXPECT_TRUE(p.materialized[static_cast<std::size_t>(m)]);
}

TEST(Fusion, ScalarBroadcastOpsJoinTheLoop) {
  G g;  // ((x·w + b) − y) · lr + 0.5, with w, b, lr [1 x 1]
  OpAttrs c;
  c.scale = 0.5f;
  const int xw = g.op(OpKind::MatMul, kVec, -1, kVec, -1, kOne);
  const int pb = g.op(OpKind::AddRow, kVec, xw, kVec, -1, kOne);
  const int r = g.op(OpKind::Sub, kVec, pb, kVec, -1, kVec);
  const int s = g.op(OpKind::MulScalar, kVec, r, kVec, -1, kOne);
  const int out = g.op(OpKind::AddConst, kVec, s, kVec, -1, {}, c);
  g.root(out);
  const FusionPlan p = plan_fusion(g.nodes);
  ASSERT_EQ(p.groups.size(), 1u);
  EXPECT_EQ(p.groups[0].members.size(), 5u);
  EXPECT_EQ(std::count(p.materialized.begin(), p.materialized.end(), true), 1);
}

TEST(Fusion, IntermediatesReadOnlyInsideTheLoopNeedNoBuffer) {
  G g;  // a = x − y is read twice, both times inside the loop
  const int a = g.op(OpKind::Sub, kVec, -1, kVec, -1, kVec);
  const int b = g.op(OpKind::Square, kVec, a, kVec);
  const int c = g.op(OpKind::Scale, kVec, a, kVec);
  const int d = g.op(OpKind::Mul, kVec, b, kVec, c, kVec);
  g.root(d);
  const FusionPlan p = plan_fusion(g.nodes);
  ASSERT_EQ(p.groups.size(), 1u);
  EXPECT_FALSE(p.materialized[static_cast<std::size_t>(a)]);
  EXPECT_TRUE(p.materialized[static_cast<std::size_t>(d)]);
}

TEST(Fusion, AMultiConsumerIntermediateReadOutsideKeepsItsBuffer) {
  G g;
  const Shape wide{256, 3};
  const int a = g.op(OpKind::Add, wide, -1, wide, -1, wide);
  const int t = g.op(OpKind::Tanh, wide, a, wide);
  const int s = g.op(OpKind::SumRows, {1, 3}, a, wide);  // three columns: not a loop sink
  g.root(t);
  g.root(s);
  const FusionPlan p = plan_fusion(g.nodes);
  ASSERT_EQ(p.groups.size(), 2u);
  EXPECT_TRUE(p.materialized[static_cast<std::size_t>(a)]);
  EXPECT_EQ(p.group_of[static_cast<std::size_t>(a)], p.group_of[static_cast<std::size_t>(t)]);
  EXPECT_LT(p.group_of[static_cast<std::size_t>(a)], p.group_of[static_cast<std::size_t>(s)]);
  EXPECT_EQ(p.groups[static_cast<std::size_t>(p.group_of[static_cast<std::size_t>(s)])].kind,
            GroupKind::Single);
}

TEST(Fusion, ProgramOutputsInsideAChainKeepTheirBuffers) {
  G g;
  const int a = g.op(OpKind::Sub, kVec, -1, kVec, -1, kVec);
  const int b = g.op(OpKind::Square, kVec, a, kVec);
  const int m = g.op(OpKind::Mean, kOne, b, kVec);
  g.root(b);  // e.g. a value written back into a parameter
  g.root(m);
  const FusionPlan p = plan_fusion(g.nodes);
  ASSERT_EQ(p.groups.size(), 1u);
  EXPECT_FALSE(p.materialized[static_cast<std::size_t>(a)]);
  EXPECT_TRUE(p.materialized[static_cast<std::size_t>(b)]);
}

TEST(Fusion, AReductionIsNotReadInsideItsOwnLoop) {
  G g;  // x − mean(x): the mean exists only after the loop, and the lengths differ anyway
  const int sq = g.op(OpKind::Square, kVec, -1, kVec);
  const int m = g.op(OpKind::Mean, kOne, sq, kVec);
  const int f = g.op(OpKind::Fill, kVec, m, kOne, sq, kVec);
  const int d = g.op(OpKind::Sub, kVec, sq, kVec, f, kVec);
  g.root(d);
  const FusionPlan p = plan_fusion(g.nodes);
  EXPECT_NE(p.group_of[static_cast<std::size_t>(m)], p.group_of[static_cast<std::size_t>(f)]);
  EXPECT_LT(p.group_of[static_cast<std::size_t>(m)], p.group_of[static_cast<std::size_t>(f)]);
  EXPECT_TRUE(p.materialized[static_cast<std::size_t>(sq)]);  // read by the second loop
}

TEST(Fusion, ShapeChangesEndALoop) {
  G g;
  const Shape other{128, 1};
  const int a = g.op(OpKind::Square, kVec, -1, kVec);
  const int s = g.op(OpKind::Sum, kOne, a, kVec);
  const int b = g.op(OpKind::MulScalar, other, -1, other, s, kOne);  // another length
  const int c = g.op(OpKind::Tanh, other, b, other);
  g.root(c);
  const FusionPlan p = plan_fusion(g.nodes);
  ASSERT_EQ(p.groups.size(), 2u);
  EXPECT_EQ(p.group_of[static_cast<std::size_t>(b)], p.group_of[static_cast<std::size_t>(c)]);
  EXPECT_NE(p.group_of[static_cast<std::size_t>(a)], p.group_of[static_cast<std::size_t>(b)]);
}

TEST(Fusion, MatMulBiasActivationIsOneDenseGroup) {
  G g;
  const Shape x{256, 4}, w{4, 5}, h{256, 5}, b{1, 5};
  const int mm = g.op(OpKind::MatMul, h, -1, x, -1, w);
  const int ab = g.op(OpKind::AddRow, h, mm, h, -1, b);
  const int t = g.op(OpKind::Tanh, h, ab, h);
  const int use = g.op(OpKind::TanhGrad, h, t, h, -1, h);
  g.root(use);
  const FusionPlan p = plan_fusion(g.nodes);
  const FusionGroup& dense =
      p.groups[static_cast<std::size_t>(p.group_of[static_cast<std::size_t>(mm)])];
  EXPECT_EQ(dense.kind, GroupKind::Dense);
  EXPECT_EQ(dense.members, (std::vector<int>{mm, ab, t}));
  EXPECT_FALSE(p.materialized[static_cast<std::size_t>(mm)]);
  EXPECT_FALSE(p.materialized[static_cast<std::size_t>(ab)]);
  EXPECT_TRUE(p.materialized[static_cast<std::size_t>(t)]);
}

TEST(Fusion, DenseStopsWhereAnIntermediateHasAnotherReader) {
  G g;  // relu's gradient reads the pre-activation: the activation must not swallow it
  const Shape x{256, 4}, w{4, 5}, h{256, 5}, b{1, 5};
  const int mm = g.op(OpKind::MatMul, h, -1, x, -1, w);
  const int ab = g.op(OpKind::AddRow, h, mm, h, -1, b);
  const int r = g.op(OpKind::Relu, h, ab, h);
  const int rg = g.op(OpKind::ReluGrad, h, ab, h, r, h);
  g.root(rg);
  const FusionPlan p = plan_fusion(g.nodes);
  EXPECT_EQ(p.group_of[static_cast<std::size_t>(mm)], p.group_of[static_cast<std::size_t>(ab)]);
  EXPECT_NE(p.group_of[static_cast<std::size_t>(ab)], p.group_of[static_cast<std::size_t>(r)]);
  EXPECT_TRUE(p.materialized[static_cast<std::size_t>(ab)]);

  G g2;  // a matmul that is a program output keeps its own value
  const int mm2 = g2.op(OpKind::MatMul, h, -1, x, -1, w);
  const int ab2 = g2.op(OpKind::AddRow, h, mm2, h, -1, b);
  g2.root(mm2);
  g2.root(ab2);
  const FusionPlan p2 = plan_fusion(g2.nodes);
  EXPECT_EQ(p2.groups.size(), 2u);
  EXPECT_EQ(p2.fused_groups, 0);
}

TEST(Fusion, AGroupReadFromOutsideTakesNoLaterMembers) {
  G g;
  const int a = g.op(OpKind::Square, kVec, -1, kVec);
  const int outside =
      g.op(OpKind::MatMul, {256, 3}, a, kVec, -1, {1, 3});  // reads a: a's loop must run first
  const int late = g.op(OpKind::Add, kVec, a, kVec, -1, kVec);
  g.root(outside);
  g.root(late);
  const FusionPlan p = plan_fusion(g.nodes);
  EXPECT_NE(p.group_of[static_cast<std::size_t>(a)], p.group_of[static_cast<std::size_t>(late)]);
  EXPECT_LT(p.group_of[static_cast<std::size_t>(a)], p.group_of[static_cast<std::size_t>(outside)]);
}

// --- roles from the op table -------------------------------------------------------------------

TEST(Fusion, LoopRolesComeFromTheOpTable) {
  const auto role = [](OpKind op, Shape out, Shape a, Shape b = {}) {
    OpNode n;
    n.op = op;
    n.shape = out;
    n.in_shape = {a, b};
    return loop_role(n);
  };
  using O = LoopOperand;
  const LoopRole add = role(OpKind::Add, kVec, kVec, kVec);
  EXPECT_TRUE(add.fusible);
  EXPECT_FALSE(add.sink);
  EXPECT_EQ(add.operand, (std::array<O, kMaxArity>{O::Vector, O::Vector}));
  // A Row operand is a Scalar when it is [1 x 1]; a wider row keeps the op out of loops.
  EXPECT_EQ(role(OpKind::AddRow, kVec, kVec, kOne).operand[1], O::Scalar);
  EXPECT_FALSE(role(OpKind::AddRow, {256, 3}, {256, 3}, {1, 3}).fusible);
  EXPECT_EQ(role(OpKind::RepeatRows, kVec, kOne, kVec).operand,
            (std::array<O, kMaxArity>{O::Scalar, O::ShapeOnly}));
  // A Reduction is a sink when it sums everything into [1 x 1].
  EXPECT_TRUE(role(OpKind::Mean, kOne, {256, 3}).sink);
  EXPECT_TRUE(role(OpKind::SumRows, kOne, kVec).sink);
  EXPECT_FALSE(role(OpKind::SumRows, {1, 3}, {256, 3}).fusible);
  // A Contraction: a column times a scalar is elementwise, a column-by-column product a dot sink.
  EXPECT_EQ(role(OpKind::MatMul, kVec, kVec, kOne).operand[1], O::Scalar);
  OpNode dot;
  dot.op = OpKind::MatMul;
  dot.shape = kOne;
  dot.in_shape = {kVec, kVec};
  dot.attrs.transpose_a = true;
  EXPECT_TRUE(loop_role(dot).sink);
  EXPECT_TRUE(loop_role(dot).dot);
  EXPECT_FALSE(role(OpKind::MatMul, {256, 5}, {256, 4}, {4, 5}).fusible);
  // Every op: an Opaque one never fuses, and no resolved role keeps a Row operand.
  for (int k = 0; k < kOpCount; ++k) {
    const LoopRole r = role(static_cast<OpKind>(k), kVec, kVec, kOne);
    if (op_def(static_cast<OpKind>(k)).fusion.kind == FusionKind::Opaque) {
      EXPECT_FALSE(r.fusible);
    }
    for (O o : r.operand) EXPECT_NE(o, O::Row) << op_name(static_cast<OpKind>(k));
  }
}

TEST(Fusion, UnfusedPlanIsOneMaterializedGroupPerNode) {
  const FusionPlan p = unfused_plan(3);
  ASSERT_EQ(p.groups.size(), 3u);
  EXPECT_EQ(p.group_of, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(p.materialized, (std::vector<bool>{true, true, true}));
  EXPECT_EQ(p.peephole, (std::vector<Peephole>(3, Peephole::None)));
  EXPECT_EQ(p.fused_groups, 0);
}

// --- peepholes ---------------------------------------------------------------------------------

TEST(Fusion, ASquareReadOnlyByASumIsFoldedIntoIt) {
  G g;
  const int d = g.op(OpKind::Sub, kVec, -1, kVec, -1, kVec);
  const int sq = g.op(OpKind::Square, kVec, d, kVec);
  const int m = g.op(OpKind::Mean, kOne, sq, kVec);
  g.root(m);
  const FusionPlan p = plan_fusion(g.nodes);
  EXPECT_EQ(p.peephole[static_cast<std::size_t>(sq)], Peephole::FoldedSquare);
  EXPECT_EQ(p.peephole[static_cast<std::size_t>(d)], Peephole::None);

  G kept;  // the Square is a root as well: it needs its buffer, so it stays a step
  const int d2 = kept.op(OpKind::Sub, kVec, -1, kVec, -1, kVec);
  const int sq2 = kept.op(OpKind::Square, kVec, d2, kVec);
  kept.root(kept.op(OpKind::Sum, kOne, sq2, kVec));
  kept.root(sq2);
  EXPECT_EQ(plan_fusion(kept.nodes).peephole[static_cast<std::size_t>(sq2)], Peephole::None);
}

TEST(Fusion, AMeanGradReadOnlyByMulsIsComputedOnce) {
  G g;
  const int x = g.op(OpKind::Tanh, kVec, -1, kVec);
  const int mg = g.op(OpKind::MeanGrad, kVec, -1, kOne, x, kVec);
  const int a = g.op(OpKind::Mul, kVec, mg, kVec, x, kVec);
  const int b = g.op(OpKind::Mul, kVec, x, kVec, mg, kVec);
  g.root(a);
  g.root(b);
  const FusionPlan p = plan_fusion(g.nodes);
  ASSERT_EQ(p.groups.size(), 1u);
  EXPECT_EQ(p.peephole[static_cast<std::size_t>(mg)], Peephole::Once);
  EXPECT_EQ(p.peephole[static_cast<std::size_t>(a)], Peephole::ByOnce);
  EXPECT_EQ(p.peephole[static_cast<std::size_t>(b)], Peephole::ByOnce);

  G other;  // also read by an Add: it must exist at every element
  const int x2 = other.op(OpKind::Tanh, kVec, -1, kVec);
  const int mg2 = other.op(OpKind::MeanGrad, kVec, -1, kOne, x2, kVec);
  other.root(other.op(OpKind::Mul, kVec, mg2, kVec, x2, kVec));
  other.root(other.op(OpKind::Add, kVec, mg2, kVec, x2, kVec));
  const FusionPlan q = plan_fusion(other.nodes);
  for (Peephole h : q.peephole) EXPECT_EQ(h, Peephole::None);
}

// Random graphs of vectors, scalars and a non-fusible op: every plan must be a valid schedule.
TEST(Fusion, RandomGraphsGiveValidSchedules) {
  Rng rng(11);
  for (int trial = 0; trial < 300; ++trial) {
    G g;
    std::vector<int> vecs{-1}, scalars{-1};  // -1: a leaf
    auto pick = [&](const std::vector<int>& from) {
      return from[static_cast<std::size_t>(rng.uniform() * static_cast<double>(from.size()))];
    };
    const int n = 2 + static_cast<int>(rng.uniform() * 30);
    for (int k = 0; k < n; ++k) {
      const int kind = static_cast<int>(rng.uniform() * 7);
      if (kind == 0) vecs.push_back(g.op(OpKind::Add, kVec, pick(vecs), kVec, pick(vecs), kVec));
      if (kind == 1) vecs.push_back(g.op(OpKind::Tanh, kVec, pick(vecs), kVec));
      if (kind == 2)
        vecs.push_back(g.op(OpKind::MulScalar, kVec, pick(vecs), kVec, pick(scalars), kOne));
      if (kind == 3) scalars.push_back(g.op(OpKind::Mean, kOne, pick(vecs), kVec));
      if (kind == 4)
        scalars.push_back(g.op(OpKind::MatMul, kOne, pick(vecs), kVec, pick(vecs), kVec, [] {
          OpAttrs a;
          a.transpose_a = true;
          return a;
        }()));
      if (kind == 5)
        vecs.push_back(g.op(OpKind::MeanGrad, kVec, pick(scalars), kOne, pick(vecs), kVec));
      if (kind == 6) {  // not fusible: a column times a row; it reads a vector and so closes that
                        // vector's loop
        const int wide = g.op(OpKind::MatMul, {256, 2}, pick(vecs), kVec, -1, {1, 2});
        vecs.push_back(g.op(OpKind::Sub, kVec, pick(vecs), kVec, pick(vecs), kVec));
        g.root(wide);
      }
      if (rng.uniform() < 0.15) g.root(static_cast<int>(g.nodes.size()) - 1);
    }
    g.root(static_cast<int>(g.nodes.size()) - 1);
    const FusionPlan p = plan_fusion(g.nodes);
    std::vector<int> seen(g.nodes.size(), 0);
    for (const FusionGroup& grp : p.groups)
      for (int m : grp.members) ++seen[static_cast<std::size_t>(m)];
    for (std::size_t k = 0; k < g.nodes.size(); ++k) {
      ASSERT_EQ(seen[k], 1) << "trial " << trial << ": node " << k << " is in one group";
      const OpNode& v = g.nodes[k];
      if (v.root) {
        EXPECT_TRUE(p.materialized[k]) << "trial " << trial << ": a root has a buffer";
      }
      const LoopRole role = loop_role(v);
      for (int i = 0; i < kMaxArity; ++i) {
        const int src = v.in[static_cast<std::size_t>(i)];
        if (src < 0) continue;
        const int gs = p.group_of[static_cast<std::size_t>(src)], gv = p.group_of[k];
        const bool shape_only =
            role.operand[static_cast<std::size_t>(i)] == LoopOperand::ShapeOnly;  // no data read
        if (gs == gv) {
          EXPECT_FALSE(loop_role(g.nodes[static_cast<std::size_t>(src)]).sink && !shape_only)
              << "trial " << trial << ": a sink is read inside its loop";
          continue;
        }
        if (shape_only) continue;
        EXPECT_LT(gs, gv) << "trial " << trial << ": node " << src
                          << " must be computed before node " << k;
        EXPECT_TRUE(p.materialized[static_cast<std::size_t>(src)])
            << "trial " << trial << ": read across groups";
      }
    }
  }
}

// --- fused programs against unfused ones -------------------------------------------------------

TEST(FusedPrograms, InputsReadByFoldedOpsAreStillRebound) {
  // mean(x²) sums squares inside the sink, and MeanGrad · x becomes MulScalar: x is read by both.
  Tensor a({90, 1}, 2.0f), b({90, 1}, 3.0f);
  Tracer t;
  const Value x = t.input(a, "x");
  const Value m = t.mean(t.square(x));
  const Value g = t.mul(t.apply(OpKind::MeanGrad, {t.constant(Tensor({1, 1}, 90.0f)), x}), x);
  Program p = compile(t, {m, g}, {});
  EXPECT_LT(p.stats().nodes_after_fusion, p.stats().nodes_before_fusion);
  p.run();
  EXPECT_FLOAT_EQ(p.output(0), 4.0f);
  EXPECT_FLOAT_EQ(p.output_data(1)[89], 2.0f);
  p.bind_input(x, b.data());
  p.run();
  EXPECT_FLOAT_EQ(p.output(0), 9.0f);
  EXPECT_FLOAT_EQ(p.output_data(1)[89], 3.0f);
}

}  // namespace
}  // namespace looplab
