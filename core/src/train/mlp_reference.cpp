// mlp_reference.cpp — the hand-written step: rows in SIMD-wide blocks, float32, then Adam.
#include "looplab/train/mlp_reference.hpp"

#include <algorithm>
#include <cmath>

#include "looplab/engine/ops.hpp"

namespace looplab {
namespace {
// Rows are processed kRows at a time, one row per SIMD lane (an AVX2 vector, two wasm simd128
// vectors): every loop over a block's rows is whole vectors whatever the number of hidden units,
// and the per-unit weights are scalars broadcast to all lanes. A last, partial block is padded
// with rows whose dL/dout is 0, so they add nothing.
constexpr int kRows = 8;
constexpr std::size_t kR = kRows;
}  // namespace

// Before a loop over a block's lanes: keep it a loop. Both compilers vectorize such a loop into
// whole vectors, but unrolled first into kRows statements (they are short), g++ left the backward
// pass scalar and clang the forward one: 1.6× and 2.2× slower steps.
#if defined(__clang__)
#define LOOPLAB_LANES _Pragma("clang loop unroll(disable)")
#else
#define LOOPLAB_LANES _Pragma("GCC unroll 1")
#endif

ReferenceMlp::ReferenceMlp(const Mlp& mlp, int batch, double lr, Loss loss, double beta1,
                           double beta2, double epsilon)
    : batch_(batch), act_(mlp.activation()), loss_(loss), adam_{lr, beta1, beta2, epsilon} {
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
  // per block: x transposed [d x kRows], h [H x kRows], dL/dout [kRows]; per lane: the gradient
  // sums [(d + 2)·H + 1 x kRows] and the loss sum [kRows]
  const std::size_t d = static_cast<std::size_t>(d_), h = static_cast<std::size_t>(h_);
  work_.assign(kR * (d + h + 1 + theta_.size() + 1), 0.0f);
}

namespace {

template <Activation A>
float activate(float z) {
  if constexpr (A == Activation::Tanh) return fast_tanh(z);
  if constexpr (A == Activation::Relu) return z > 0.0f ? z : 0.0f;
  if constexpr (A == Activation::Sigmoid) return 0.5f + 0.5f * fast_tanh(0.5f * z);
  return z;
}

// dL/dz from dL/dh and the activation's output h (for relu, the sign of it).
template <Activation A>
float backprop(float h, float dh) {
  if constexpr (A == Activation::Tanh) return dh * (1.0f - h * h);
  if constexpr (A == Activation::Relu) return h > 0.0f ? dh : 0.0f;
  if constexpr (A == Activation::Sigmoid) return dh * (h * (1.0f - h));
  return dh;
}

// A block's forward pass: hid[j] = act(x·W1[:, j] + b1[j]) for each unit j, and out = h·W2.
// xt is the block's x transposed ([d x kRows]); hid is [H x kRows]. The parameters are __restrict
// so the compiler vectorizes the loops over lanes (it does not trust restrict on local pointers).
template <Activation A>
void forward_block(const float* __restrict xt, int d, int h, const float* __restrict w1,
                   const float* __restrict b1, const float* __restrict w2, float* __restrict hid,
                   float* __restrict out) {
  std::fill(out, out + kR, 0.0f);
  for (int j = 0; j < h; ++j) {
    float* hj = hid + static_cast<std::size_t>(j) * kR;
    LOOPLAB_LANES
    for (std::size_t l = 0; l < kR; ++l) hj[l] = xt[l] * w1[j];
    for (int i = 1; i < d; ++i) {
      const float w = w1[static_cast<std::size_t>(i) * static_cast<std::size_t>(h) + j];
      LOOPLAB_LANES
      for (std::size_t l = 0; l < kR; ++l) hj[l] += xt[static_cast<std::size_t>(i) * kR + l] * w;
    }
    LOOPLAB_LANES
    for (std::size_t l = 0; l < kR; ++l) {
      hj[l] = activate<A>(hj[l] + b1[j]);
      out[l] += hj[l] * w2[j];
    }
  }
}

// A block's backward pass from dL/dout (dp): per lane, dW2 += h·dp, dz = (dp·W2) ⊙ act'(h),
// db1 += dz, dW1 += xᵀ·dz, into per-lane sums (gw1 [d·H x kRows], gb1 and gw2 [H x kRows]). Each
// is a parameter of its own: __restrict on one pointer with offsets would not tell the compiler
// that the three never overlap, and it would not vectorize.
template <Activation A>
void backward_block(const float* __restrict xt, int d, int h, const float* __restrict w2,
                    const float* __restrict hid, const float* __restrict dp, float* __restrict gw1,
                    float* __restrict gb1, float* __restrict gw2) {
  const std::size_t hh = static_cast<std::size_t>(h);
  for (std::size_t j = 0; j < hh; ++j) {
    const std::size_t at = j * kR;
    float dz[kRows];
    LOOPLAB_LANES
    for (std::size_t l = 0; l < kR; ++l) {
      gw2[at + l] += hid[at + l] * dp[l];
      dz[l] = backprop<A>(hid[at + l], dp[l] * w2[j]);
      gb1[at + l] += dz[l];
    }
    for (std::size_t i = 0; i < static_cast<std::size_t>(d); ++i) {
      LOOPLAB_LANES
      for (std::size_t l = 0; l < kR; ++l) gw1[(i * hh + j) * kR + l] += xt[i * kR + l] * dz[l];
    }
  }
}

}  // namespace

float ReferenceMlp::step(const float* x, const float* y) {
  switch (act_) {
    case Activation::Tanh:
      return step_rows<Activation::Tanh>(x, y);
    case Activation::Relu:
      return step_rows<Activation::Relu>(x, y);
    case Activation::Sigmoid:
      return step_rows<Activation::Sigmoid>(x, y);
    case Activation::Linear:
      break;
  }
  return step_rows<Activation::Linear>(x, y);
}

// The rows in blocks of kRows: forward, the loss and dL/dout per lane, backward into per-lane
// gradient sums; the lanes are added once per step. Nothing of size batch × H is written.
template <Activation A>
float ReferenceMlp::step_rows(const float* x, const float* y) {
  const std::size_t d = static_cast<std::size_t>(d_), h = static_cast<std::size_t>(h_);
  float* xt = work_.data();  // [d x kRows]
  float* hid = xt + d * kR;  // [H x kRows]
  float* dp = hid + h * kR;  // [kRows]
  float* lanes = dp + kR;    // [theta x kRows], W1 b1 W2 b2 as theta_
  float* loss_lanes = lanes + theta_.size() * kR;
  std::fill(lanes, lanes + (theta_.size() + 1) * kR, 0.0f);
  const float* w1 = &theta_[w1_];
  const float* b1 = &theta_[b1_];
  const float* w2 = &theta_[w2_];
  const float b2 = theta_[b2_];
  float* gb2 = lanes + b2_ * kR;
  const float inv_batch = 1.0f / static_cast<float>(batch_);
  for (int r0 = 0; r0 < batch_; r0 += kRows) {
    const std::size_t rows = static_cast<std::size_t>(std::min(kRows, batch_ - r0));
    const float* xb = x + static_cast<std::size_t>(r0) * d;
    const float* yb = y + r0;
    for (std::size_t i = 0; i < d; ++i)
      for (std::size_t l = 0; l < kR; ++l) xt[i * kR + l] = l < rows ? xb[l * d + i] : 0.0f;
    forward_block<A>(xt, d_, h_, w1, b1, w2, hid, dp);
    for (std::size_t l = 0; l < kR; ++l) {  // dp holds h·W2 here; it becomes dL/dout
      const float out = dp[l] + b2;
      const float yl = l < rows ? yb[l] : 0.0f;
      float loss, dout;
      if (loss_ == Loss::Mse) {
        const float res = out - yl;
        loss = res * res;
        dout = 2.0f * inv_batch * res;
      } else {
        const float eps = 1e-7f;
        const float s = 0.5f + 0.5f * fast_tanh(0.5f * out);
        const float sc = s < eps ? eps : (s > 1.0f - eps ? 1.0f - eps : s);
        loss = -(yl * std::log(sc) + (1.0f - yl) * std::log(1.0f - sc));
        const float inside = (s > eps && s < 1.0f - eps) ? 1.0f : 0.0f;
        const float ds = -(yl / sc - (1.0f - yl) / (1.0f - sc)) * inv_batch;
        dout = inside * ds * s * (1.0f - s);
      }
      dp[l] = l < rows ? dout : 0.0f;  // padding rows add nothing
      loss_lanes[l] += l < rows ? loss : 0.0f;
      gb2[l] += dp[l];
    }
    backward_block<A>(xt, d_, h_, w2, hid, dp, lanes + w1_ * kR, lanes + b1_ * kR,
                      lanes + w2_ * kR);
  }
  float loss = 0.0f;
  for (std::size_t l = 0; l < kR; ++l) loss += loss_lanes[l];
  for (std::size_t k = 0; k < theta_.size(); ++k) {
    float sum = 0.0f;
    for (std::size_t l = 0; l < kR; ++l) sum += lanes[k * kR + l];
    grad_[k] = sum;
  }

  ++t_;
  adam_.update(adam_.rate(t_), theta_.data(), grad_.data(), m_.data(), v_.data(), theta_.size());
  return loss * inv_batch;
}

}  // namespace looplab
