// session.cpp — train_on_batch (a copy and one step per call) and fit (the loop in the core).
#include "looplab/train/session.hpp"

#include <algorithm>
#include <cmath>

#include "looplab/base/error.hpp"

namespace looplab {

TrainerSession::TrainerSession(const SessionConfig& c)
    : config_(c),
      staged_x_(static_cast<std::size_t>(c.batch) * static_cast<std::size_t>(c.example_floats())),
      staged_y_(static_cast<std::size_t>(c.batch)) {
  Rng init(c.seed + 1);
  if (c.conv) {
    auto net = std::make_unique<ConvNet>(*c.conv, init);
    if (c.mode == Mode::Reference) {
      reference_conv_ = std::make_unique<ReferenceConvNet>(*net, c.batch, c.lr);
      return;  // the loop holds its own copy of the weights: the model goes
    }
    model_ = std::move(net);
    adam_ = std::make_unique<Adam>(c.lr, model_->parameters());
    graph_ = std::make_unique<GraphTrainer>(c.mode, *model_, *adam_,
                                            Shape{c.batch * c.conv->length, c.conv->channels},
                                            Shape{c.batch, 1}, 1, true, Loss::BceLogits);
    return;
  }
  auto mlp = std::make_unique<Mlp>(c.inputs, std::vector<int>{c.hidden}, 1, c.activation, init);
  if (c.mode == Mode::Reference) {
    reference_ = std::make_unique<ReferenceMlp>(*mlp, c.batch, c.lr, c.loss);
  } else {
    adam_ = std::make_unique<Adam>(c.lr, mlp->parameters());
    graph_ = std::make_unique<GraphTrainer>(c.mode, *mlp, *adam_, Shape{c.batch, c.inputs},
                                            Shape{c.batch, 1}, 1, true, c.loss);
  }
  model_ = std::move(mlp);
}

float TrainerSession::step(const float* x, const float* y) {
  ++steps_;
  if (reference_) return reference_->step(x, y);
  if (reference_conv_) return reference_conv_->step(x, y);
  float loss = 0.0f;
  graph_->run(&x, &y, &loss);
  return loss;
}

float TrainerSession::train_on_batch(const float* x, const float* y) {
  std::copy(x, x + staged_x_.size(), staged_x_.begin());
  std::copy(y, y + staged_y_.size(), staged_y_.begin());
  return train_staged();
}

float TrainerSession::train_staged() { return step(staged_x_.data(), staged_y_.data()); }

std::vector<float> TrainerSession::fit(const float* x, const float* y, int n, int epochs) {
  const int batches = n / config_.batch;
  const std::size_t x_stride =
      static_cast<std::size_t>(config_.batch) * static_cast<std::size_t>(config_.example_floats());
  std::vector<float> losses;
  losses.reserve(static_cast<std::size_t>(batches) * static_cast<std::size_t>(std::max(epochs, 0)));
  for (int e = 0; e < epochs; ++e)
    for (int b = 0; b < batches; ++b)
      losses.push_back(step(x + static_cast<std::size_t>(b) * x_stride,
                            y + static_cast<std::size_t>(b) * config_.batch));
  return losses;
}

SessionConfig session_config(const json& c, Mode mode) {
  SessionConfig s;
  s.mode = mode;
  s.hidden = c["hidden"].get<int>();
  s.batch = c["batch"].get<int>();
  s.conv = session_model(c.value("model", "mlp"));
  s.lr = c["lr"].get<double>();
  s.seed = c["seed"].get<std::uint64_t>();
  return s;
}

std::optional<ConvNetSpec> session_model(const std::string& model) {
  if (model == "seed001_small") return seed001_model("small", kSeed001Lengths[0], 1, 1);
  return std::nullopt;
}

LinearData session_data(const SessionConfig& c, int n, std::uint64_t seed) {
  if (!c.conv) return normal_data(n, seed);
  LinearData d{Tensor({n * c.conv->length, c.conv->channels}), Tensor({n, 1})};
  Rng rng(seed);
  for (std::size_t i = 0; i < d.x.size(); ++i) d.x[i] = static_cast<float>(rng.normal());
  for (std::size_t i = 0; i < d.y.size(); ++i)
    d.y[i] = static_cast<float>(rng.uniform(0.0, 1.0) < 0.5);
  return d;
}

LinearData overhead_data(int n) {
  LinearData d{Tensor({n, 1}), Tensor({n, 1})};
  for (int i = 0; i < n; ++i) {
    const double x = 100.0 * i / n;
    d.x[static_cast<std::size_t>(i)] = static_cast<float>(x);
    d.y[static_cast<std::size_t>(i)] = static_cast<float>(x + 20.0 * std::sin(x / 10.0) + 15.0);
  }
  return d;
}

LinearSession::LinearSession(Mode mode, int n)
    : x_({n, 1}), y_({n, 1}), trainer_(make_linear_trainer(mode, x_, y_)) {}

}  // namespace looplab
