// model.cpp — the MLP and activations.
#include "looplab/train/model.hpp"

#include <cmath>

#include "looplab/base/error.hpp"
#include "looplab/base/i18n.hpp"

namespace looplab {

std::vector<Value> Model::parameter_leaves(Builder& b) {
  std::vector<Value> out;
  for (Tensor* t : parameters()) out.push_back(b.parameter(*t, "param"));
  return out;
}

Loss parse_loss(const std::string& name) {
  if (name == "mse") return Loss::Mse;
  if (name == "bce") return Loss::Bce;
  refuse("err.must_be", {{"name", "loss"},
                         {"allowed", msg("allowed.one_of", {{"choices", "mse | bce"}})},
                         {"got", "\"" + name + "\""}});
}

Value loss_of(Builder& b, Loss loss, Value output, Value target) {
  switch (loss) {
    case Loss::Mse:
      return b.mse(output, target);
    case Loss::Bce:
      return b.bce(b.sigmoid(output), target);
    case Loss::BceLogits:
      return b.bce_logits(output, target);
  }
  return b.mse(output, target);
}

Activation parse_activation(const std::string& name) {
  if (name == "tanh") return Activation::Tanh;
  if (name == "relu") return Activation::Relu;
  if (name == "sigmoid") return Activation::Sigmoid;
  if (name == "linear") return Activation::Linear;
  refuse("err.must_be",
         {{"name", "activation"},
          {"allowed", msg("allowed.one_of", {{"choices", "tanh | relu | sigmoid | linear"}})},
          {"got", "\"" + name + "\""}});
}

Value activate(Builder& b, Value x, Activation a) {
  switch (a) {
    case Activation::Tanh:
      return b.tanh(x);
    case Activation::Relu:
      return b.relu(x);
    case Activation::Sigmoid:
      return b.sigmoid(x);
    case Activation::Linear:
      return x;
  }
  return x;
}

Mlp::Mlp(int inputs, const std::vector<int>& hidden, int outputs, Activation activation, Rng& rng)
    : activation_(activation) {
  std::vector<int> sizes = {inputs};
  sizes.insert(sizes.end(), hidden.begin(), hidden.end());
  sizes.push_back(outputs);
  for (std::size_t l = 0; l + 1 < sizes.size(); ++l) {
    Tensor w({sizes[l], sizes[l + 1]});
    const double limit = std::sqrt(6.0 / (sizes[l] + sizes[l + 1]));
    for (std::size_t i = 0; i < w.size(); ++i)
      w[i] = static_cast<float>(rng.uniform(-limit, limit));
    tensors_.push_back(std::move(w));
    tensors_.emplace_back(Shape{1, sizes[l + 1]});
  }
}

std::vector<Tensor*> Mlp::parameters() {
  std::vector<Tensor*> out;
  for (Tensor& t : tensors_) out.push_back(&t);
  return out;
}

Value Mlp::forward(Builder& b, Value x, const std::vector<Value>& params) const {
  Value h = x;
  const std::size_t layers = params.size() / 2;
  for (std::size_t l = 0; l < layers; ++l) {
    h = b.dense(h, params[2 * l], params[2 * l + 1]);
    if (l + 1 < layers) h = activate(b, h, activation_);
  }
  return h;
}

}  // namespace looplab
