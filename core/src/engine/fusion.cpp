// fusion.cpp — grouping ops into Dense groups and Loops, and the loop peepholes (see fusion.hpp).
#include "looplab/engine/fusion.hpp"

#include <algorithm>

#include "looplab/base/order.hpp"

namespace looplab {
namespace {

constexpr std::size_t kMaxLoopMembers = 32;  // bounds the scratch tiles a loop needs (lowering)
bool is_scalar(Shape s) { return s == Shape{1, 1}; }
const FusionRole& role_of(const OpNode& n) { return op_def(n.op).fusion; }

// The vector length a Loop member runs over: its output's, or a sink's input's.
std::size_t loop_length(const OpNode& n, const LoopRole& r) {
  return r.sink ? n.in_shape[0].size() : n.shape.size();
}

struct Pass {
  const std::vector<OpNode>& nodes;
  FusionPlan plan;
  std::vector<bool> closed;
  std::vector<std::size_t> length;  // per group: the loop's vector length
  std::vector<int> readers;         // per node: how many input slots of other nodes read it
  std::size_t min_loop_length = kMinLoopLength;

  explicit Pass(const std::vector<OpNode>& g) : nodes(g), readers(g.size(), 0) {
    plan.group_of.assign(g.size(), -1);
    for (const OpNode& n : g)
      for (int i : n.in)
        if (i >= 0) ++readers[static_cast<std::size_t>(i)];
  }

  const OpNode& node(int k) const { return nodes[static_cast<std::size_t>(k)]; }
  int group_of(int k) const { return plan.group_of[static_cast<std::size_t>(k)]; }
  FusionGroup& group(int g) { return plan.groups[static_cast<std::size_t>(g)]; }

  int new_group(GroupKind kind, int k, std::size_t n) {
    plan.groups.push_back({kind, {k}});
    closed.push_back(false);
    length.push_back(n);
    return plan.group_of[static_cast<std::size_t>(k)] = static_cast<int>(plan.groups.size()) - 1;
  }
  void join(int g, int k) {
    group(g).members.push_back(k);
    plan.group_of[static_cast<std::size_t>(k)] = g;
  }
  bool is_sink(int k) const { return loop_role(node(k)).sink; }

  // Can node k (with loop role r and length n) join Loop g? Every input it reads from g must be a
  // vector member (a sink's value exists only after the loop); a scalar read needs n == 1.
  bool loop_accepts(int g, int k, const LoopRole& r, std::size_t n) {
    const FusionGroup& G = group(g);
    if (G.kind != GroupKind::Loop || closed[static_cast<std::size_t>(g)] ||
        length[static_cast<std::size_t>(g)] != n || G.members.size() >= kMaxLoopMembers)
      return false;
    for (int i = 0; i < kMaxArity; ++i) {
      const int p = node(k).in[static_cast<std::size_t>(i)];
      if (p < 0 || group_of(p) != g) continue;
      if (is_sink(p)) return false;
      if (r.operand[static_cast<std::size_t>(i)] == LoopOperand::Scalar && n != 1) return false;
    }
    return true;
  }

  bool try_loop(int k) {
    const OpNode& v = node(k);
    const LoopRole r = loop_role(v);
    if (!r.fusible) return false;
    const std::size_t n = loop_length(v, r);
    if (n < min_loop_length) return false;
    for (int i = 0; i < kMaxArity; ++i) {  // join through an input that is a member
      const int p = v.in[static_cast<std::size_t>(i)];
      if (p >= 0 && r.operand[static_cast<std::size_t>(i)] != LoopOperand::None &&
          loop_accepts(group_of(p), k, r, n)) {
        join(group_of(p), k);
        return true;
      }
    }
    new_group(GroupKind::Loop, k, n);
    return true;
  }

  // Bias after a lone MatMul, activation after MatMul + bias: the previous member's only reader.
  bool try_dense(int k) {
    const OpNode& v = node(k);
    const int p = v.in[0];
    if (p < 0) return false;
    const int g = group_of(p);
    const FusionGroup& G = group(g);
    const Epilogue e = role_of(v).epilogue;
    const std::size_t want = e == Epilogue::Bias ? 1 : e == Epilogue::Activation ? 2 : 0;
    if (want == 0 || G.kind != GroupKind::Dense || closed[static_cast<std::size_t>(g)] ||
        G.members.size() != want || G.members.back() != p ||
        readers[static_cast<std::size_t>(p)] != 1 || node(p).root)
      return false;
    join(g, k);
    return true;
  }

  // Reading a member of another group fixes that group's place: it can take no later members.
  // (Reading only a shape needs no data, so it neither orders groups nor needs a buffer.)
  void close_what_is_read(int k) {
    const OpNode& v = node(k);
    const int own = group_of(k);
    const LoopRole r = loop_role(v);
    for (int i = 0; i < kMaxArity; ++i) {
      const int p = v.in[static_cast<std::size_t>(i)];
      if (p < 0 || group_of(p) == own) continue;
      if (r.operand[static_cast<std::size_t>(i)] == LoopOperand::ShapeOnly) continue;
      closed[static_cast<std::size_t>(group_of(p))] = true;
      plan.materialized[static_cast<std::size_t>(p)] = true;
    }
  }

  void run() {
    plan.materialized.assign(nodes.size(), false);
    for (int k = 0; k < static_cast<int>(nodes.size()); ++k) {
      const OpNode& v = node(k);
      if (!try_dense(k) && !try_loop(k))
        new_group(role_of(v).kind == FusionKind::Contraction ? GroupKind::Dense : GroupKind::Single,
                  k, v.shape.size());
      close_what_is_read(k);
      if (v.root || is_sink(k)) plan.materialized[static_cast<std::size_t>(k)] = true;
    }
    finish();
    plan_peepholes();
  }

  // Lone members run as plain ops; the last member of a Single or Dense group is its output buffer;
  // groups run in the order of their last member.
  void finish() {
    for (FusionGroup& G : plan.groups) {
      if (G.members.size() == 1) G.kind = GroupKind::Single;
      if (G.kind != GroupKind::Loop)
        plan.materialized[static_cast<std::size_t>(G.members.back())] = true;
      if (G.members.size() > 1) ++plan.fused_groups;
    }
    std::vector<long long> lasts;
    for (const FusionGroup& G : plan.groups) lasts.push_back(G.members.back());
    std::vector<FusionGroup> ordered;
    for (const std::size_t g : order_by(lasts)) ordered.push_back(std::move(plan.groups[g]));
    plan.groups = std::move(ordered);
    for (std::size_t g = 0; g < plan.groups.size(); ++g)
      for (int m : plan.groups[g].members)
        plan.group_of[static_cast<std::size_t>(m)] = static_cast<int>(g);
  }

  // --- peepholes: only for loop intermediates without a buffer (all their readers in the loop) --

  // Every operand read as a scalar or a shape: the value is the same at every element.
  bool is_uniform(int k) const {
    if (k < 0) return false;
    const LoopRole r = loop_role(node(k));
    if (!r.fusible || r.sink) return false;
    return std::none_of(r.operand.begin(), r.operand.end(),
                        [](LoopOperand o) { return o == LoopOperand::Vector; });
  }
  bool folds_into_sink(int k, const std::vector<int>& read_by) const {
    if (node(k).op != OpKind::Square || read_by.size() != 1) return false;
    const OpNode& sink = node(read_by[0]);
    return loop_role(sink).sink && role_of(sink).kind == FusionKind::Reduction;
  }
  // A uniform value computed once, before its loop: every input comes from outside the loop or
  // is itself computed once. In a loop of one element a member's output is [1 x 1] too, and reads
  // as a scalar, but it exists only inside the loop (found by fuzzing: batch = 1, bce).
  bool inputs_before_loop(int k) const {
    const OpNode& n = node(k);
    const LoopRole r = loop_role(n);
    for (int i = 0; i < kMaxArity; ++i) {
      const int p = n.in[static_cast<std::size_t>(i)];
      if (p < 0 || r.operand[static_cast<std::size_t>(i)] == LoopOperand::ShapeOnly) continue;
      if (group_of(p) == group_of(k) &&
          plan.peephole[static_cast<std::size_t>(p)] != Peephole::Once)
        return false;
    }
    return true;
  }
  bool once_per_run(int k, const std::vector<int>& read_by) const {
    if (!is_uniform(k) || read_by.empty() || !inputs_before_loop(k)) return false;
    for (int m : read_by) {
      const OpNode& mul = node(m);
      if (mul.op != OpKind::Mul || is_uniform(mul.in[0]) == is_uniform(mul.in[1])) return false;
    }
    return true;
  }

  void plan_peepholes() {
    plan.peephole.assign(nodes.size(), Peephole::None);
    std::vector<std::vector<int>> read_by(nodes.size());  // data reads, once per input slot
    for (std::size_t k = 0; k < nodes.size(); ++k) {
      const LoopRole r = loop_role(nodes[k]);
      for (int i = 0; i < kMaxArity; ++i) {
        const int p = nodes[k].in[static_cast<std::size_t>(i)];
        if (p >= 0 && r.operand[static_cast<std::size_t>(i)] != LoopOperand::ShapeOnly)
          read_by[static_cast<std::size_t>(p)].push_back(static_cast<int>(k));
      }
    }
    for (std::size_t k = 0; k < nodes.size(); ++k) {
      if (plan.materialized[k] || group(plan.group_of[k]).kind != GroupKind::Loop) continue;
      if (folds_into_sink(static_cast<int>(k), read_by[k])) {
        plan.peephole[k] = Peephole::FoldedSquare;
      } else if (once_per_run(static_cast<int>(k), read_by[k])) {
        plan.peephole[k] = Peephole::Once;
        for (int m : read_by[k]) plan.peephole[static_cast<std::size_t>(m)] = Peephole::ByOnce;
      }
    }
  }
};

}  // namespace

LoopRole loop_role(const OpNode& n) {
  using O = LoopOperand;
  const FusionRole& f = role_of(n);
  LoopRole r{true, false, false, f.operand};
  switch (f.kind) {
    case FusionKind::Opaque:
      return {};
    case FusionKind::Elementwise:
      for (int i = 0; i < kMaxArity; ++i) {  // a row broadcast is a scalar when it is [1 x 1]
        O& o = r.operand[static_cast<std::size_t>(i)];
        if (o != O::Row) continue;
        if (!is_scalar(n.in_shape[static_cast<std::size_t>(i)])) return {};
        o = O::Scalar;
      }
      return r;
    case FusionKind::Reduction:  // a sink when it sums everything into one number
      if (!is_scalar(n.shape)) return {};
      r.sink = true;
      return r;
    case FusionKind::Contraction:
      // A column times a [1 x 1] weight is elementwise; aᵀb of two columns is a dot product.
      if (!n.attrs.transpose_a && n.in_shape[0].cols == 1 && is_scalar(n.in_shape[1]))
        return {true, false, false, {O::Vector, O::Scalar}};
      if (n.attrs.transpose_a && !n.attrs.transpose_b && n.in_shape[0].cols == 1 &&
          n.in_shape[1].cols == 1)
        return {true, true, true, {O::Vector, O::Vector}};
      return {};
  }
  return {};
}

FusionPlan plan_fusion(const std::vector<OpNode>& nodes, std::size_t min_loop_length) {
  Pass pass(nodes);
  pass.min_loop_length = min_loop_length;
  pass.run();
  return std::move(pass.plan);
}

FusionPlan unfused_plan(std::size_t nodes) {
  FusionPlan plan;
  plan.materialized.assign(nodes, true);
  plan.peephole.assign(nodes, Peephole::None);
  for (std::size_t k = 0; k < nodes; ++k) {
    plan.groups.push_back({GroupKind::Single, {static_cast<int>(k)}});
    plan.group_of.push_back(static_cast<int>(k));
  }
  return plan;
}

}  // namespace looplab
