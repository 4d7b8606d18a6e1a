// builder.cpp — node recording shared by every executor, and reverse-mode autodiff.
#include "looplab/engine/builder.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

namespace looplab {

std::string Shape::str() const {
  char buf[48];
  std::snprintf(buf, sizeof buf, "[%d x %d]", rows, cols);
  return buf;
}

Tensor::Tensor(Shape shape, std::vector<float> values) : shape_(shape), data_(std::move(values)) {
  if (data_.size() != shape_.size())
    throw ShapeError("Tensor: " + std::to_string(data_.size()) + " values for shape " +
                     shape_.str());
}

Value Builder::push(Node n) {
  nodes_.push_back(std::move(n));
  return Value{static_cast<int>(nodes_.size()) - 1};
}

Value Builder::leaf(LeafKind kind, Shape shape, std::string_view name, const float* data,
                    Tensor* writable, Tensor* owned) {
  Node n;
  n.leaf = kind;
  n.shape = shape;
  n.requires_grad = kind == LeafKind::Parameter;
  n.name = name;
  const Value v = push(std::move(n));
  on_leaf(v, data, writable, owned);
  return v;
}

Value Builder::input(const float* data, Shape shape, std::string_view name) {
  return leaf(LeafKind::Input, shape, name, data, nullptr, nullptr);
}
Value Builder::parameter(Tensor& t, std::string_view name) {
  return leaf(LeafKind::Parameter, t.shape(), name, t.data(), &t, nullptr);
}
Value Builder::state(Tensor& t, std::string_view name) {
  return leaf(LeafKind::State, t.shape(), name, t.data(), &t, nullptr);
}
Value Builder::constant(Tensor t) {
  return leaf(LeafKind::Constant, t.shape(), "", nullptr, nullptr, &t);
}

Value Builder::apply(OpKind op, std::array<Value, kMaxArity> in, const OpAttrs& attrs) {
  const OpDef& def = op_def(op);
  Node n;
  n.op = op;
  n.attrs = attrs;
  std::array<Shape, kMaxArity> shapes{};
  for (int i = 0; i < def.arity; ++i) {
    if (!in[i].valid() || in[i].id >= size())
      throw ShapeError(std::string(def.name) + ": invalid input");
    shapes[i] = shape(in[i]);
    n.in[i] = in[i];
    n.requires_grad = n.requires_grad || node(in[i]).requires_grad;
  }
  n.shape = def.shape(shapes, attrs);
  const Value v = push(std::move(n));
  on_op(v);
  return v;
}

Value Builder::matmul(Value a, Value b, bool transpose_a, bool transpose_b) {
  OpAttrs attrs;
  attrs.transpose_a = transpose_a;
  attrs.transpose_b = transpose_b;
  return apply(OpKind::MatMul, {a, b}, attrs);
}

Value Builder::scale(Value a, float s) {
  OpAttrs attrs;
  attrs.scale = s;
  return apply(OpKind::Scale, {a}, attrs);
}

Value Builder::clip(Value a, float lo, float hi) {
  OpAttrs attrs;
  attrs.lo = lo;
  attrs.hi = hi;
  return apply(OpKind::Clip, {a}, attrs);
}

Value Builder::bce(Value p, Value y) {
  const float eps = 1e-7f;
  // One statement per node: the node order (and so the gradient sums' order) must not depend on
  // the compiler's order of evaluating function arguments.
  const Value pc = clip(p, eps, 1.0f - eps);
  const Value log_p = log(pc);
  const Value one_minus_p = add_const(scale(pc, -1.0f), 1.0f);
  const Value log_1mp = log(one_minus_p);
  const Value one_minus_y = add_const(scale(y, -1.0f), 1.0f);
  const Value pos = mul(y, log_p);
  const Value neg = mul(one_minus_y, log_1mp);
  return scale(mean(add(pos, neg)), -1.0f);
}

Value Builder::bce_logits(Value z, Value y) {
  const Value sp = softplus(z);  // one statement per node, as above
  const Value yz = mul(y, z);
  return mean(sub(sp, yz));
}

Value Builder::window_gather(Value x, const Window& w) {
  OpAttrs attrs;
  attrs.window = w;
  return apply(OpKind::WindowGather, {x}, attrs);
}

Value Builder::global_average_pool(Value x, int length) {
  OpAttrs attrs;
  attrs.window.length = length;
  return apply(OpKind::GroupMean, {x}, attrs);
}

Value Builder::dropout(Value x, Value step, float rate, std::uint32_t seed) {
  OpAttrs attrs;
  attrs.scale = rate;
  attrs.seed = seed;
  return apply(OpKind::Dropout, {x, step}, attrs);
}

Value Builder::add_const(Value a, float c) {
  OpAttrs attrs;
  attrs.scale = c;
  return apply(OpKind::AddConst, {a}, attrs);
}

Value Builder::sub_from(float c, Value a) {
  OpAttrs attrs;
  attrs.scale = c;
  return apply(OpKind::SubFrom, {a}, attrs);
}

// Walks the nodes from the loss back to `wrt` (ids are already a topological order), calling
// each op's gradient rule and summing the contributions a node receives. Only nodes on a path
// from some `wrt` to the loss take part: `wrt` may be intermediate values (the parameters an
// unrolled step received from the previous step), and the walk stops there.
std::vector<Value> gradients(Builder& b, Value loss, const std::vector<Value>& wrt) {
  if (b.shape(loss) != Shape{1, 1})
    throw ShapeError("gradients: loss must be [1 x 1], got " + b.shape(loss).str());
  const std::size_t n = static_cast<std::size_t>(loss.id) + 1;
  std::vector<bool> is_wrt(n, false), on_path(n, false);
  int lowest = loss.id;  // nothing below the lowest wrt can be on a path (an unrolled step's graph)
  for (Value w : wrt)
    if (w.id <= loss.id) {
      is_wrt[static_cast<std::size_t>(w.id)] = on_path[static_cast<std::size_t>(w.id)] = true;
      lowest = std::min(lowest, w.id);
    }
  for (int id = lowest; id <= loss.id; ++id) {
    const Node& node = b.node(Value{id});
    if (node.leaf != LeafKind::None || is_wrt[static_cast<std::size_t>(id)]) continue;
    for (int i = 0; i < op_def(node.op).arity; ++i)
      if (on_path[static_cast<std::size_t>(node.in[i].id)])
        on_path[static_cast<std::size_t>(id)] = true;
  }
  std::vector<Value> grad(n);
  grad[static_cast<std::size_t>(loss.id)] = b.constant(Tensor({1, 1}, 1.0f));
  for (int id = loss.id; id >= lowest; --id) {
    const Value dout = grad[static_cast<std::size_t>(id)];
    if (!dout.valid() || !on_path[static_cast<std::size_t>(id)] ||
        is_wrt[static_cast<std::size_t>(id)])
      continue;
    const Node node = b.node(Value{id});  // a copy: the rule appends nodes, which may reallocate
    if (node.leaf != LeafKind::None) continue;
    const OpDef& def = op_def(node.op);
    std::array<Value, kMaxArity> din{};
    GradArgs args;
    const Value out{id};
    args.out = &out;
    args.dout = &dout;
    args.attrs = &node.attrs;
    for (int i = 0; i < def.arity; ++i) {
      args.in[i] = &node.in[i];
      if (on_path[static_cast<std::size_t>(node.in[i].id)]) args.din[i] = &din[i];
    }
    def.gradient(b, args);
    for (int i = 0; i < def.arity; ++i) {
      if (!args.din[i] || !din[i].valid()) continue;
      Value& acc = grad[static_cast<std::size_t>(node.in[i].id)];
      acc = acc.valid() ? b.add(acc, din[i]) : din[i];
    }
  }
  std::vector<Value> out;
  out.reserve(wrt.size());
  for (Value w : wrt) {
    Value g = w.id <= loss.id ? grad[static_cast<std::size_t>(w.id)] : Value{};
    out.push_back(g.valid() ? g
                            : b.constant(Tensor(b.shape(w))));  // unused parameter: zero gradient
  }
  return out;
}

}  // namespace looplab
