// looplab/engine/eager.hpp — the eager executor: run each op the moment it is built.
//
// Like an eager framework, every op gets a fresh output buffer and is computed at once; the
// recorded nodes are the tape, and gradients() walks it backwards, computing each gradient op
// eagerly too. Build a new EagerBuilder for every step: its allocations and bookkeeping are the
// per-step overhead eager execution really pays.
//
//   EagerBuilder b;
//   Value loss = b.mse(b.dense(b.input(x, "x"), b.parameter(w, "W"), b.parameter(c, "b")), ...);
//   auto g = gradients(b, loss, {...});
//   float l = b.scalar(loss);  const float* gw = b.data(g[0]);
#pragma once

#include <memory>
#include <vector>

#include "looplab/engine/builder.hpp"

namespace looplab {

class EagerBuilder final : public Builder {
 public:
  const float* data(Value v) const { return ptr_.at(static_cast<std::size_t>(v.id)); }
  float scalar(Value v) const { return data(v)[0]; }
  ConstMatrixMap matrix(Value v) const { return as_matrix(data(v), shape(v)); }

 private:
  void on_leaf(Value v, const float* data, Tensor* writable, Tensor* owned) override;
  void on_op(Value v) override;

  std::vector<const float*> ptr_;                  // node id -> its data
  std::vector<std::unique_ptr<float[]>> buffers_;  // fresh buffers of computed nodes
  std::vector<std::unique_ptr<Tensor>> constants_;
};

}  // namespace looplab
