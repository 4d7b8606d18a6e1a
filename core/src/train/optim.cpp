// optim.cpp — SGD and Adam as update nodes.
#include "looplab/train/optim.hpp"

#include <cmath>

#include "looplab/base/error.hpp"
#include "looplab/base/i18n.hpp"

namespace looplab {

void Optimizer::reserve_steps(int steps_per_call) {
  while (static_cast<int>(lr_.size()) < steps_per_call)
    lr_.push_back(std::make_unique<Tensor>(Shape{1, 1}));
}

OptimizerState Optimizer::leaves(Builder& b, const std::vector<Value>& params) {
  OptimizerState s{params, {}};
  for (auto& t : slots_) s.slots.push_back(b.state(*t, "slot"));
  return s;
}

std::vector<Tensor*> Optimizer::slot_tensors() {
  std::vector<Tensor*> out;
  for (auto& t : slots_) out.push_back(t.get());
  return out;
}

Sgd::Sgd(double lr) : Optimizer(lr) {}

void Sgd::set_step(long long, int j) {
  (*lr_.at(static_cast<std::size_t>(j)))[0] = static_cast<float>(lr_value_);
}

OptimizerState Sgd::apply(Builder& b, const OptimizerState& s, const std::vector<Value>& grads,
                          int j) {
  OptimizerState next = s;
  const Value lr = lr_input(b, j);
  for (std::size_t i = 0; i < s.params.size(); ++i)
    next.params[i] = b.sub(s.params[i], b.mul_scalar(grads[i], lr));
  return next;
}

Adam::Adam(double lr, const std::vector<Tensor*>& params, double beta1, double beta2,
           double epsilon)
    : Optimizer(lr), beta1_(beta1), beta2_(beta2), epsilon_(epsilon) {
  for (Tensor* p : params) slots_.push_back(std::make_unique<Tensor>(p->shape()));  // m
  for (Tensor* p : params) slots_.push_back(std::make_unique<Tensor>(p->shape()));  // v
}

void Adam::set_step(long long t, int j) {
  const double td = static_cast<double>(t);
  const double lr_t =
      lr_value_ * std::sqrt(1.0 - std::pow(beta2_, td)) / (1.0 - std::pow(beta1_, td));
  (*lr_.at(static_cast<std::size_t>(j)))[0] = static_cast<float>(lr_t);
}

OptimizerState Adam::apply(Builder& b, const OptimizerState& s, const std::vector<Value>& grads,
                           int j) {
  OptimizerState next = s;
  const Value lr_t = lr_input(b, j);
  const std::size_t n = s.params.size();
  const float b1 = static_cast<float>(beta1_), b2 = static_cast<float>(beta2_);
  for (std::size_t i = 0; i < n; ++i) {
    const Value m = b.add(b.scale(s.slots[i], b1), b.scale(grads[i], 1.0f - b1));
    const Value v = b.add(b.scale(s.slots[n + i], b2), b.scale(b.square(grads[i]), 1.0f - b2));
    const Value step = b.div(m, b.add_const(b.sqrt(v), static_cast<float>(epsilon_)));
    next.params[i] = b.sub(s.params[i], b.mul_scalar(step, lr_t));
    next.slots[i] = m;
    next.slots[n + i] = v;
  }
  return next;
}

std::unique_ptr<Optimizer> make_optimizer(const std::string& name, double lr,
                                          const std::vector<Tensor*>& params) {
  if (name == "sgd") return std::make_unique<Sgd>(lr);
  if (name == "adam") return std::make_unique<Adam>(lr, params);
  throw ConfigError(
      msg("err.must_be", {{"name", "optimizer"},
                          {"allowed", msg("allowed.one_of", {{"choices", "sgd | adam"}})},
                          {"got", "\"" + name + "\""}}));
}

}  // namespace looplab
