// fusion.cpp — grouping ops into Dense groups and Loops (see fusion.hpp for the rules).
#include "looplab/engine/fusion.hpp"

#include <algorithm>

namespace looplab {
namespace {

constexpr std::size_t kMaxLoopMembers = 32;  // bounds the scratch tiles a loop needs (trace.cpp)
// NOTE: a loop pays per run for its set-up and per step for a kernel call built on the fly; below
// this length there is no memory traffic worth saving (a few cache lines), so short vectors such
// as the optimizer's updates of small parameters stay one instruction per op. Measured: W2's
// 20-element Adam updates were slower fused.
constexpr std::size_t kMinLoopLength = 64;

bool is_scalar(Shape s) { return s == Shape{1, 1}; }
bool is_activation(OpKind op) {
  return op == OpKind::Tanh || op == OpKind::Relu || op == OpKind::Sigmoid;
}

// The vector length a Loop member runs over: its output's, or a sink's input's.
std::size_t loop_length(const FusionNode& n, const LoopRole& r) {
  return r.sink ? n.in_shape[0].size() : n.shape.size();
}

struct Pass {
  const std::vector<FusionNode>& nodes;
  FusionPlan plan;
  std::vector<bool> closed;
  std::vector<std::size_t> length;  // per group: the loop's vector length
  std::vector<int> readers;         // per node: how many input slots of other nodes read it

  explicit Pass(const std::vector<FusionNode>& g) : nodes(g), readers(g.size(), 0) {
    plan.group_of.assign(g.size(), -1);
    for (const FusionNode& n : g)
      for (int i : n.in)
        if (i >= 0) ++readers[static_cast<std::size_t>(i)];
  }

  int group_of(int node) const { return plan.group_of[static_cast<std::size_t>(node)]; }
  FusionGroup& group(int g) { return plan.groups[static_cast<std::size_t>(g)]; }

  int new_group(GroupKind kind, int node, std::size_t n) {
    plan.groups.push_back({kind, {node}});
    closed.push_back(false);
    length.push_back(n);
    return plan.group_of[static_cast<std::size_t>(node)] = static_cast<int>(plan.groups.size()) - 1;
  }
  void join(int g, int node) {
    group(g).members.push_back(node);
    plan.group_of[static_cast<std::size_t>(node)] = g;
  }
  bool is_sink(int node) const { return loop_role(nodes[static_cast<std::size_t>(node)]).sink; }

  // Can `node` (with loop role r and length n) join Loop g? Every input it reads from g must be a
  // vector member (a sink's value exists only after the loop); a scalar read needs n == 1.
  bool loop_accepts(int g, int node, const LoopRole& r, std::size_t n) {
    const FusionGroup& G = group(g);
    if (G.kind != GroupKind::Loop || closed[static_cast<std::size_t>(g)] ||
        length[static_cast<std::size_t>(g)] != n || G.members.size() >= kMaxLoopMembers)
      return false;
    const FusionNode& v = nodes[static_cast<std::size_t>(node)];
    for (int i = 0; i < kMaxArity; ++i) {
      const int p = v.in[static_cast<std::size_t>(i)];
      if (p < 0 || group_of(p) != g) continue;
      if (is_sink(p)) return false;
      if (r.operand[static_cast<std::size_t>(i)] == LoopOperand::Scalar && n != 1) return false;
    }
    return true;
  }

  bool try_loop(int node) {
    const FusionNode& v = nodes[static_cast<std::size_t>(node)];
    const LoopRole r = loop_role(v);
    if (!r.fusible) return false;
    const std::size_t n = loop_length(v, r);
    if (n < kMinLoopLength) return false;
    for (int i = 0; i < kMaxArity; ++i) {  // join through an input that is a member
      const int p = v.in[static_cast<std::size_t>(i)];
      if (p >= 0 && r.operand[static_cast<std::size_t>(i)] != LoopOperand::None &&
          loop_accepts(group_of(p), node, r, n)) {
        join(group_of(p), node);
        return true;
      }
    }
    new_group(GroupKind::Loop, node, n);
    return true;
  }

  // Bias after a lone MatMul, activation after MatMul + bias: the previous member's only reader.
  bool try_dense(int node) {
    const FusionNode& v = nodes[static_cast<std::size_t>(node)];
    const int p = v.in[0];
    if (p < 0) return false;
    const int g = group_of(p);
    const FusionGroup& G = group(g);
    const std::size_t want = v.op == OpKind::AddRow ? 1 : is_activation(v.op) ? 2 : 0;
    if (want == 0 || G.kind != GroupKind::Dense || closed[static_cast<std::size_t>(g)] ||
        G.members.size() != want || G.members.back() != p ||
        readers[static_cast<std::size_t>(p)] != 1 || nodes[static_cast<std::size_t>(p)].root)
      return false;
    join(g, node);
    return true;
  }

  // Reading a member of another group fixes that group's place: it can take no later members.
  // (Reading only a shape needs no data, so it neither orders groups nor needs a buffer.)
  void close_what_is_read(int node) {
    const FusionNode& v = nodes[static_cast<std::size_t>(node)];
    const int own = group_of(node);
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
      const FusionNode& v = nodes[static_cast<std::size_t>(k)];
      if (!try_dense(k) && !try_loop(k))
        new_group(v.op == OpKind::MatMul ? GroupKind::Dense : GroupKind::Single, k, v.shape.size());
      close_what_is_read(k);
      if (v.root || is_sink(k)) plan.materialized[static_cast<std::size_t>(k)] = true;
    }
    finish();
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
    std::stable_sort(plan.groups.begin(), plan.groups.end(),
                     [](const FusionGroup& a, const FusionGroup& b) {
                       return a.members.back() < b.members.back();
                     });
    for (std::size_t g = 0; g < plan.groups.size(); ++g)
      for (int m : plan.groups[g].members)
        plan.group_of[static_cast<std::size_t>(m)] = static_cast<int>(g);
  }
};

}  // namespace

LoopRole loop_role(const FusionNode& n) {
  using O = LoopOperand;
  const auto make = [](bool sink, O a, O b = O::None) { return LoopRole{true, sink, {a, b}}; };
  switch (n.op) {
    case OpKind::Scale:
    case OpKind::Square:
    case OpKind::AddConst:
    case OpKind::Sqrt:
    case OpKind::Tanh:
    case OpKind::Sigmoid:
    case OpKind::Relu:
    case OpKind::Log:
    case OpKind::Clip:
      return make(false, O::Vector);
    case OpKind::Add:
    case OpKind::Sub:
    case OpKind::Mul:
    case OpKind::Div:
    case OpKind::TanhGrad:
    case OpKind::SigmoidGrad:
    case OpKind::ReluGrad:
    case OpKind::ClipGrad:
      return make(false, O::Vector, O::Vector);
    case OpKind::MulScalar:
      return make(false, O::Vector, O::Scalar);
    case OpKind::AddRow:  // a bias on a single column is a scalar
      return is_scalar(n.in_shape[1]) ? make(false, O::Vector, O::Scalar) : LoopRole{};
    case OpKind::MatMul:
      // A column times a [1 x 1] weight is elementwise; aᵀb of two columns is a dot product.
      if (!n.attrs.transpose_a && n.in_shape[0].cols == 1 && is_scalar(n.in_shape[1]))
        return make(false, O::Vector, O::Scalar);
      if (n.attrs.transpose_a && !n.attrs.transpose_b && n.in_shape[0].cols == 1 &&
          n.in_shape[1].cols == 1)
        return make(true, O::Vector, O::Vector);
      return {};
    case OpKind::MeanGrad:
    case OpKind::Fill:
      return make(false, O::Scalar, O::ShapeOnly);
    case OpKind::RepeatRows:
      return is_scalar(n.in_shape[0]) ? make(false, O::Scalar, O::ShapeOnly) : LoopRole{};
    case OpKind::Mean:
    case OpKind::Sum:
      return make(true, O::Vector);
    case OpKind::SumRows:
      return n.in_shape[0].cols == 1 ? make(true, O::Vector) : LoopRole{};
    default:
      return {};
  }
}

FusionPlan plan_fusion(const std::vector<FusionNode>& nodes) {
  Pass pass(nodes);
  pass.run();
  return std::move(pass.plan);
}

}  // namespace looplab
