// dead_nodes_test.cpp — dead-node removal on small traced graphs: what nobody reads goes, the
// roots and everything they read stay, and the live op nodes are numbered in node order.
#include "looplab/engine/dead_nodes.hpp"

#include <gtest/gtest.h>

#include "looplab/base/rng.hpp"
#include "looplab/engine/tracer.hpp"

namespace looplab {
namespace {

TEST(DeadNodes, ANodeNobodyReadsIsRemovedAndTheOutputIsKept) {
  Tensor x({8, 1}, 1.0f), w({1, 1}, 0.5f);
  Tracer t;
  const Value xv = t.input(x, "x"), wv = t.parameter(w, "W");
  const Value a = t.matmul(xv, wv);
  const Value unused = t.square(a);  // recorded, read by nobody
  const Value out = t.mean(a);
  const std::vector<bool> live = live_nodes(t, {out});
  EXPECT_FALSE(live[static_cast<std::size_t>(unused.id)]);
  for (Value v : {xv, wv, a, out}) EXPECT_TRUE(live[static_cast<std::size_t>(v.id)]) << v.id;

  const StepGraph g = remove_dead_nodes(t, {out});
  EXPECT_EQ(g.live_nodes, 4);  // two leaves, two ops
  ASSERT_EQ(g.ops.size(), 2u);
  EXPECT_EQ(g.node_id, (std::vector<int>{a.id, out.id}));
  EXPECT_EQ(g.op_of[static_cast<std::size_t>(unused.id)], -1);
  EXPECT_EQ(g.op_of[static_cast<std::size_t>(xv.id)], -1);  // leaves are no op nodes
  EXPECT_EQ(g.ops[0].op, OpKind::MatMul);
  EXPECT_EQ(g.ops[0].in, (std::array<int, kMaxArity>{-1, -1}));  // both inputs are leaves
  EXPECT_EQ(g.ops[0].in_shape[0], (Shape{8, 1}));
  EXPECT_EQ(g.ops[1].in[0], 0);  // the mean reads op 0
  EXPECT_FALSE(g.ops[0].root);
  EXPECT_TRUE(g.ops[1].root);
}

TEST(DeadNodes, UpdateValuesAreRootsAndGradientsNobodyUsesGo) {
  Tensor x({8, 1}, 1.0f), y({8, 1}, 2.0f), w({1, 1}, 0.5f), b({1, 1});
  Tracer t;
  const Value xv = t.input(x, "x"), wv = t.parameter(w, "W"), bv = t.parameter(b, "b");
  const Value loss = t.mse(t.dense(xv, wv, bv), t.input(y, "y"));
  const std::vector<Value> g = gradients(t, loss, {wv, bv});
  const Value new_w = t.sub(wv, t.scale(g[0], 0.1f));  // b's gradient is computed, never used
  const StepGraph s = remove_dead_nodes(t, {loss, new_w});
  EXPECT_LT(static_cast<int>(s.ops.size()), t.size());
  EXPECT_EQ(s.op_of[static_cast<std::size_t>(g[1].id)], -1);
  EXPECT_TRUE(s.ops[static_cast<std::size_t>(s.op_of[static_cast<std::size_t>(new_w.id)])].root);
  EXPECT_TRUE(s.ops[static_cast<std::size_t>(s.op_of[static_cast<std::size_t>(loss.id)])].root);
}

TEST(DeadNodes, ALeafRootStaysLiveButIsNoOp) {
  Tensor w({1, 1}, 0.5f);
  Tracer t;
  const Value wv = t.parameter(w, "W");
  t.scale(wv, 2.0f);
  const StepGraph g = remove_dead_nodes(t, {wv});
  EXPECT_EQ(g.live_nodes, 1);
  EXPECT_TRUE(g.ops.empty());
}

// Random chains and diamonds: every live op's inputs are live op nodes or leaves, numbered before
// it, and an op is live exactly when a root reads it (directly or not).
TEST(DeadNodes, RandomGraphsKeepExactlyWhatTheRootsRead) {
  Rng rng(5);
  Tensor x({4, 1}, 1.0f);
  for (int trial = 0; trial < 100; ++trial) {
    Tracer t;
    std::vector<Value> values{t.input(x, "x")};
    const auto pick = [&] {
      return values[static_cast<std::size_t>(rng.uniform() * static_cast<double>(values.size()))];
    };
    for (int k = 0; k < 20; ++k)
      values.push_back(rng.uniform() < 0.5 ? t.tanh(pick()) : t.add(pick(), pick()));
    const std::vector<Value> roots{pick(), pick()};
    const StepGraph g = remove_dead_nodes(t, roots);
    std::vector<bool> read(static_cast<std::size_t>(t.size()), false);  // by a root, transitively
    for (Value r : roots) read[static_cast<std::size_t>(r.id)] = true;
    for (int id = t.size() - 1; id >= 0; --id)
      if (read[static_cast<std::size_t>(id)] && t.node(Value{id}).leaf == LeafKind::None)
        for (int i = 0; i < op_def(t.node(Value{id}).op).arity; ++i)
          read[static_cast<std::size_t>(t.node(Value{id}).in[i].id)] = true;
    for (int id = 1; id < t.size(); ++id)
      EXPECT_EQ(g.op_of[static_cast<std::size_t>(id)] >= 0, read[static_cast<std::size_t>(id)])
          << "trial " << trial << ", node " << id;
    for (std::size_t k = 0; k < g.ops.size(); ++k)
      for (int in : g.ops[k].in) EXPECT_LT(in, static_cast<int>(k)) << "trial " << trial;
  }
}

}  // namespace
}  // namespace looplab
