// looplab/train/conv_reference.hpp — the floor for seed 001's Conv1D models: a ConvNet trained by
// a hand-written loop, as ReferenceMlp is for the MLP.
//
// No graph, no tape: the direct convolution people write first (for each output step, the
// window's input rows times the kernel's rows, the filters contiguous; no im2col, as the bench's
// W3 hand loop), global average pooling, the Dense(relu) layers with the engine's dropout mask
// (dropout_keeps of the seed, the step t and the element), the logit's binary cross-entropy
// softplus(z) − y·z, then Adam over every parameter in Keras's form (optim.hpp). It computes what
// GraphTrainer computes for the same ConvNet, so its losses agree with the other modes' to float32
// rounding (tests/core/train/conv_net_test.cpp).
//
//   ReferenceConvNet ref(net, 8, 1e-4);       // copies net's initial weights; 8 sequences a step
//   float loss = ref.step(x_batch, y_batch);  // x: [8·length x channels], y: [8 x 1]
#pragma once

#include <vector>

#include "looplab/train/conv_net.hpp"
#include "looplab/train/hand_adam.hpp"

namespace looplab {

class ReferenceConvNet {
 public:
  ReferenceConvNet(ConvNet& net, int batch, double lr, double beta1 = 0.9, double beta2 = 0.999,
                   double epsilon = 1e-7);
  float step(const float* x, const float* y);  // the loss before the update
  // Every parameter tensor's values, in ConvNet::parameters()'s order (kernel, bias per layer).
  const std::vector<std::vector<float>>& parameters() const { return theta_; }

 private:
  void forward(const float* x, std::uint32_t t);
  void backward(const float* x, const float* y, std::uint32_t t);

  ConvNetSpec spec_;
  std::vector<Window> windows_;
  int batch_;
  HandAdam adam_;
  long long t_ = 0;
  std::vector<std::vector<float>> theta_, grad_, m_, v_;  // per tensor
  // Per conv layer its output [batch·out x filters]; per dense layer its input [batch x in] (after
  // dropout) and output; the gradients of each, reused every step.
  std::vector<std::vector<float>> conv_out_, conv_grad_, dense_in_, dense_out_, dense_grad_;
  std::vector<float> pooled_, hidden_grad_;
};

}  // namespace looplab
