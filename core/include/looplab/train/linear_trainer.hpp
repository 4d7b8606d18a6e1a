// looplab/train/linear_trainer.hpp — one gradient-descent step of linear regression, per execution
// mode.
//
// Every mode computes the same thing: the loss L(θ) = mse(x·W + b, y) at the current weights,
// its gradient, and the SGD update θ ← θ − lr·∇L. What differs is how:
//   eager      the LinearRegression model is built op by op on a fresh EagerBuilder each step
//              (fresh buffers, a tape, reverse-mode autodiff), as an eager framework does;
//   traced     the same model code runs once on a Tracer; autodiff and SGD append their nodes;
//              the graph is compiled to a Program that each step replays without allocating;
//   reference  a hand-written loop with hand-derived gradients, the seed's NumPy loop done in C++:
//              one pass computes r_i = W·x_i + b − y_i, ∂L/∂W = (2/n) Σ r_i x_i, ∂L/∂b = (2/n) Σ
//              r_i.
//
//   auto t = make_linear_trainer(Mode::Eager, x, y);
//   float loss = t->step(1e-4f);            // loss before the update
//   LinearWeights w = t->weights();
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "looplab/base/json.hpp"
#include "looplab/train/linear.hpp"
#include "looplab/train/mode.hpp"

namespace looplab {

class LinearTrainer {
 public:
  virtual ~LinearTrainer() = default;
  virtual float step(float lr) = 0;  // returns the loss at the weights before the update
  virtual LinearWeights weights() const = 0;
  // θ = (W_1..W_d, b) into `theta` (d + 1 doubles), without allocating.
  virtual void read_theta(double* theta) const = 0;
  // What it cost to get ready (traced: trace and compile times, program size); empty otherwise.
  virtual json setup_info() const { return json::object(); }
};

// x [n x 1] and y [n x 1] must outlive the trainer. Weights start at zero.
std::unique_ptr<LinearTrainer> make_linear_trainer(Mode mode, const Tensor& x, const Tensor& y);

}  // namespace looplab
