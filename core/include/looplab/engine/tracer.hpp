// looplab/engine/tracer.hpp — a Builder that only records: the step as a graph, to compile.
//
// The same model, loss, autodiff and optimizer code that runs eagerly produces a graph here; no
// op is computed. compile() (program.hpp) turns the graph into a Program. Leaves keep a pointer
// to the caller's data (inputs, parameters, optimizer state) or a copy (constants).
//
//   Tracer t;
//   Value x = t.input(x_data, "x"), w = t.parameter(weights, "W");
//   Value loss = t.mse(t.matmul(x, w), t.input(y_data, "y"));
//   auto g = gradients(t, loss, {w});   // appends the gradient nodes to t
#pragma once

#include <memory>
#include <vector>

#include "looplab/engine/builder.hpp"

namespace looplab {

class Tracer final : public Builder {
 public:
  // The data a leaf refers to: the caller's tensor for inputs and parameters, a copy for constants.
  const float* leaf_data(Value v) const { return leaf_ptr_.at(static_cast<std::size_t>(v.id)); }
  // The tensor of a parameter or state leaf (what an update may write); throws ShapeError for any
  // other node.
  float* parameter_data(Value v) const;

 private:
  void on_leaf(Value v, const float* data, Tensor* writable, Tensor* owned) override;
  void on_op(Value v) override;

  std::vector<const float*> leaf_ptr_;  // node id -> data (nullptr for op nodes)
  std::vector<Tensor*> params_;         // node id -> parameter tensor (nullptr otherwise)
  std::vector<std::unique_ptr<Tensor>> constants_;
};

}  // namespace looplab
