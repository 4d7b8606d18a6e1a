// looplab/train/optim.hpp — optimizers written as graph nodes, so eager and traced runs share them.
//
// An optimizer step is a pure function of Values: (parameters, slots, gradients) -> new ones.
// The caller decides where the results go: the eager trainer copies them into the tensors, a
// traced program compiles them as assignments, and an unrolled program feeds them to the next
// step. What changes every step — the learning rate with Adam's bias correction — is an input
// tensor the host writes before each step (set_step), never a constant frozen at trace time.
//
//   Adam adam(1e-3, model.parameters());
//   adam.set_step(t, 0);                                    // host: lr_t for step t into input 0
//   OptimizerState s = adam.leaves(b, params);              // params + m, v as leaves
//   OptimizerState next = adam.apply(b, s, grads, 0);       // the update nodes
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "looplab/engine/builder.hpp"

namespace looplab {

struct OptimizerState {
  std::vector<Value> params;
  std::vector<Value> slots;  // per-parameter state (Adam: m then v for each parameter)
};

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  // The learning-rate input(s): one per step inside an unrolled program.
  void reserve_steps(int steps_per_call);
  // Host side, before a call: the effective learning rate of global step t (1-based) into input j.
  virtual void set_step(long long t, int j) = 0;
  // Leaves for the parameters (given) and this optimizer's slots.
  OptimizerState leaves(Builder& b, const std::vector<Value>& params);
  // The update nodes of one step, reading learning-rate input j.
  virtual OptimizerState apply(Builder& b, const OptimizerState& s, const std::vector<Value>& grads,
                               int j) = 0;
  // Tensors the leaves() slots refer to, in order.
  std::vector<Tensor*> slot_tensors();
  void set_learning_rate(double lr) { lr_value_ = lr; }
  // Steps taken so far (Adam's t), shared by every program that trains with this optimizer.
  long long steps_taken() const { return steps_taken_; }
  void count_steps(int k) { steps_taken_ += k; }

 protected:
  explicit Optimizer(double lr) : lr_value_(lr) { reserve_steps(1); }
  double lr_value_;
  long long steps_taken_ = 0;
  Value lr_input(Builder& b, int j) { return b.input(*lr_.at(static_cast<std::size_t>(j)), "lr"); }
  std::vector<std::unique_ptr<Tensor>> lr_;
  std::vector<std::unique_ptr<Tensor>> slots_;
};

// θ ← θ − lr·g
class Sgd final : public Optimizer {
 public:
  explicit Sgd(double lr);
  void set_step(long long t, int j) override;
  OptimizerState apply(Builder& b, const OptimizerState& s, const std::vector<Value>& grads,
                       int j) override;
};

// Adam as Keras computes it (β1 0.9, β2 0.999, ε 1e-7):
//   m ← β1·m + (1 − β1)·g,  v ← β2·v + (1 − β2)·g²,
//   θ ← θ − lr_t · m / (√v + ε),  lr_t = lr·√(1 − β2^t) / (1 − β1^t).
class Adam final : public Optimizer {
 public:
  Adam(double lr, const std::vector<Tensor*>& params, double beta1 = 0.9, double beta2 = 0.999,
       double epsilon = 1e-7);
  void set_step(long long t, int j) override;
  OptimizerState apply(Builder& b, const OptimizerState& s, const std::vector<Value>& grads,
                       int j) override;

 private:
  double beta1_, beta2_, epsilon_;
};

std::unique_ptr<Optimizer> make_optimizer(const std::string& name, double lr,
                                          const std::vector<Tensor*>& params);

}  // namespace looplab
