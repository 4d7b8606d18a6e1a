// xy_data.cpp — the generated data sets, all computed in double and stored as float32.
#include "looplab/data/xy_data.hpp"

#include <cmath>

#include "looplab/base/rng.hpp"

namespace looplab {

LinearData sine_trend_data() {
  const int n = 1000;
  LinearData d{Tensor({n, 1}), Tensor({n, 1})};
  for (int i = 0; i < n; ++i) {
    const double x = 0.1 * i;  // numpy.arange(100, step=0.1)
    d.x[i] = static_cast<float>(x);
    d.y[i] = static_cast<float>(x + 20.0 * std::sin(x / 10.0) + 15.0);
  }
  return d;
}

LinearData synthetic_data(const SyntheticSpec& s) {
  LinearData d{Tensor({s.n, 1}), Tensor({s.n, 1})};
  Rng rng(s.seed);
  for (int i = 0; i < s.n; ++i) {
    const double x = rng.uniform(s.x_min, s.x_max);
    d.x[i] = static_cast<float>(x);
    d.y[i] = static_cast<float>(s.slope * x + s.intercept + s.noise * rng.normal());
  }
  return d;
}

LinearData correlated_data(int n, double r, double slope, double intercept, double noise,
                           std::uint64_t seed) {
  LinearData d{Tensor({n, 2}), Tensor({n, 1})};
  Rng rng(seed);
  for (int i = 0; i < n; ++i) {
    const double x1 = rng.normal(), x2 = r * x1 + std::sqrt(1.0 - r * r) * rng.normal();
    d.x[2 * static_cast<std::size_t>(i)] = static_cast<float>(x1);
    d.x[2 * static_cast<std::size_t>(i) + 1] = static_cast<float>(x2);
    d.y[i] = static_cast<float>(slope * (x1 + x2) + intercept + noise * rng.normal());
  }
  return d;
}

Tensor polynomial_features(const Tensor& x, int degree) {
  const int n = x.shape().rows;
  Tensor out({n, degree});
  for (int i = 0; i < n; ++i) {
    double power = 1.0;
    for (int k = 0; k < degree; ++k) {
      power *= x[i];
      out[static_cast<std::size_t>(i) * degree + k] = static_cast<float>(power);
    }
  }
  return out;
}

LinearData normal_data(int n, std::uint64_t seed) {
  LinearData d{Tensor({n, 1}), Tensor({n, 1})};
  Rng rng(seed);
  for (std::size_t i = 0; i < d.x.size(); ++i) d.x[i] = static_cast<float>(rng.normal());
  for (std::size_t i = 0; i < d.y.size(); ++i) d.y[i] = static_cast<float>(rng.normal());
  return d;
}

}  // namespace looplab
