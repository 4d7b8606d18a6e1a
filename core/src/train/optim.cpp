// optim.cpp — SGD, momentum (heavy ball, Nesterov) and Adam as update nodes; learning-rate
// schedules.
#include "looplab/train/optim.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "looplab/base/error.hpp"
#include "looplab/base/format.hpp"
#include "looplab/base/i18n.hpp"

namespace looplab {
namespace {

// "<name>: must be <allowed>, got <value>" unless ok.
void require(bool ok, const char* name, const char* allowed, double got) {
  if (!ok)
    throw std::invalid_argument(std::string(name) + ": must be " + allowed + ", got " +
                                format_number(got));
}

void require_unit_beta(double beta, const char* name) {
  require(beta >= 0.0 && beta < 1.0, name, "a number in [0, 1)", beta);
}

}  // namespace

LrSchedule LrSchedule::step(long long every, double gamma) {
  require(every >= 1, "step schedule every", "an integer >= 1", static_cast<double>(every));
  require(gamma > 0.0 && gamma <= 1.0, "step schedule gamma", "a number in (0, 1]", gamma);
  return {Kind::Step, gamma, 0.0, every};
}

LrSchedule LrSchedule::exponential(double gamma) {
  require(gamma > 0.0 && gamma <= 1.0, "exponential schedule gamma", "a number in (0, 1]", gamma);
  return {Kind::Exponential, gamma, 0.0, 1};
}

LrSchedule LrSchedule::cosine(long long steps, double floor) {
  require(steps >= 1, "cosine schedule steps", "an integer >= 1", static_cast<double>(steps));
  require(floor >= 0.0 && floor <= 1.0, "cosine schedule floor", "a number in [0, 1]", floor);
  return {Kind::Cosine, 1.0, floor, steps};
}

double LrSchedule::rate(double lr, long long t) const {
  const long long s = t - 1;  // steps taken before step t
  switch (kind) {
    case Kind::Constant:
      return lr;
    case Kind::Step:
      return lr * std::pow(gamma, static_cast<double>(s / steps));
    case Kind::Exponential:
      return lr * std::pow(gamma, static_cast<double>(s));
    case Kind::Cosine: {
      const double done = static_cast<double>(std::min(s, steps)) / static_cast<double>(steps);
      return lr * (floor + (1.0 - floor) * 0.5 * (1.0 + std::cos(std::acos(-1.0) * done)));
    }
  }
  return lr;
}

Optimizer::Optimizer(double lr) : lr_value_(lr) {
  require(std::isfinite(lr) && lr >= 0.0, "lr", "a finite number >= 0", lr);
  reserve_steps(1);
}

void Optimizer::reserve_steps(int steps_per_call) {
  while (static_cast<int>(lr_.size()) < steps_per_call)
    lr_.push_back(std::make_unique<Tensor>(Shape{1, 1}));
}

void Optimizer::set_step(long long t, int j) {
  (*lr_.at(static_cast<std::size_t>(j)))[0] = static_cast<float>(rate_at(t));
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

OptimizerState Sgd::apply(Builder& b, const OptimizerState& s, const std::vector<Value>& grads,
                          int j) {
  OptimizerState next = s;
  const Value lr = lr_input(b, j);
  for (std::size_t i = 0; i < s.params.size(); ++i)
    next.params[i] = b.sub(s.params[i], b.mul_scalar(grads[i], lr));
  return next;
}

Momentum::Momentum(double lr, const std::vector<Tensor*>& params, double beta, bool nesterov)
    : Optimizer(lr), beta_(beta), nesterov_(nesterov) {
  require_unit_beta(beta, nesterov ? "nesterov beta" : "momentum beta");
  for (Tensor* p : params) slots_.push_back(std::make_unique<Tensor>(p->shape()));  // z
}

OptimizerState Momentum::apply(Builder& b, const OptimizerState& s, const std::vector<Value>& grads,
                               int j) {
  OptimizerState next = s;
  const Value lr = lr_input(b, j);
  const float beta = static_cast<float>(beta_);
  for (std::size_t i = 0; i < s.params.size(); ++i) {
    // NOTE: β = 0 keeps the nodes (0·z + g is g exactly), so the program is GD's plus dead weight
    // rather than a different program: that is what makes the bit-for-bit test meaningful.
    const Value z = b.add(b.scale(s.slots[i], beta), grads[i]);
    const Value step = nesterov_ ? b.add(grads[i], b.scale(z, beta)) : z;
    next.params[i] = b.sub(s.params[i], b.mul_scalar(step, lr));
    next.slots[i] = z;
  }
  return next;
}

Adam::Adam(double lr, const std::vector<Tensor*>& params, double beta1, double beta2,
           double epsilon)
    : Optimizer(lr), beta1_(beta1), beta2_(beta2), epsilon_(epsilon) {
  require_unit_beta(beta1, "adam beta1");
  require_unit_beta(beta2, "adam beta2");
  require(std::isfinite(epsilon) && epsilon > 0.0, "adam epsilon", "a finite number > 0", epsilon);
  for (Tensor* p : params) slots_.push_back(std::make_unique<Tensor>(p->shape()));  // m
  for (Tensor* p : params) slots_.push_back(std::make_unique<Tensor>(p->shape()));  // v
}

double Adam::rate_at(long long t) const {
  const double td = static_cast<double>(t);
  return schedule_.rate(lr_value_, t) * std::sqrt(1.0 - std::pow(beta2_, td)) /
         (1.0 - std::pow(beta1_, td));
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
                                          const std::vector<Tensor*>& params,
                                          const OptimizerOptions& options) {
  std::unique_ptr<Optimizer> opt;
  if (name == "sgd") opt = std::make_unique<Sgd>(lr);
  if (name == "momentum" || name == "nesterov")
    opt = std::make_unique<Momentum>(lr, params, options.beta, name == "nesterov");
  if (name == "adam")
    opt = std::make_unique<Adam>(lr, params, options.beta1, options.beta2, options.epsilon);
  if (!opt)
    refuse("err.must_be",
           {{"name", "optimizer"},
            {"allowed", msg("allowed.one_of", {{"choices", "sgd | momentum | nesterov | adam"}})},
            {"got", "\"" + name + "\""}});
  opt->set_schedule(options.schedule);
  return opt;
}

}  // namespace looplab
