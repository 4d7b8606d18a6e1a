// looplab/train/mlp_reference.hpp — the floor: a one-hidden-layer MLP trained by a hand-written
// loop.
//
// No graph, no tape, no buffers per op: the forward pass, the hand-derived gradients and Adam in
// plain loops over preallocated arrays. It computes what GraphTrainer computes for
// Mlp(d, {H}, 1) with mse and Adam, so its loss curve must coincide with the other modes'.
//   z = x·W1 + b1,  h = act(z),  p = h·W2 + b2,  r = p − y,  L = mean(r²)
//   (bce: s = σ(p) clipped to [ε, 1 − ε], L = −mean(y log s + (1 − y) log(1 − s)),
//    dp = −(y/s − (1 − y)/(1 − s))·s(1 − s)/B where s is inside the clip, else 0)
//   dp = 2r/B,  dW2 = hᵀ·dp,  db2 = Σ dp,  dz = (dp·W2ᵀ) ⊙ act'(z),  dW1 = xᵀ·dz,  db1 = Σ_rows dz
//
//   ReferenceMlp ref(mlp, 1e-3);              // copies mlp's initial weights
//   float loss = ref.step(x_batch, y_batch);  // B rows
#pragma once

#include <vector>

#include "looplab/train/model.hpp"

namespace looplab {

class ReferenceMlp {
 public:
  // mlp must have one hidden layer and one output; batch is the number of rows per step.
  ReferenceMlp(const Mlp& mlp, int batch, double lr, Loss loss = Loss::Mse, double beta1 = 0.9,
               double beta2 = 0.999, double epsilon = 1e-7);
  float step(const float* x, const float* y);                      // loss before the update
  const std::vector<float>& parameters() const { return theta_; }  // W1, b1, W2, b2 flattened

 private:
  int d_, h_, batch_;
  Activation act_;
  Loss loss_;
  double lr_, beta1_, beta2_, epsilon_;
  long long t_ = 0;
  std::vector<float> theta_, grad_, m_, v_;  // all parameters as one flat vector
  std::vector<float> hidden_, dhidden_;      // [batch x H] scratch
  std::vector<double> acc_;                  // gradient accumulators
  std::size_t w1_, b1_, w2_, b2_;            // offsets into theta_
};

}  // namespace looplab
