// conv_net.cpp — seed 001's Conv1D models, their summary and their cost.
#include "looplab/train/conv_net.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <stdexcept>

#include "looplab/base/error.hpp"
#include "looplab/base/i18n.hpp"

namespace looplab {
namespace {

int divided(int n, int by) { return (n + by - 1) / by; }  // rounded up: never below 1

// The seed's layers at full size (its make_model_small/medium/large: docs/sources.md, thread 001).
ConvNetSpec seed_architecture(const std::string& size) {
  ConvNetSpec s;
  s.name = "seed001_" + size;
  s.channels = kSeed001Channels;
  if (size == "small") {
    s.convs = {{128, 40, 4, true}};
    s.dense = {64};
    s.dropout_after = 0;
  } else if (size == "medium") {
    for (int f : {64, 128, 256, 256, 128, 64}) s.convs.push_back({f, 20, 1, false});
    s.dense = {256, 128, 64};
    s.dropout_after = 1;
  } else if (size == "large") {
    s.convs = {{64, 400, 4, false}, {128, 200, 1, false}};
    for (int i = 0; i < 40; ++i) s.convs.push_back({256, 12, 1, true});
    s.convs.push_back({512, 20, 2, false});
    s.convs.push_back({1028, 10, 2, false});
    s.convs.push_back({256, 1, 1, false});
    s.dense = {256, 128, 64};
    s.dropout_after = 1;
  } else {
    throw std::invalid_argument("seed001_model: no model \"" + size + "\"");
  }
  return s;
}

std::vector<Window> windows_of(const ConvNetSpec& s) {
  std::vector<Window> out;
  int length = s.length;
  for (std::size_t l = 0; l < s.convs.size(); ++l) {
    const ConvLayer& c = s.convs[l];
    const std::optional<Window> w = conv_window_if_fits(length, c.kernel, c.stride, c.same);
    if (!w)
      refuse("err.conv_layer", {{"model", s.name},
                                {"layer", static_cast<int>(l) + 1},
                                {"filters", c.filters},
                                {"kernel", c.kernel},
                                {"stride", c.stride},
                                {"padding", c.same ? "same" : "valid"},
                                {"length", length}});
    out.push_back(*w);
    length = w->out;
  }
  return out;
}

std::string conv_name(const ConvLayer& c) {
  return "Conv1D(" + std::to_string(c.filters) + ", " + std::to_string(c.kernel) +
         ", strides=" + std::to_string(c.stride) + ", '" + (c.same ? "same" : "valid") + "')";
}

}  // namespace

ConvNetSpec seed001_model(const std::string& size, int data_length, int channel_divisor,
                          int length_divisor) {
  ConvNetSpec s = seed_architecture(size);
  s.length = divided(data_length, length_divisor);
  for (ConvLayer& c : s.convs) {
    c.filters = divided(c.filters, channel_divisor);
    c.kernel = divided(c.kernel, length_divisor);
  }
  windows_of(s);  // refuses a layer that does not fit, naming it
  return s;
}

std::optional<ConvNetSpec> seed001_model_if_it_fits(const std::string& size, int data_length,
                                                    int channel_divisor, int length_divisor) {
  try {
    return seed001_model(size, data_length, channel_divisor, length_divisor);
  } catch (const ConfigError&) {
    return std::nullopt;
  }
}

std::vector<LayerSummary> summarize(const ConvNetSpec& s) {
  std::vector<LayerSummary> out;
  const std::vector<Window> windows = windows_of(s);
  int channels = s.channels;
  for (std::size_t l = 0; l < s.convs.size(); ++l) {
    const ConvLayer& c = s.convs[l];
    out.push_back({conv_name(c), windows[l].out, c.filters,
                   1LL * c.kernel * channels * c.filters + c.filters});
    channels = c.filters;
  }
  out.push_back({"GlobalAveragePooling1D", 0, channels, 0});
  for (std::size_t d = 0; d <= s.dense.size(); ++d) {
    if (static_cast<int>(d) == s.dropout_after && s.dropout_rate > 0.0f) {
      char rate[16];
      std::snprintf(rate, sizeof rate, "%g", static_cast<double>(s.dropout_rate));
      out.push_back({std::string("Dropout(") + rate + ")", 0, channels, 0});
    }
    const bool last = d == s.dense.size();
    const int units = last ? 1 : s.dense[d];
    out.push_back({"Dense(" + std::to_string(units) + (last ? ", sigmoid)" : ", relu)"), 0, units,
                   1LL * channels * units + units});
    channels = units;
  }
  return out;
}

long long parameter_count(const ConvNetSpec& s) {
  long long n = 0;
  for (const LayerSummary& l : summarize(s)) n += l.parameters;
  return n;
}

double step_flops_per_sequence(const ConvNetSpec& s) {
  double flops = 0.0;
  for (const LayerSummary& l : summarize(s))
    flops += 2.0 * static_cast<double>(l.parameters) * std::max(l.steps, 1);
  return 3.0 * flops;  // forward, and the two products of the backward pass
}

double step_floats_per_sequence(const ConvNetSpec& s) {
  const std::vector<Window> windows = windows_of(s);
  double floats = static_cast<double>(s.length) * s.channels * 2;  // the batch, staged
  int channels = s.channels;
  for (std::size_t l = 0; l < s.convs.size(); ++l) {
    const double window = static_cast<double>(windows[l].out) * windows[l].kernel * channels;
    const double out = static_cast<double>(windows[l].out) * s.convs[l].filters;
    floats += 2.0 * (window + out);  // each with its gradient
    channels = s.convs[l].filters;
  }
  return floats;
}

double reference_floats_per_sequence(const ConvNetSpec& s) {
  double floats = 0.0;
  const std::vector<Window> windows = windows_of(s);
  for (std::size_t l = 0; l < s.convs.size(); ++l)
    floats += 2.0 * windows[l].out * s.convs[l].filters;
  return floats;
}

ConvNet::ConvNet(const ConvNetSpec& spec, Rng& rng) : spec_(spec), windows_(windows_of(spec)) {
  const auto glorot = [&](int rows, int cols, double fan_in, double fan_out) {
    Tensor w({rows, cols});
    const double limit = std::sqrt(6.0 / (fan_in + fan_out));
    for (std::size_t i = 0; i < w.size(); ++i)
      w[i] = static_cast<float>(rng.uniform(-limit, limit));
    tensors_.push_back(std::move(w));
    tensors_.emplace_back(Shape{1, cols});
  };
  int channels = spec.channels;
  for (const ConvLayer& c : spec.convs) {  // Keras: fan_in = kernel·in, fan_out = kernel·filters
    glorot(c.kernel * channels, c.filters, 1.0 * c.kernel * channels, 1.0 * c.kernel * c.filters);
    channels = c.filters;
  }
  for (std::size_t d = 0; d <= spec.dense.size(); ++d) {
    const int units = d < spec.dense.size() ? spec.dense[d] : 1;
    glorot(channels, units, channels, units);
    channels = units;
  }
}

std::vector<Tensor*> ConvNet::parameters() {
  std::vector<Tensor*> out;
  for (Tensor& t : tensors_) out.push_back(&t);
  return out;
}

Value ConvNet::forward_at(Builder& b, Value x, const std::vector<Value>& params, Value step) const {
  std::size_t p = 0;
  Value h = x;
  for (const Window& w : windows_) {
    h = b.conv1d(h, params[p], params[p + 1], w);
    p += 2;
  }
  h = b.global_average_pool(h, windows_.empty() ? spec_.length : windows_.back().out);
  for (std::size_t d = 0; d <= spec_.dense.size(); ++d) {
    if (static_cast<int>(d) == spec_.dropout_after && step.valid() && spec_.dropout_rate > 0.0f)
      h = b.dropout(h, step, spec_.dropout_rate, spec_.dropout_seed);
    h = b.dense(h, params[p], params[p + 1]);
    p += 2;
    if (d < spec_.dense.size()) h = b.relu(h);
  }
  return h;
}

}  // namespace looplab
