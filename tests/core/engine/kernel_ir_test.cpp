// kernel_ir_test.cpp — what the lowering IR computes for both emitters, on synthetic loops (pure
// data in, pure data out): the slots a loop touches, the order of a nest's reduction and of a flat
// loop. (The emitters' output: emit_test.cpp.)
#include "looplab/engine/kernel_ir.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace looplab {
namespace {

using RefKind = kir::Ref::Kind;

kir::Ref slot_ref(int slot) { return {RefKind::Vector, slot, 0.0f}; }
kir::Ref temp_ref(int j) { return {RefKind::Temp, j, 0.0f}; }

kir::Expr make_expr(kir::Op op, kir::Ref a, kir::Ref b = {}, int store = -1) {
  kir::Expr e;
  e.op = op;
  e.in = {a, b};
  e.store = store;
  return e;
}

// Slots 7 and 3 are read, 5 is read and stored in place (an activation), 9 only stored; 2 is a
// scalar load and 4 a sink's total, neither read element by element; 8 is past tanh's arity and a
// Sum's b.
kir::Loop touching_loop() {
  kir::Loop L;
  L.n = 10;
  L.scalar_loads = {2};
  L.body = {make_expr(kir::Op::Mul, slot_ref(7), slot_ref(3)),
            make_expr(kir::Op::Tanh, slot_ref(5), slot_ref(8), 5),
            make_expr(kir::Op::Add, temp_ref(0), {RefKind::Scalar, 0, 0.0f}, 9)};
  L.sinks = {
      {kir::Sink::Kind::Sum, temp_ref(1), slot_ref(8), false, 4, {}},
      {kir::Sink::Kind::Dot, slot_ref(3), {RefKind::Strided, 6, 0.0f, {0, 1, 0}}, false, 4, {}}};
  return L;
}

TEST(KernelIr, ElementSlotsAreTheOperandsAndStoresInOrderOfFirstUse) {
  const std::vector<kir::ElementSlot> s = kir::element_slots(touching_loop());
  ASSERT_EQ(s.size(), 5u);
  const int order[] = {7, 3, 5, 9, 6};
  const bool stored[] = {false, false, true, true, false};
  for (std::size_t i = 0; i < s.size(); ++i) {
    EXPECT_EQ(s[i].slot, order[i]) << i;
    EXPECT_EQ(s[i].stored, stored[i]) << i;
  }
}

TEST(KernelIr, LocalSlotsNumberEverySlotInOrderOfFirstUse) {
  std::vector<int> slots;
  const kir::Loop L = kir::with_local_slots(touching_loop(), slots);
  EXPECT_EQ(slots, (std::vector<int>{2, 7, 3, 5, 9, 4, 6}));
  EXPECT_EQ(L.scalar_loads[0], 0);
  EXPECT_EQ(L.body[0].in[0].index, 1);
  EXPECT_EQ(L.body[0].in[1].index, 2);
  EXPECT_EQ(L.body[1].in[0].index, 3);
  EXPECT_EQ(L.body[1].store, 3);
  EXPECT_EQ(L.body[1].in[1].index, 8) << "past tanh's arity: no slot, left alone";
  EXPECT_EQ(L.body[2].store, 4);
  EXPECT_EQ(L.body[2].in[1].index, 0) << "a scalar register, not a slot";
  EXPECT_EQ(L.sinks[0].out, 5);
  EXPECT_EQ(L.sinks[1].a.index, 2);
  EXPECT_EQ(L.sinks[1].b.index, 6);
}

using Terms = std::vector<kir::ReductionOrder::Term>;

// The steps k of a reduction in the order the schedule runs them, each with its partial sum.
Terms expanded(const kir::ReductionOrder& r) {
  Terms all = r.first;
  for (int k0 = r.round_begin; k0 < r.round_end; k0 += static_cast<int>(r.round.size()))
    for (const kir::ReductionOrder::Term& t : r.round) all.push_back({k0 + t.k, t.partial});
  all.insert(all.end(), r.tail.begin(), r.tail.end());
  return all;
}

TEST(KernelIr, ReductionOrderOfSevenTermsIsFourPartialSumsAndATail) {
  const kir::ReductionOrder r = kir::reduction_order(7);
  EXPECT_EQ(r.first, (Terms{{0, 0}, {1, 1}, {2, 2}, {3, 3}}));
  EXPECT_FALSE(r.rounds()) << "terms 4 .. 6 are the tail";
  EXPECT_EQ(r.tail, (Terms{{4, 0}, {5, 1}, {6, 2}}));
  EXPECT_EQ(r.finish, (std::vector<int>{0, 1, 2, 3}));
}

TEST(KernelIr, ReductionOrderRunsWholeRoundsInALoop) {
  const kir::ReductionOrder r = kir::reduction_order(13);
  EXPECT_EQ(r.round_begin, 4);
  EXPECT_EQ(r.round_end, 12);
  EXPECT_EQ(r.round, (Terms{{0, 0}, {1, 1}, {2, 2}, {3, 3}}));
  EXPECT_EQ(r.tail, (Terms{{12, 0}}));
  const kir::ReductionOrder three = kir::reduction_order(3);  // under four terms: one sum
  EXPECT_EQ(three.first, (Terms{{0, 0}}));
  EXPECT_EQ(three.round_begin, 1);
  EXPECT_EQ(three.round_end, 3);
  EXPECT_EQ(three.round, (Terms{{0, 0}}));
  EXPECT_TRUE(three.tail.empty());
  EXPECT_EQ(three.finish, (std::vector<int>{0}));
}

// What both emitters rely on: every term once, in order of k (emit_wasm advances its readings
// one step per term), term k to partial sum k % partials(depth), each partial sum first set by
// its own first term, and the partial sums added in order.
TEST(KernelIr, ReductionOrderVisitsEveryTermOnceInOrder) {
  for (int depth = 1; depth <= 40; ++depth) {
    const kir::ReductionOrder r = kir::reduction_order(depth);
    const int parts = kir::partials(depth);
    const Terms all = expanded(r);
    ASSERT_EQ(all.size(), static_cast<std::size_t>(depth)) << depth;
    for (int k = 0; k < depth; ++k) {
      EXPECT_EQ(all[static_cast<std::size_t>(k)].k, k) << depth;
      EXPECT_EQ(all[static_cast<std::size_t>(k)].partial, k % parts) << depth << ", " << k;
    }
    ASSERT_EQ(r.first.size(), static_cast<std::size_t>(parts)) << depth;
    ASSERT_EQ(r.finish.size(), static_cast<std::size_t>(parts)) << depth;
    for (int p = 0; p < parts; ++p) EXPECT_EQ(r.finish[static_cast<std::size_t>(p)], p) << depth;
  }
}

// A flat loop: whole blocks of kLanes, then a tail; each sink's partial sums added lane by lane,
// then the tail's.
TEST(KernelIr, FlatOrderIsBlocksOfLanesThenATailAddedInLaneOrder) {
  std::vector<int> lanes_then_tail;
  for (int l = 0; l < kir::kLanes; ++l) lanes_then_tail.push_back(l);
  lanes_then_tail.push_back(kir::FlatOrder::kTail);
  for (std::size_t n : {0u, 5u, 16u, 37u, 48u}) {
    const kir::FlatOrder f = kir::flat_order(n);
    EXPECT_EQ(f.n, n);
    EXPECT_EQ(f.blocks % kir::kLanes, 0u) << n;
    EXPECT_LE(f.blocks, n);
    EXPECT_LT(n - f.blocks, static_cast<std::size_t>(kir::kLanes)) << n;
    EXPECT_EQ(f.finish, lanes_then_tail) << n;
  }
  EXPECT_EQ(kir::flat_order(37).blocks, 32u) << "two blocks and a tail of five";
  EXPECT_EQ(kir::flat_order(5).blocks, 0u) << "only a tail";
}

}  // namespace
}  // namespace looplab
