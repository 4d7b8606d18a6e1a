// looplab/train/mlp_reference.hpp — the floor: a one-hidden-layer MLP trained by a hand-written
// loop.
//
// No graph, no tape, no buffers per op: what a careful engineer writes. One pass over the rows in
// SIMD-wide blocks (a row per lane), each block's hidden layer kept in cache from its forward pass
// to its gradients, float32 throughout with per-lane gradient sums, the activation a template
// argument; then Adam over the flat parameters. It computes what GraphTrainer computes for
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

#include "looplab/train/hand_adam.hpp"
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
  template <Activation A>
  float step_rows(const float* x, const float* y);

  int d_, h_, batch_;
  Activation act_;
  Loss loss_;
  HandAdam adam_;
  long long t_ = 0;
  std::vector<float> theta_, grad_, m_, v_;  // all parameters as one flat vector
  std::vector<float> work_;        // a block of rows' x and h, per-lane gradient and loss sums
  std::size_t w1_, b1_, w2_, b2_;  // offsets into theta_
};

}  // namespace looplab
