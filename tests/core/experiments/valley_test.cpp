// valley_test.cpp — a run to the tolerance (valley.hpp) on a known quadratic, driven by a trainer
// whose weights the test sets: where it stops, what it keeps, and how it reports divergence.
#include "looplab/experiments/valley.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "looplab/data/xy_data.hpp"

namespace looplab {
namespace {

// y = 2x + 1 with a little noise on x in [0, 10): θ* ≈ (2, 1), L* > 0.
LinearData line() {
  LinearData d{Tensor(Shape{50, 1}), Tensor(Shape{50, 1})};
  for (int i = 0; i < 50; ++i) {
    d.x[i] = 0.2f * static_cast<float>(i);
    d.y[i] = 2.0f * d.x[i] + 1.0f + (i % 2 ? 0.3f : -0.3f);
  }
  return d;
}

// Weights halfway closer to θ* each step: θ_k = (1 − 2^−k)·θ*.
struct HalvingTrainer {
  const Quadratic& q;
  int k = 0;
  void read_theta(double* theta) const {
    const double f = 1.0 - std::pow(0.5, k);
    theta[0] = f * q.optimum().w[0];
    theta[1] = f * q.optimum().b;
  }
  double at(int i) const {
    const double f = 1.0 - std::pow(0.5, i);
    return q.relative_gap(LinearWeights{{f * q.optimum().w[0]}, f * q.optimum().b});
  }
};

TEST(ToleranceRun, StopsAtTheFirstIterationWithinTheTolerance) {
  const LinearData d = line();
  const Quadratic q(d.x, d.y);
  HalvingTrainer t{q};
  const double tol = 1e-4;
  int expected = 0;
  while (t.at(expected) > tol) ++expected;
  ToleranceRun run;
  run.start(1, 1000);
  int visits = 0, lasts = 0;
  int checked = 0;
  while (!run.finished)
    checked += run.advance(
        t, [&] { return static_cast<float>(++t.k); },
        [&](double, bool last) {
          ++visits;
          lasts += last;
        },
        q, tol, 7);
  ASSERT_TRUE(run.hit);
  EXPECT_EQ(*run.hit, expected);
  EXPECT_EQ(run.iteration, expected);
  EXPECT_EQ(visits, expected + 1);  // one check per iteration 0..hit
  EXPECT_EQ(lasts, 1);
  EXPECT_EQ(checked, expected);  // the iterations that stepped: the hit's check stops the run
  EXPECT_DOUBLE_EQ(run.last_gap, t.at(expected));
  EXPECT_DOUBLE_EQ(run.at.w[0], (1.0 - std::pow(0.5, expected)) * q.optimum().w[0]);
  EXPECT_FALSE(run.diverged_at);
}

TEST(ToleranceRun, StopsAtItsLimitWithoutAHit) {
  const LinearData d = line();
  const Quadratic q(d.x, d.y);
  HalvingTrainer t{q};
  ToleranceRun run;
  run.start(1, 3);
  run.advance(
      t, [&] { return static_cast<float>(++t.k); }, [](double, bool) {}, q, 1e-12, 100);
  EXPECT_TRUE(run.finished);
  EXPECT_FALSE(run.hit);
  EXPECT_EQ(run.iteration, 3);
  EXPECT_FALSE(run.diverged_at);
}

TEST(ToleranceRun, ALossThatIsNotFiniteIsDivergenceAtThatIteration) {
  const LinearData d = line();
  const Quadratic q(d.x, d.y);
  HalvingTrainer t{q};
  ToleranceRun run;
  run.start(1, 1000);
  run.advance(
      t,
      [&] {
        ++t.k;
        return t.k == 4 ? std::numeric_limits<float>::quiet_NaN() : 1.0f;
      },
      [](double, bool) {}, q, 1e-12, 100);
  EXPECT_TRUE(run.finished);
  ASSERT_TRUE(run.diverged_at);
  EXPECT_EQ(*run.diverged_at, 3);  // iteration 3's step gave the NaN
  EXPECT_FALSE(run.hit);
  // The weights kept are the last ones with a finite gap (iteration 3's).
  EXPECT_DOUBLE_EQ(run.at.b, (1.0 - std::pow(0.5, 3)) * q.optimum().b);
}

TEST(Valley, LevelsSpanTwoDecadesFromTheStartingGap) {
  const std::vector<double> levels = valley_levels(50.0);
  ASSERT_EQ(levels.size(), 10u);
  EXPECT_DOUBLE_EQ(levels.front(), 50.0);
  EXPECT_NEAR(levels.back(), 0.5, 1e-9);
  for (std::size_t i = 1; i < levels.size(); ++i) EXPECT_LT(levels[i], levels[i - 1]);
}

}  // namespace
}  // namespace looplab
