// looplab/engine/builder.hpp — the API models are written against.
//
// A model builds its computation by calling Builder methods; it never touches numbers itself.
// Which executor runs it is the Builder's business: the EagerBuilder computes every op the moment
// it is built (and records a tape), a tracing builder only records the graph. Autodiff
// (gradients()) walks the recorded nodes backwards and appends gradient nodes through the same
// Builder, so one gradient rule per op serves both executors.
//
//   Value x = b.input(x_data, "x"), y = b.input(y_data, "y");
//   Value w = b.parameter(weights, "W");
//   Value loss = b.mse(b.matmul(x, w), y);
//   std::vector<Value> g = gradients(b, loss, {w});
#pragma once

#include <array>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "looplab/base/tensor.hpp"
#include "looplab/engine/ops.hpp"

namespace looplab {

// A handle to a node of one Builder.
struct Value {
  int id = -1;
  bool valid() const { return id >= 0; }
};

enum class LeafKind { None, Input, Parameter, State, Constant };

struct Node {
  LeafKind leaf = LeafKind::None;  // None: the node is an op applied to `in`
  OpKind op = OpKind::Add;
  std::array<Value, kMaxArity> in{};
  OpAttrs attrs{};
  Shape shape{};
  bool requires_grad = false;  // a parameter, or an op with such an input
  std::string name;            // leaves only
};

// Shapes that do not fit an op. Models built from valid configs never raise it.
struct ShapeError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

class Builder {
 public:
  virtual ~Builder() = default;

  // Leaves. Inputs and parameters refer to the caller's tensors (which must outlive the builder);
  // constants are copied.
  Value input(const Tensor& t, std::string_view name) { return input(t.data(), t.shape(), name); }
  Value input(const float* data, Shape shape,
              std::string_view name);  // e.g. a batch inside a tensor
  Value parameter(Tensor& t, std::string_view name);
  Value state(Tensor& t,
              std::string_view name);  // written by updates, no gradient (optimizer slots)
  Value constant(Tensor t);

  Value apply(OpKind op, std::array<Value, kMaxArity> in, const OpAttrs& attrs = {});

  // Primitives.
  Value matmul(Value a, Value b, bool transpose_a = false, bool transpose_b = false);
  Value add_row(Value a, Value row) { return apply(OpKind::AddRow, {a, row}); }
  Value add(Value a, Value b) { return apply(OpKind::Add, {a, b}); }
  Value sub(Value a, Value b) { return apply(OpKind::Sub, {a, b}); }
  Value mul(Value a, Value b) { return apply(OpKind::Mul, {a, b}); }
  Value scale(Value a, float s);
  Value mul_scalar(Value a, Value s) { return apply(OpKind::MulScalar, {a, s}); }  // s is [1 x 1]
  Value square(Value a) { return apply(OpKind::Square, {a}); }
  Value mean(Value a) { return apply(OpKind::Mean, {a}); }
  Value sum_rows(Value a) { return apply(OpKind::SumRows, {a}); }
  Value sum(Value a) { return apply(OpKind::Sum, {a}); }
  Value fill(Value scalar, Value like) {
    return apply(OpKind::Fill, {scalar, like});
  }  // shape of like
  Value repeat_rows(Value row, Value like) {
    return apply(OpKind::RepeatRows, {row, like});
  }  // shape of like
  Value add_const(Value a, float c);
  Value sub_from(float c, Value a);  // c − a
  Value div(Value a, Value b) { return apply(OpKind::Div, {a, b}); }
  Value sqrt(Value a) { return apply(OpKind::Sqrt, {a}); }
  Value tanh(Value a) { return apply(OpKind::Tanh, {a}); }
  Value sigmoid(Value a) { return apply(OpKind::Sigmoid, {a}); }
  Value relu(Value a) { return apply(OpKind::Relu, {a}); }
  Value log(Value a) { return apply(OpKind::Log, {a}); }
  Value clip(Value a, float lo, float hi);
  Value softplus(Value a) { return apply(OpKind::Softplus, {a}); }
  // x [batch·length x channels] (ops.hpp, Window): its windows, its steps' mean per sequence.
  Value window_gather(Value x, const Window& w);
  Value global_average_pool(Value x, int length);
  // x with elements dropped at `rate` (the rest scaled by 1 / (1 − rate)), the mask drawn from
  // (seed, the step number in the [1 x 1] `step`, the element): dropout_keeps in ops.hpp.
  Value dropout(Value x, Value step, float rate, std::uint32_t seed);

  // Compositions (no gradient rules of their own).
  Value mse(Value prediction, Value target) { return mean(square(sub(prediction, target))); }
  // Binary cross-entropy of probabilities p against 0/1 targets y, with p clipped to [ε, 1 − ε]
  // (ε = 1e-7, as Keras does): −mean(y·log p + (1 − y)·log(1 − p)).
  Value bce(Value p, Value y);
  Value dense(Value x, Value w, Value bias) { return add_row(matmul(x, w), bias); }
  // Binary cross-entropy of logits z against 0/1 targets y, stable for any z (Keras's
  // from_logits=True): mean(softplus(z) − y·z), since −ln σ(z) = softplus(−z) = softplus(z) − z.
  Value bce_logits(Value z, Value y);
  // Conv1D: the windows of x times w [kernel·channels x filters], plus the bias row (1 x filters).
  Value conv1d(Value x, Value w, Value bias, const Window& win) {
    return add_row(matmul(window_gather(x, win), w), bias);
  }

  const Node& node(Value v) const { return nodes_.at(static_cast<std::size_t>(v.id)); }
  Shape shape(Value v) const { return node(v).shape; }
  int size() const { return static_cast<int>(nodes_.size()); }

 protected:
  // Called once for every node right after it is recorded; the eager builder computes it here.
  // Leaves: `data` is what they read; `writable` is the tensor of a parameter or state leaf (which
  // updates may write); `owned` is a constant's tensor, to be moved from.
  virtual void on_leaf(Value v, const float* data, Tensor* writable, Tensor* owned) = 0;
  virtual void on_op(Value v) = 0;

 private:
  Value push(Node n);
  Value leaf(LeafKind kind, Shape shape, std::string_view name, const float* data, Tensor* writable,
             Tensor* owned);
  std::vector<Node> nodes_;
};

// Reverse-mode autodiff: appends the gradient of the scalar `loss` with respect to each of `wrt`
// to the builder and returns their Values (in the order of `wrt`).
std::vector<Value> gradients(Builder& b, Value loss, const std::vector<Value>& wrt);

}  // namespace looplab
