// looplab/train/conv_net.hpp — seed 001's own models: Conv1D stacks, global average pooling,
// dropout and Dense layers, trained with binary cross-entropy from the logits.
//
// A batch of sequences is one matrix [batch·length x channels] (ops.hpp, Window). A ConvNet is
//   Conv1D layers (no activation, as in the seed) → global average pooling → Dense(relu) layers,
//   with Dropout after the first `dropout_after` of them → Dense(1), a logit.
// seed001_model() gives the seed's three architectures, optionally scaled down: every filter
// count divided by `channel_divisor`, every sequence length and kernel by `length_divisor`
// (rounded up), strides, depth and Dense widths kept.
//
//   ConvNetSpec spec = seed001_model("small", 1, 1);  // Conv1D(128, 40, 4, 'same') on (140, 30)
//   Rng rng(2);
//   ConvNet net(spec, rng);
//   Value logits = net.forward_at(b, x, params, step);  // x: [batch·140 x 30]
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "looplab/base/json.hpp"
#include "looplab/base/rng.hpp"
#include "looplab/train/model.hpp"

namespace looplab {

struct ConvLayer {
  int filters = 1, kernel = 1, stride = 1;
  bool same = false;  // 'same' padding, else 'valid'
};

struct ConvNetSpec {
  std::string name;  // "seed001_small", ...
  int length = 1;    // input steps per sequence
  int channels = 1;  // input channels
  std::vector<ConvLayer> convs;
  std::vector<int> dense;  // the relu Dense layers after the pooling, then Dense(1)
  int dropout_after = 0;   // Dropout after this many of them (0: right after the pooling)
  float dropout_rate = 0.5f;
  std::uint32_t dropout_seed = 1;
};

// seed 001's make_model_small / medium / large with the data length of its small / medium / large
// data (140 / 1,400 / 14,000 steps of 30 channels), divided as above. Throws ConfigError naming
// the layer and its numbers when a layer does not fit (as the seed's large model on small data).
ConvNetSpec seed001_model(const std::string& size, int data_length, int channel_divisor,
                          int length_divisor);
// The same, or nullopt where a layer does not fit (the matrix leaves that cell out). The catch is
// here: the experiments that ask compile without unwinding code in wasm (CMakeLists.txt).
std::optional<ConvNetSpec> seed001_model_if_it_fits(const std::string& size, int data_length,
                                                    int channel_divisor, int length_divisor);
inline constexpr int kSeed001Channels = 30;
inline constexpr int kSeed001Lengths[] = {140, 1400, 14000};  // small, medium, large data

// The layer list model.summary() prints: per layer its name, output shape (steps, channels)
// and parameter count; Dropout's step input is not a parameter.
struct LayerSummary {
  std::string layer;  // "Conv1D(128, 40, strides=4, 'same')", "GlobalAveragePooling1D", ...
  int steps = 0;      // 0 after the pooling
  int channels = 0;
  long long parameters = 0;
};
std::vector<LayerSummary> summarize(const ConvNetSpec& spec);
long long parameter_count(const ConvNetSpec& spec);
// FLOPs of one training step per sequence (forward ≈ a third, as the products dominate).
double step_flops_per_sequence(const ConvNetSpec& spec);
// The floats a step keeps alive per sequence (activations, windows and their gradients), for the
// memory estimate before anything is allocated.
double step_floats_per_sequence(const ConvNetSpec& spec);
// The same for the hand-written loop (conv_reference.hpp): each conv layer's output and its
// gradient, no windows.
double reference_floats_per_sequence(const ConvNetSpec& spec);
// Copies of the parameters each training mode keeps, for the same estimates: the weights, their
// gradients, Adam's two slots and a spare (the model's, or a program's buffer).
inline constexpr double kParameterCopiesPerMode = 5.0;

class ConvNet final : public Model {
 public:
  ConvNet(const ConvNetSpec& spec, Rng& rng);  // Glorot-uniform kernels, zero biases (Keras)
  std::vector<Tensor*> parameters() override;
  // Without a step: dropout is the identity (evaluation).
  Value forward(Builder& b, Value x, const std::vector<Value>& params) const override {
    return forward_at(b, x, params, Value{});
  }
  Value forward_at(Builder& b, Value x, const std::vector<Value>& params,
                   Value step) const override;
  bool uses_step() const override { return spec_.dropout_rate > 0.0f; }
  const ConvNetSpec& spec() const { return spec_; }
  const std::vector<Window>& windows() const { return windows_; }  // per conv layer

 private:
  ConvNetSpec spec_;
  std::vector<Window> windows_;
  std::vector<Tensor> tensors_;  // per conv then per dense layer: kernel, bias
};

}  // namespace looplab
