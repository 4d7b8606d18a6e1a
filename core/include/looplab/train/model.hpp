// looplab/train/model.hpp — models are written once against the Builder.
//
// A model owns its parameter tensors and says how to compute a prediction from an input batch
// and the current parameter Values. It never computes numbers itself, so the same model code
// runs eagerly, is traced into a program, or is unrolled k times into one program.
//
//   Rng rng(1);
//   Mlp mlp(1, {20}, 1, Activation::Tanh, rng);    // Dense(20, tanh) -> Dense(1)
//   Value y = mlp.forward(b, x, params);             // params: Values for mlp.parameters()
#pragma once

#include <string>
#include <vector>

#include "looplab/base/rng.hpp"
#include "looplab/engine/builder.hpp"

namespace looplab {

class Model {
 public:
  virtual ~Model() = default;
  virtual std::vector<Tensor*> parameters() = 0;
  virtual Value forward(Builder& b, Value x, const std::vector<Value>& params) const = 0;
  // A training step's forward pass, given its number t as a [1 x 1] Value the trainer writes
  // before each step (dropout draws its mask from it). Only a model that uses_step() reads it.
  virtual Value forward_at(Builder& b, Value x, const std::vector<Value>& params, Value) const {
    return forward(b, x, params);
  }
  virtual bool uses_step() const { return false; }
  std::vector<Value> parameter_leaves(Builder& b);  // one Parameter leaf per tensor
};

// The training loss: mse on the model's output, or binary cross-entropy on sigmoid(output).
// BceLogits: binary cross-entropy from the output as a logit, computed stably (seed 001's models).
enum class Loss { Mse, Bce, BceLogits };
Loss parse_loss(const std::string& name);  // mse | bce
Value loss_of(Builder& b, Loss loss, Value output, Value target);

enum class Activation { Tanh, Relu, Sigmoid, Linear };
Activation parse_activation(const std::string& name);  // tanh | relu | sigmoid | linear
Value activate(Builder& b, Value x, Activation a);

// Dense layers: h ← act(h·W + b) for each hidden size, then a linear output layer.
// W is Glorot-uniform, U(−√(6/(fan_in + fan_out)), +√(…)), from the given Rng; b starts at 0.
class Mlp final : public Model {
 public:
  Mlp(int inputs, const std::vector<int>& hidden, int outputs, Activation activation, Rng& rng);
  std::vector<Tensor*> parameters() override;
  Value forward(Builder& b, Value x, const std::vector<Value>& params) const override;
  const std::vector<Tensor>& tensors() const { return tensors_; }  // W0, b0, W1, b1, ...
  Activation activation() const { return activation_; }

 private:
  std::vector<Tensor> tensors_;
  Activation activation_;
};

}  // namespace looplab
