// train.cpp — the eager and reference linear-regression steps.
#include "looplab/train.hpp"

#include "looplab/api.hpp"
#include "looplab/eager.hpp"

namespace looplab {

Mode parse_mode(const std::string& name) {
  if (name == "eager") return Mode::Eager;
  if (name == "reference") return Mode::Reference;
  throw ConfigError("mode: must be one of eager | reference, got \"" + name + "\"");
}

std::string mode_name(Mode mode) { return mode == Mode::Eager ? "eager" : "reference"; }

void sgd_update(const std::vector<Tensor*>& params, const std::vector<const float*>& grads, float lr) {
  for (std::size_t p = 0; p < params.size(); ++p) {
    float* w = params[p]->data();
    const float* g = grads[p];
    const std::size_t n = params[p]->size();
    for (std::size_t i = 0; i < n; ++i) w[i] -= lr * g[i];
  }
}

namespace {

class EagerLinearTrainer final : public LinearTrainer {
 public:
  EagerLinearTrainer(const Tensor& x, const Tensor& y) : x_(x), y_(y), model_(x.shape().cols) {}

  float step(float lr) override {
    EagerBuilder b;
    const std::vector<Tensor*> params = model_.parameters();
    std::vector<Value> p;
    p.push_back(b.parameter(*params[0], "W"));
    p.push_back(b.parameter(*params[1], "b"));
    const Value loss = b.mse(model_.forward(b, b.input(x_, "x"), p), b.input(y_, "y"));
    const std::vector<Value> g = gradients(b, loss, p);
    const float value = b.scalar(loss);
    sgd_update(params, {b.data(g[0]), b.data(g[1])}, lr);
    return value;
  }
  LinearWeights weights() const override { return model_.weights(); }
  void read_theta(double* theta) const override { model_.read_theta(theta); }

 private:
  const Tensor& x_;
  const Tensor& y_;
  LinearRegression model_;
};

class ReferenceLinearTrainer final : public LinearTrainer {
 public:
  ReferenceLinearTrainer(const Tensor& x, const Tensor& y) : x_(x.data()), y_(y.data()), n_(x.shape().rows) {
    if (x.shape().cols != 1) throw ShapeError("reference loop: one feature only, got " + x.shape().str());
  }

  float step(float lr) override {
    // Sums in double, as the framework's reductions (see ops.cpp), so the modes agree to rounding.
    double sum_r = 0.0, sum_rx = 0.0, sum_rr = 0.0;
    for (int i = 0; i < n_; ++i) {
      const float r = w_ * x_[i] + b_ - y_[i];
      sum_r += r;
      sum_rx += static_cast<double>(r) * x_[i];
      sum_rr += static_cast<double>(r) * r;
    }
    const float grad_w = static_cast<float>(2.0 * sum_rx / n_);
    const float grad_b = static_cast<float>(2.0 * sum_r / n_);
    w_ -= lr * grad_w;
    b_ -= lr * grad_b;
    return static_cast<float>(sum_rr / n_);
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
  if (mode == Mode::Eager) return std::make_unique<EagerLinearTrainer>(x, y);
  return std::make_unique<ReferenceLinearTrainer>(x, y);
}

}  // namespace looplab
