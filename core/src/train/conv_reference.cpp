// conv_reference.cpp — seed 001's ConvNet stepped by hand: direct convolutions, pooling, Dense
// layers with dropout, binary cross-entropy from the logit, Adam.
#include "looplab/train/conv_reference.hpp"

#include <algorithm>
#include <cmath>

#include "looplab/engine/ops.hpp"

namespace looplab {
namespace {

// y[b·out + o, f] = bias[f] + Σ_j Σ_c x[b·length + o·stride − pad + j, c] · k[j·C + c, f].
void conv_forward(const Window& w, int batch, int channels, int filters, const float* x,
                  const float* k, const float* bias, float* y) {
  for (int b = 0; b < batch; ++b)
    for (int o = 0; o < w.out; ++o) {
      float* yo = y + static_cast<std::size_t>(b * w.out + o) * filters;
      std::copy(bias, bias + filters, yo);
      for (int j = 0; j < w.kernel; ++j) {
        const int t = o * w.stride - w.pad + j;
        if (t < 0 || t >= w.length) continue;  // a padded step: zeros
        const float* xt = x + static_cast<std::size_t>(b * w.length + t) * channels;
        for (int c = 0; c < channels; ++c) {
          const float* kr = k + static_cast<std::size_t>(j * channels + c) * filters;
          const float xv = xt[c];
          for (int f = 0; f < filters; ++f) yo[f] += xv * kr[f];
        }
      }
    }
}

// From dy: dk and dbias (summed), and dx when it is wanted (not for the input sequence).
void conv_backward(const Window& w, int batch, int channels, int filters, const float* x,
                   const float* k, const float* dy, float* dk, float* dbias, float* dx) {
  if (dx) std::fill(dx, dx + static_cast<std::size_t>(batch) * w.length * channels, 0.0f);
  for (int b = 0; b < batch; ++b)
    for (int o = 0; o < w.out; ++o) {
      const float* ro = dy + static_cast<std::size_t>(b * w.out + o) * filters;
      for (int f = 0; f < filters; ++f) dbias[f] += ro[f];
      for (int j = 0; j < w.kernel; ++j) {
        const int t = o * w.stride - w.pad + j;
        if (t < 0 || t >= w.length) continue;
        const float* xt = x + static_cast<std::size_t>(b * w.length + t) * channels;
        float* dxt = dx ? dx + static_cast<std::size_t>(b * w.length + t) * channels : nullptr;
        for (int c = 0; c < channels; ++c) {
          const float* kr = k + static_cast<std::size_t>(j * channels + c) * filters;
          float* dkr = dk + static_cast<std::size_t>(j * channels + c) * filters;
          const float xv = xt[c];
          float g = 0.0f;
          for (int f = 0; f < filters; ++f) {
            dkr[f] += xv * ro[f];
            g += ro[f] * kr[f];
          }
          if (dxt) dxt[c] += g;
        }
      }
    }
}

// out[r, u] = Σ_i in[r, i] · w[i, u] + bias[u] over `rows` rows.
void dense_forward(int rows, int in, int units, const float* x, const float* w, const float* bias,
                   float* out) {
  for (int r = 0; r < rows; ++r) {
    float* o = out + static_cast<std::size_t>(r) * units;
    std::copy(bias, bias + units, o);
    for (int i = 0; i < in; ++i) {
      const float xv = x[static_cast<std::size_t>(r) * in + i];
      const float* wr = w + static_cast<std::size_t>(i) * units;
      for (int u = 0; u < units; ++u) o[u] += xv * wr[u];
    }
  }
}

}  // namespace

ReferenceConvNet::ReferenceConvNet(ConvNet& net, int batch, double lr, double beta1, double beta2,
                                   double epsilon)
    : spec_(net.spec()), windows_(net.windows()), batch_(batch), adam_{lr, beta1, beta2, epsilon} {
  for (Tensor* p : net.parameters()) {
    theta_.emplace_back(p->data(), p->data() + p->size());
    grad_.emplace_back(p->size());
    m_.emplace_back(p->size());
    v_.emplace_back(p->size());
  }
  for (std::size_t l = 0; l < windows_.size(); ++l) {
    const std::size_t size =
        static_cast<std::size_t>(batch) * windows_[l].out * spec_.convs[l].filters;
    conv_out_.emplace_back(size);
    conv_grad_.emplace_back(size);
  }
  int width = spec_.convs.empty() ? spec_.channels : spec_.convs.back().filters;
  pooled_.resize(static_cast<std::size_t>(batch) * width);
  for (std::size_t d = 0; d <= spec_.dense.size(); ++d) {
    const int units = d < spec_.dense.size() ? spec_.dense[d] : 1;
    dense_in_.emplace_back(static_cast<std::size_t>(batch) * width);
    dense_out_.emplace_back(static_cast<std::size_t>(batch) * units);
    dense_grad_.emplace_back(static_cast<std::size_t>(batch) * units);
    width = units;
  }
}

void ReferenceConvNet::forward(const float* x, std::uint32_t t) {
  const float* in = x;
  int channels = spec_.channels;
  for (std::size_t l = 0; l < windows_.size(); ++l) {
    const int filters = spec_.convs[l].filters;
    conv_forward(windows_[l], batch_, channels, filters, in, theta_[2 * l].data(),
                 theta_[2 * l + 1].data(), conv_out_[l].data());
    in = conv_out_[l].data();
    channels = filters;
  }
  // Global average pooling over the last layer's steps, summed in double as the engine's GroupMean.
  const int steps = windows_.empty() ? spec_.length : windows_.back().out;
  for (int b = 0; b < batch_; ++b)
    for (int c = 0; c < channels; ++c) {
      double sum = 0.0;
      for (int s = 0; s < steps; ++s)
        sum += in[(static_cast<std::size_t>(b) * steps + s) * channels + c];
      pooled_[static_cast<std::size_t>(b) * channels + c] = static_cast<float>(sum / steps);
    }
  const float* h = pooled_.data();
  const std::size_t p0 = 2 * windows_.size();
  const float rate = spec_.dropout_rate, keep = 1.0f / (1.0f - rate);
  for (std::size_t d = 0; d <= spec_.dense.size(); ++d) {
    std::vector<float>& hin = dense_in_[d];
    std::copy(h, h + hin.size(), hin.begin());
    if (static_cast<int>(d) == spec_.dropout_after && rate > 0.0f)
      for (std::size_t i = 0; i < hin.size(); ++i)
        hin[i] = dropout_keeps(spec_.dropout_seed, t, i, rate) ? hin[i] * keep : 0.0f;
    const int units = d < spec_.dense.size() ? spec_.dense[d] : 1;
    dense_forward(batch_, channels, units, hin.data(), theta_[p0 + 2 * d].data(),
                  theta_[p0 + 2 * d + 1].data(), dense_out_[d].data());
    if (d < spec_.dense.size())
      for (float& v : dense_out_[d]) v = v > 0.0f ? v : 0.0f;  // relu
    h = dense_out_[d].data();
    channels = units;
  }
}

void ReferenceConvNet::backward(const float* x, const float* y, std::uint32_t t) {
  for (std::vector<float>& g : grad_) std::fill(g.begin(), g.end(), 0.0f);
  const std::size_t p0 = 2 * windows_.size();
  const std::size_t last = spec_.dense.size();
  // d/dz of mean(softplus(z) − y·z) = (σ(z) − y) / B.
  std::vector<float>& dz = dense_grad_[last];
  for (int b = 0; b < batch_; ++b) {
    const double z = dense_out_[last][static_cast<std::size_t>(b)];
    dz[static_cast<std::size_t>(b)] =
        static_cast<float>((1.0 / (1.0 + std::exp(-z)) - y[b]) / batch_);
  }
  std::vector<float>& dh = hidden_grad_;
  for (std::size_t d = last + 1; d-- > 0;) {
    const int in = d == 0 ? (spec_.convs.empty() ? spec_.channels : spec_.convs.back().filters)
                          : spec_.dense[d - 1];
    const int units = d < last ? spec_.dense[d] : 1;
    std::vector<float>& dout = dense_grad_[d];  // the gradient of this layer's output
    if (d < last)                               // relu's: where the output was positive
      for (std::size_t i = 0; i < dout.size(); ++i)
        if (!(dense_out_[d][i] > 0.0f)) dout[i] = 0.0f;
    const float* w = theta_[p0 + 2 * d].data();
    float* dw = grad_[p0 + 2 * d].data();
    float* db = grad_[p0 + 2 * d + 1].data();
    const std::vector<float>& hin = dense_in_[d];
    dh.assign(static_cast<std::size_t>(batch_) * in, 0.0f);
    for (int r = 0; r < batch_; ++r) {
      const float* g = dout.data() + static_cast<std::size_t>(r) * units;
      for (int u = 0; u < units; ++u) db[u] += g[u];
      for (int i = 0; i < in; ++i) {
        const float hv = hin[static_cast<std::size_t>(r) * in + i];
        const float* wr = w + static_cast<std::size_t>(i) * units;
        float* dwr = dw + static_cast<std::size_t>(i) * units;
        float s = 0.0f;
        for (int u = 0; u < units; ++u) {
          dwr[u] += hv * g[u];
          s += g[u] * wr[u];
        }
        dh[static_cast<std::size_t>(r) * in + i] = s;
      }
    }
    if (static_cast<int>(d) == spec_.dropout_after && spec_.dropout_rate > 0.0f) {
      const float keep = 1.0f / (1.0f - spec_.dropout_rate);
      for (std::size_t i = 0; i < dh.size(); ++i)
        dh[i] = dropout_keeps(spec_.dropout_seed, t, i, spec_.dropout_rate) ? dh[i] * keep : 0.0f;
    }
    if (d > 0) std::copy(dh.begin(), dh.end(), dense_grad_[d - 1].begin());
  }
  if (windows_.empty()) return;
  // The pooling's adjoint: each step of the last conv output gets dh / steps.
  const std::size_t top = windows_.size() - 1;
  const int steps = windows_[top].out, channels = spec_.convs[top].filters;
  for (int b = 0; b < batch_; ++b)
    for (int s = 0; s < steps; ++s)
      for (int c = 0; c < channels; ++c)
        conv_grad_[top][(static_cast<std::size_t>(b) * steps + s) * channels + c] =
            dh[static_cast<std::size_t>(b) * channels + c] / static_cast<float>(steps);
  for (std::size_t l = top + 1; l-- > 0;) {
    const int in_channels = l == 0 ? spec_.channels : spec_.convs[l - 1].filters;
    conv_backward(windows_[l], batch_, in_channels, spec_.convs[l].filters,
                  l == 0 ? x : conv_out_[l - 1].data(), theta_[2 * l].data(), conv_grad_[l].data(),
                  grad_[2 * l].data(), grad_[2 * l + 1].data(),
                  l == 0 ? nullptr : conv_grad_[l - 1].data());
  }
}

float ReferenceConvNet::step(const float* x, const float* y) {
  ++t_;
  const auto t = static_cast<std::uint32_t>(t_);  // the step's number, as the trainer's input
  forward(x, t);
  double loss = 0.0;  // mean(softplus(z) − y·z), softplus in double as the engine's
  const std::vector<float>& z = dense_out_.back();
  for (int b = 0; b < batch_; ++b) {
    const double v = z[static_cast<std::size_t>(b)];
    loss += static_cast<float>(std::max(v, 0.0) + std::log1p(std::exp(-std::abs(v)))) -
            static_cast<double>(y[b]) * v;
  }
  backward(x, y, t);
  const float lr_t = adam_.rate(t_);
  for (std::size_t p = 0; p < theta_.size(); ++p)
    adam_.update(lr_t, theta_[p].data(), grad_[p].data(), m_[p].data(), v_[p].data(),
                 theta_[p].size());
  return static_cast<float>(loss / batch_);
}

}  // namespace looplab
