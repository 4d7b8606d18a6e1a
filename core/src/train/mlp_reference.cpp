// mlp_reference.cpp — hand-derived gradients and Adam in plain loops.
#include "looplab/train/mlp_reference.hpp"

#include <cmath>

#include "looplab/engine/ops.hpp"

namespace looplab {

ReferenceMlp::ReferenceMlp(const Mlp& mlp, int batch, double lr, Loss loss, double beta1,
                           double beta2, double epsilon)
    : batch_(batch),
      act_(mlp.activation()),
      loss_(loss),
      lr_(lr),
      beta1_(beta1),
      beta2_(beta2),
      epsilon_(epsilon) {
  const auto& t = mlp.tensors();
  if (t.size() != 4 || t[2].shape().cols != 1)
    throw ShapeError("reference MLP: one hidden layer and one output only");
  d_ = t[0].shape().rows;
  h_ = t[0].shape().cols;
  w1_ = 0;
  b1_ = w1_ + t[0].size();
  w2_ = b1_ + t[1].size();
  b2_ = w2_ + t[2].size();
  for (const Tensor& p : t) theta_.insert(theta_.end(), p.data(), p.data() + p.size());
  grad_.assign(theta_.size(), 0.0f);
  m_.assign(theta_.size(), 0.0f);
  v_.assign(theta_.size(), 0.0f);
  hidden_.assign(static_cast<std::size_t>(batch_) * h_, 0.0f);
  dhidden_.assign(hidden_.size(), 0.0f);
  acc_.assign(theta_.size(), 0.0);
}

namespace {

// The activation over a whole buffer, and its derivative from the activation's output (or, for
// relu, the sign of it): one switch per pass, so each loop is plain and vectorizes.
void activate_all(Activation a, float* h, std::size_t n) {
  switch (a) {
    case Activation::Tanh:
      for (std::size_t i = 0; i < n; ++i) h[i] = fast_tanh(h[i]);
      break;
    case Activation::Relu:
      for (std::size_t i = 0; i < n; ++i) h[i] = h[i] > 0.0f ? h[i] : 0.0f;
      break;
    case Activation::Sigmoid:
      for (std::size_t i = 0; i < n; ++i) h[i] = 0.5f + 0.5f * fast_tanh(0.5f * h[i]);
      break;
    case Activation::Linear:
      break;
  }
}

void backprop_activation(Activation a, const float* h, float* dz, std::size_t n) {
  switch (a) {
    case Activation::Tanh:
      for (std::size_t i = 0; i < n; ++i) dz[i] *= 1.0f - h[i] * h[i];
      break;
    case Activation::Relu:
      for (std::size_t i = 0; i < n; ++i) dz[i] = h[i] > 0.0f ? dz[i] : 0.0f;
      break;
    case Activation::Sigmoid:
      for (std::size_t i = 0; i < n; ++i) dz[i] *= h[i] * (1.0f - h[i]);
      break;
    case Activation::Linear:
      break;
  }
}

}  // namespace

float ReferenceMlp::step(const float* x, const float* y) {
  const float* w1 = &theta_[w1_];
  const float* b1 = &theta_[b1_];
  const float* w2 = &theta_[w2_];
  const float b2 = theta_[b2_];
  const std::size_t hb = static_cast<std::size_t>(batch_) * h_;
  std::fill(acc_.begin(), acc_.end(), 0.0);
  // forward: z = x·W1 + b1 (row by row, j innermost), h = act(z) in one pass
  for (int r = 0; r < batch_; ++r) {
    float* z = &hidden_[static_cast<std::size_t>(r) * h_];
    const float* xr = x + static_cast<std::size_t>(r) * d_;
    for (int j = 0; j < h_; ++j) z[j] = 0.0f;
    if (d_ == 1) {
      for (int j = 0; j < h_; ++j) z[j] = xr[0] * w1[j] + b1[j];
    } else {
      for (int j = 0; j < h_; ++j) {
        double s = 0.0;
        for (int i = 0; i < d_; ++i)
          s += static_cast<double>(xr[i]) * w1[static_cast<std::size_t>(i) * h_ + j];
        z[j] = static_cast<float>(s) + b1[j];
      }
    }
  }
  activate_all(act_, hidden_.data(), hb);
  // p = h·W2 + b2, r = p − y, L = mean(r²); dp = 2r/B; dW2 = hᵀ·dp; dz = dp·W2ᵀ
  double loss = 0.0;
  const float scale = 2.0f / static_cast<float>(batch_);
  for (int r = 0; r < batch_; ++r) {
    const float* h = &hidden_[static_cast<std::size_t>(r) * h_];
    double p = 0.0;
    for (int j = 0; j < h_; ++j) p += static_cast<double>(h[j]) * w2[j];
    const float out = static_cast<float>(p) + b2;
    float dp;
    if (loss_ == Loss::Mse) {
      const float res = out - y[r];
      loss += static_cast<double>(res) * res;
      dp = scale * res;
    } else {
      const float eps = 1e-7f;
      const float s = 0.5f + 0.5f * fast_tanh(0.5f * out);
      const float sc = s < eps ? eps : (s > 1.0f - eps ? 1.0f - eps : s);
      loss -= y[r] * static_cast<double>(std::log(sc)) +
              (1.0f - y[r]) * static_cast<double>(std::log(1.0f - sc));
      const float inside = (s > eps && s < 1.0f - eps) ? 1.0f : 0.0f;
      const float ds = -(y[r] / sc - (1.0f - y[r]) / (1.0f - sc)) / static_cast<float>(batch_);
      dp = inside * ds * s * (1.0f - s);
    }
    acc_[b2_] += dp;
    double* gw2 = &acc_[w2_];
    float* dz = &dhidden_[static_cast<std::size_t>(r) * h_];
    for (int j = 0; j < h_; ++j) {
      gw2[j] += static_cast<double>(h[j]) * dp;
      dz[j] = dp * w2[j];
    }
  }
  backprop_activation(act_, hidden_.data(), dhidden_.data(), hb);
  // dW1 = xᵀ·dz, db1 = Σ_rows dz
  double* gb1 = &acc_[b1_];
  for (int r = 0; r < batch_; ++r) {
    const float* dz = &dhidden_[static_cast<std::size_t>(r) * h_];
    const float* xr = x + static_cast<std::size_t>(r) * d_;
    for (int j = 0; j < h_; ++j) gb1[j] += dz[j];
    for (int i = 0; i < d_; ++i) {
      double* gw1 = &acc_[w1_ + static_cast<std::size_t>(i) * h_];
      for (int j = 0; j < h_; ++j) gw1[j] += static_cast<double>(xr[i]) * dz[j];
    }
  }
  for (std::size_t k = 0; k < grad_.size(); ++k) grad_[k] = static_cast<float>(acc_[k]);

  // Adam, Keras form: θ ← θ − lr_t·m/(√v + ε), lr_t = lr·√(1 − β2^t)/(1 − β1^t)
  ++t_;
  const double td = static_cast<double>(t_);
  const float lr_t = static_cast<float>(lr_ * std::sqrt(1.0 - std::pow(beta2_, td)) /
                                        (1.0 - std::pow(beta1_, td)));
  const float b1f = static_cast<float>(beta1_), b2f = static_cast<float>(beta2_),
              eps = static_cast<float>(epsilon_);
  for (std::size_t k = 0; k < theta_.size(); ++k) {
    const float g = grad_[k];
    m_[k] = b1f * m_[k] + (1.0f - b1f) * g;
    v_[k] = b2f * v_[k] + (1.0f - b2f) * (g * g);
    theta_[k] -= lr_t * (m_[k] / (std::sqrt(v_[k]) + eps));
  }
  return static_cast<float>(loss / batch_);
}

}  // namespace looplab
