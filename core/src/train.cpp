// train.cpp — the eager and reference linear-regression steps.
#include "looplab/train.hpp"

#include <algorithm>

#include "looplab/api.hpp"
#include "looplab/eager.hpp"
#include "looplab/results.hpp"
#include "looplab/trace.hpp"

namespace looplab {

Mode parse_mode(const std::string& name) {
  if (name == "eager") return Mode::Eager;
  if (name == "traced") return Mode::Traced;
  if (name == "reference") return Mode::Reference;
  throw ConfigError("mode: must be one of eager | traced | reference, got \"" + name + "\"");
}

std::string mode_name(Mode mode) {
  switch (mode) {
    case Mode::Eager: return "eager";
    case Mode::Traced: return "traced";
    case Mode::Reference: return "reference";
  }
  return "?";
}

namespace {

class EagerLinearTrainer final : public LinearTrainer {
 public:
  EagerLinearTrainer(const Tensor& x, const Tensor& y) : x_(x), y_(y), model_(x.shape().cols) {}

  float step(float lr) override {
    lr_[0] = lr;
    EagerBuilder b;
    const std::vector<Tensor*> params = model_.parameters();
    const std::vector<Value> p = {b.parameter(*params[0], "W"), b.parameter(*params[1], "b")};
    const Value loss = b.mse(model_.forward(b, b.input(x_, "x"), p), b.input(y_, "y"));
    const std::vector<Value> g = gradients(b, loss, p);
    const float value = b.scalar(loss);
    // The same SGD nodes the traced program compiles, computed eagerly, then written back.
    const std::vector<Assign> updates = sgd_assignments(b, p, g, b.input(lr_, "lr"));
    for (std::size_t i = 0; i < params.size(); ++i)
      std::copy(b.data(updates[i].value), b.data(updates[i].value) + params[i]->size(), params[i]->data());
    return value;
  }
  LinearWeights weights() const override { return model_.weights(); }
  void read_theta(double* theta) const override { model_.read_theta(theta); }

 private:
  const Tensor& x_;
  const Tensor& y_;
  LinearRegression model_;
  Tensor lr_{{1, 1}};
};

// Traces the step once in the constructor; every step() replays the compiled program.
class TracedLinearTrainer final : public LinearTrainer {
 public:
  TracedLinearTrainer(const Tensor& x, const Tensor& y) : model_(x.shape().cols) {
    const Stopwatch watch;
    Tracer t;
    const std::vector<Tensor*> params = model_.parameters();
    const std::vector<Value> p = {t.parameter(*params[0], "W"), t.parameter(*params[1], "b")};
    const Value loss = t.mse(model_.forward(t, t.input(x, "x"), p), t.input(y, "y"));
    const std::vector<Value> g = gradients(t, loss, p);
    const std::vector<Assign> updates = sgd_assignments(t, p, g, t.input(lr_, "lr"));
    trace_ms_ = watch.elapsed_ms();
    program_ = compile(t, {loss}, updates);
  }

  float step(float lr) override {
    lr_[0] = lr;  // a program input: changing it needs no retrace
    program_.run();
    return program_.output(0);
  }
  LinearWeights weights() const override { return model_.weights(); }
  void read_theta(double* theta) const override { model_.read_theta(theta); }
  json setup_info() const override {
    const CompileStats& s = program_.stats();
    return {{"trace_ms", trace_ms_},
            {"compile_ms", s.compile_ms},
            {"nodes_traced", s.nodes_traced},
            {"nodes_live", s.nodes_live},
            {"instructions", s.instructions},
            {"arena_bytes", s.arena_bytes},
            {"unplanned_bytes", s.unplanned_bytes},
            {"flops_per_step", s.flops_per_step}};
  }

 private:
  LinearRegression model_;
  Tensor lr_{{1, 1}};
  Program program_;
  double trace_ms_ = 0.0;
};

class ReferenceLinearTrainer final : public LinearTrainer {
 public:
  ReferenceLinearTrainer(const Tensor& x, const Tensor& y) : x_(x.data()), y_(y.data()), n_(x.shape().rows) {
    if (x.shape().cols != 1) throw ShapeError("reference loop: one feature only, got " + x.shape().str());
  }

  float step(float lr) override {
    // Sums in double, as the framework's reductions (see ops.cpp), so the modes agree to rounding.
    // NOTE: kLanes independent partial sums break the add-latency chain and let the compiler
    // vectorize; one running sum would be latency-bound at ~4 cycles per point.
    constexpr int kLanes = 8;
    double sum_r[kLanes] = {}, sum_rx[kLanes] = {}, sum_rr[kLanes] = {};
    int i = 0;
    for (; i + kLanes <= n_; i += kLanes)
      for (int l = 0; l < kLanes; ++l) {
        const float r = w_ * x_[i + l] + b_ - y_[i + l];
        sum_r[l] += r;
        sum_rx[l] += static_cast<double>(r) * x_[i + l];
        sum_rr[l] += static_cast<double>(r) * r;
      }
    for (; i < n_; ++i) {
      const float r = w_ * x_[i] + b_ - y_[i];
      sum_r[0] += r;
      sum_rx[0] += static_cast<double>(r) * x_[i];
      sum_rr[0] += static_cast<double>(r) * r;
    }
    double r_total = 0.0, rx_total = 0.0, rr_total = 0.0;
    for (int l = 0; l < kLanes; ++l) {
      r_total += sum_r[l];
      rx_total += sum_rx[l];
      rr_total += sum_rr[l];
    }
    const float grad_w = static_cast<float>(2.0 * rx_total / n_);
    const float grad_b = static_cast<float>(2.0 * r_total / n_);
    w_ -= lr * grad_w;
    b_ -= lr * grad_b;
    return static_cast<float>(rr_total / n_);
  }
  LinearWeights weights() const override { return {{w_}, b_}; }
  void read_theta(double* theta) const override {
    theta[0] = w_;
    theta[1] = b_;
  }

 private:
  const float* x_;
  const float* y_;
  int n_;
  float w_ = 0.0f, b_ = 0.0f;
};

}  // namespace

std::unique_ptr<LinearTrainer> make_linear_trainer(Mode mode, const Tensor& x, const Tensor& y) {
  switch (mode) {
    case Mode::Eager: return std::make_unique<EagerLinearTrainer>(x, y);
    case Mode::Traced: return std::make_unique<TracedLinearTrainer>(x, y);
    case Mode::Reference: return std::make_unique<ReferenceLinearTrainer>(x, y);
  }
  return nullptr;
}

}  // namespace looplab
