// looplab/train/hand_adam.hpp — Adam as the hand-written references step it (ReferenceMlp,
// ReferenceConvNet): Keras's form, as optim.hpp's Adam computes it in the graph, in float32.
//   m ← β1·m + (1 − β1)·g,  v ← β2·v + (1 − β2)·g²,  θ ← θ − lr_t·m/(√v + ε),
//   lr_t = lr·√(1 − β2^t)/(1 − β1^t)   (t = 1, 2, ...)
//
//   HandAdam adam{1e-3};
//   adam.update(adam.rate(t), theta, grad, m, v, n);   // n parameters, one step
#pragma once

#include <cmath>
#include <cstddef>

namespace looplab {

struct HandAdam {
  double lr, beta1 = 0.9, beta2 = 0.999, epsilon = 1e-7;

  // lr_t of step t.
  float rate(long long t) const {
    const double td = static_cast<double>(t);
    return static_cast<float>(lr * std::sqrt(1.0 - std::pow(beta2, td)) /
                              (1.0 - std::pow(beta1, td)));
  }
  // One step of n parameters, their gradients and moments (four separate arrays).
  void update(float lr_t, float* __restrict theta, const float* __restrict g, float* __restrict m,
              float* __restrict v, std::size_t n) const {
    const float b1 = static_cast<float>(beta1), b2 = static_cast<float>(beta2),
                eps = static_cast<float>(epsilon);
    for (std::size_t k = 0; k < n; ++k) {
      const float gk = g[k];
      m[k] = b1 * m[k] + (1.0f - b1) * gk;
      v[k] = b2 * v[k] + (1.0f - b2) * (gk * gk);
      theta[k] -= lr_t * (m[k] / (std::sqrt(v[k]) + eps));
    }
  }
};

}  // namespace looplab
