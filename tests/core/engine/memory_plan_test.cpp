// memory_plan_test.cpp — the memory plan on synthetic request lists (reuse, no overlap of live
// buffers) and the buffers of small fused steps. (A real MLP step's plan:
// tests/core/train/training_programs_test.cpp.)
#include "looplab/engine/memory_plan.hpp"

#include <gtest/gtest.h>

#include <climits>

#include "looplab/base/rng.hpp"
#include "looplab/engine/dead_nodes.hpp"
#include "looplab/engine/tracer.hpp"

namespace looplab {
namespace {

TEST(MemoryPlan, ReusesBytesOfDeadBuffersAndNeverOverlapsLiveOnes) {
  // A chain: each buffer is read only by the next step, so two slots suffice.
  std::vector<BufferRequest> chain;
  for (int i = 0; i < 10; ++i) chain.push_back({4000, i, i + 1});
  const MemoryPlan plan = plan_memory(chain);
  EXPECT_FALSE(plan_has_conflict(chain, plan));
  EXPECT_LE(plan.total_bytes, 2 * 4032u);
  for (std::size_t off : plan.offsets) EXPECT_EQ(off % kAlignment, 0u);
}

TEST(MemoryPlan, RandomGraphsHaveNoConflicts) {
  Rng rng(3);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<BufferRequest> req;
    const int n = 1 + static_cast<int>(rng.uniform() * 40);
    std::size_t sum = 0;
    for (int i = 0; i < n; ++i) {
      const int first = static_cast<int>(rng.uniform() * 30);
      const int last = first + static_cast<int>(rng.uniform() * 10);
      req.push_back({static_cast<std::size_t>(1 + rng.uniform() * 5000), first, last});
      sum += (req.back().bytes + kAlignment - 1) / kAlignment * kAlignment;
    }
    const MemoryPlan plan = plan_memory(req);
    ASSERT_FALSE(plan_has_conflict(req, plan)) << "trial " << trial;
    EXPECT_LE(plan.total_bytes, sum);
  }
}

TEST(MemoryPlan, BuffersAliveAtTheSameStepGetDisjointBytes) {
  const std::vector<BufferRequest> req = {{100, 0, 5}, {100, 1, 5}, {100, 2, 2}, {100, 3, 4}};
  const MemoryPlan plan = plan_memory(req);
  EXPECT_FALSE(plan_has_conflict(req, plan));
  EXPECT_EQ(plan.offsets[3], plan.offsets[2]);  // 2 is dead when 3 is written: its bytes are reused
}

// Synthetic steps: a node with its op, output shape and inputs (node indices, -1 for a leaf).
OpNode node(OpKind op, Shape shape, int a = -1, int b = -1) {
  OpNode n;
  n.op = op;
  n.shape = shape;
  n.in = {a, b};
  return n;
}

TEST(Buffers, EachUnfusedNodeLivesFromItsInstructionToItsLastReader) {
  const Shape v{10, 1};
  std::vector<OpNode> g = {node(OpKind::Tanh, v), node(OpKind::Square, v, 0),
                           node(OpKind::Add, v, 0, 1), node(OpKind::Mean, {1, 1}, 2)};
  g[3].root = true;
  const BufferPlan b = plan_buffers(g, unfused_plan(g.size()));
  ASSERT_EQ(b.requests.size(), 4u);
  EXPECT_EQ(b.request_of, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(b.requests[0].first, 0);
  EXPECT_EQ(b.requests[0].last, 2);  // read by the Add, instruction 2
  EXPECT_EQ(b.requests[1].last, 2);
  EXPECT_EQ(b.requests[3].last, INT_MAX);  // a root is read after the step
  EXPECT_EQ(b.requests[0].bytes, 40u);
  EXPECT_EQ(b.unplanned_bytes, 3 * 40u + 4u);
  EXPECT_FALSE(plan_has_conflict(b.requests, b.memory));
  EXPECT_EQ(b.memory.offsets[3], b.memory.offsets[0]);  // the first buffer is dead by then
}

TEST(Buffers, FusedIntermediatesGetNone) {
  const Shape v{256, 1};  // long enough for a loop
  std::vector<OpNode> g = {node(OpKind::Sub, v), node(OpKind::Square, v, 0),
                           node(OpKind::Mean, {1, 1}, 1)};
  for (int i : {0, 1}) g[static_cast<std::size_t>(i)].in_shape = {v, v};
  g[2].in_shape = {v, {}};
  g[2].root = true;
  const BufferPlan b = plan_buffers(g, plan_fusion(g));
  EXPECT_EQ(b.request_of, (std::vector<int>{-1, -1, 0}));  // only the mean has a buffer
  EXPECT_EQ(b.memory.total_bytes, kAlignment);
  EXPECT_EQ(b.unplanned_bytes, 2 * 1024u + 4u);
}

}  // namespace
}  // namespace looplab
