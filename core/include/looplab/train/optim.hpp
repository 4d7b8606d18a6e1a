// looplab/train/optim.hpp — optimizers written as graph nodes, so every mode shares them.
//
// An optimizer step is a pure function of Values: (parameters, slots, gradients) -> new ones.
// The caller decides where the results go: the eager trainer copies them into the tensors, a
// traced or compiled program compiles them as assignments, and an unrolled program feeds them to
// the next step. What changes every step — the scheduled learning rate, with Adam's bias
// correction — is an input tensor the host writes before each step (set_step), never a constant
// frozen at trace time: a program traced once follows any schedule without being traced again.
//
//   Momentum opt(0.1, model.parameters(), 0.9);             // heavy ball, β = 0.9
//   opt.set_schedule(LrSchedule::cosine(1000));             // any optimizer, any schedule
//   opt.set_step(t, 0);                                     // host: rate_at(t) into input 0
//   OptimizerState s = opt.leaves(b, params);               // params + slots as leaves
//   OptimizerState next = opt.apply(b, s, grads, 0);        // the update nodes
//
// Bad hyperparameters throw std::invalid_argument naming the parameter and its range
// ("momentum beta: must be a number in [0, 1), got 1"); an unknown make_optimizer name is a
// ConfigError (a user's choice, in every language).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "looplab/engine/builder.hpp"

namespace looplab {

// The learning rate of step t (1-based; s = t − 1 steps were taken before it) for base rate lr:
//   constant      lr
//   step          lr·γ^⌊s/every⌋                                  (PyTorch StepLR)
//   exponential   lr·γ^s                                          (PyTorch ExponentialLR)
//   cosine        lr·(f + (1 − f)·½(1 + cos(π·min(s, T)/T)))      (Keras CosineDecay, alpha = f)
// so step 1 always runs at lr, and cosine stays at f·lr from step T + 1 on.
struct LrSchedule {
  enum class Kind { Constant, Step, Exponential, Cosine };
  static LrSchedule constant() { return {}; }
  static LrSchedule step(long long every, double gamma);          // every ≥ 1, γ in (0, 1]
  static LrSchedule exponential(double gamma);                    // γ in (0, 1]
  static LrSchedule cosine(long long steps, double floor = 0.0);  // T ≥ 1, f in [0, 1]
  double rate(double lr, long long t) const;

  Kind kind = Kind::Constant;
  double gamma = 1.0;   // step, exponential
  double floor = 0.0;   // cosine: f
  long long steps = 1;  // step: every; cosine: T
};

struct OptimizerState {
  std::vector<Value> params;
  std::vector<Value> slots;  // per-parameter state (Adam: m then v for each parameter)
};

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  // The learning-rate input(s): one per step inside an unrolled program.
  void reserve_steps(int steps_per_call);
  // Host side, before a call: rate_at(t) of global step t (1-based) into input j.
  void set_step(long long t, int j);
  // The rate step t runs at: the schedule's, times Adam's bias correction.
  virtual double rate_at(long long t) const { return schedule_.rate(lr_value_, t); }
  // Leaves for the parameters (given) and this optimizer's slots.
  OptimizerState leaves(Builder& b, const std::vector<Value>& params);
  // The update nodes of one step, reading learning-rate input j.
  virtual OptimizerState apply(Builder& b, const OptimizerState& s, const std::vector<Value>& grads,
                               int j) = 0;
  // Tensors the leaves() slots refer to, in order.
  std::vector<Tensor*> slot_tensors();
  void set_learning_rate(double lr) { lr_value_ = lr; }
  void set_schedule(const LrSchedule& schedule) { schedule_ = schedule; }
  // Steps taken so far (Adam's t), shared by every program that trains with this optimizer.
  long long steps_taken() const { return steps_taken_; }
  void count_steps(int k) { steps_taken_ += k; }

 protected:
  explicit Optimizer(double lr);  // lr finite and ≥ 0
  double lr_value_;
  LrSchedule schedule_;
  long long steps_taken_ = 0;
  Value lr_input(Builder& b, int j) { return b.input(*lr_.at(static_cast<std::size_t>(j)), "lr"); }
  std::vector<std::unique_ptr<Tensor>> lr_;
  std::vector<std::unique_ptr<Tensor>> slots_;
};

// θ ← θ − α·g   (α: the step's rate)
class Sgd final : public Optimizer {
 public:
  explicit Sgd(double lr);
  OptimizerState apply(Builder& b, const OptimizerState& s, const std::vector<Value>& grads,
                       int j) override;
};

// Momentum in the form of Distill's "Why Momentum Really Works" (and PyTorch's SGD, dampening 0),
// one slot z per parameter, starting at 0:
//   heavy ball (Polyak)   z ← β·z + g,   θ ← θ − α·z
//   nesterov              z ← β·z + g,   θ ← θ − α·(g + β·z)      (with the new z)
// For a constant α, heavy ball is θ_{k+1} = θ_k − α·g_k + β·(θ_k − θ_{k−1}), and the nesterov
// form is Sutskever's look-ahead written at the look-ahead point (Keras' nesterov=True gives the
// same θ). With a schedule, α multiplies the whole z of its step (PyTorch; Keras folds each
// step's α into its velocity instead). β = 0 is plain gradient descent, bit for bit.
class Momentum final : public Optimizer {
 public:
  // β in [0, 1)
  Momentum(double lr, const std::vector<Tensor*>& params, double beta = 0.9, bool nesterov = false);
  OptimizerState apply(Builder& b, const OptimizerState& s, const std::vector<Value>& grads,
                       int j) override;

 private:
  double beta_;
  bool nesterov_;
};

// Adam as Keras computes it (β1 0.9, β2 0.999, ε 1e-7):
//   m ← β1·m + (1 − β1)·g,  v ← β2·v + (1 − β2)·g²,
//   θ ← θ − α_t · m / (√v + ε),  α_t = α·√(1 − β2^t) / (1 − β1^t)   (α: the scheduled rate).
class Adam final : public Optimizer {
 public:
  // β1, β2 in [0, 1), ε finite and > 0
  Adam(double lr, const std::vector<Tensor*>& params, double beta1 = 0.9, double beta2 = 0.999,
       double epsilon = 1e-7);
  double rate_at(long long t) const override;
  OptimizerState apply(Builder& b, const OptimizerState& s, const std::vector<Value>& grads,
                       int j) override;

 private:
  double beta1_, beta2_, epsilon_;
};

struct OptimizerOptions {
  double beta = 0.9;                                  // momentum, nesterov
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-7;  // adam
  LrSchedule schedule;                                // any
};

// "sgd" | "momentum" (heavy ball) | "nesterov" | "adam", with options' hyperparameters and
// schedule (the ones the name does not use are ignored).
std::unique_ptr<Optimizer> make_optimizer(const std::string& name, double lr,
                                          const std::vector<Tensor*>& params,
                                          const OptimizerOptions& options = {});

}  // namespace looplab
