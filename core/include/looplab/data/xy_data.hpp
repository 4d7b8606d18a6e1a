// looplab/data/xy_data.hpp — x/y data sets for regression: generated, or the user's (csv.hpp).
//
//   LinearData d = sine_trend_data();                  // 1000 rows, x in [0, 100)
//   LinearData s = synthetic_data({.n = 500, .noise = 2.0, .seed = 7});
//   LinearData z = normal_data(10000, 1);              // x, y ~ N(0, 1), independent
#pragma once

#include <cstdint>

#include "looplab/base/tensor.hpp"

namespace looplab {

// The most features a line's data may have: a CSV's x names at most this many columns (the
// synthetic data have three at most). The analysis decomposes a (features + 1)² matrix by Jacobi
// rotations, whose cost grows as its cube and faster (train/linear.hpp, symmetric_eigen).
inline constexpr int kMaxFeatures = 16;

struct LinearData {
  Tensor x;  // [n x d]
  Tensor y;  // [n x 1]
};

// A straight trend with a slow sine on it, on a wide x range (the data of docs/sources.md, thread
// 004): x = arange(0, 100, 0.1), y = x + 20 sin(x/10) + 15. Raw x makes the loss valley narrow.
LinearData sine_trend_data();

struct SyntheticSpec {
  int n = 1000;
  double slope = 1.0, intercept = 0.0, noise = 1.0, x_min = 0.0, x_max = 100.0;
  std::uint64_t seed = 1;
};
// x uniform in [x_min, x_max], y = slope·x + intercept + noise·N(0, 1).
LinearData synthetic_data(const SyntheticSpec& spec);

// Two features x₁, x₂ ~ N(0, 1) with correlation r (x₂ = r·x₁ + √(1 − r²)·z), and y = slope·(x₁ +
// x₂) + intercept + noise·N(0, 1): after standardizing, the valley keeps κ ≈ (1 + |r|)/(1 − |r|).
LinearData correlated_data(int n, double r, double slope, double intercept, double noise,
                           std::uint64_t seed);

// The columns x, x², …, x^degree of a one-column x (polynomial features: a linear model in them
// fits a curve). Powers of a positive x are strongly correlated, which scaling cannot undo.
Tensor polynomial_features(const Tensor& x, int degree);

// n samples of x and y, each ~ N(0, 1) and independent, x drawn first (docs/sources.md, thread
// 000).
LinearData normal_data(int n, std::uint64_t seed);

}  // namespace looplab
