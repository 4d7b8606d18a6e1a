// looplab/experiments/valley.hpp — what the standardization and optimizers experiments share: a
// linear regression trained until its relative loss gap (L − L*)/L* reaches a tolerance, and the
// picture of its loss valley.
//
// The gap is evaluated exactly in double from the float32 weights (L − L* = ½ δᵀHδ, Quadratic of
// train/linear.hpp), so it costs O(1) per step and is not blurred by float32 rounding of an n-term
// sum.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <vector>

#include "looplab/base/json.hpp"
#include "looplab/data/xy_data.hpp"
#include "looplab/experiments/results.hpp"
#include "looplab/train/linear.hpp"

namespace looplab {

constexpr int kToleranceChunk = 256;  // iterations a run to the tolerance takes per work unit

// One run to the tolerance, as far as it has gone.
struct ToleranceRun {
  long long iteration = 0, limit = 0;
  std::optional<long long> hit, diverged_at;
  bool finished = false;
  double last_gap = 0.0;
  LinearWeights at;  // the weights at the last finite gap, in the run's own coordinates (of x)

  // A run from θ = 0 with d weights (and a bias), stopping at `limit` iterations.
  void start(std::size_t d, long long iteration_limit);

  // Up to `steps` iterations: read the trainer's weights, check the gap, visit(gap, last) (a plot
  // point; `last`: the run stops here), then step() (a loss that is not finite: diverged).
  // Returns the iterations checked.
  template <class Trainer, class Step, class Visit>
  int advance(const Trainer& trainer, Step&& step, Visit&& visit, const Quadratic& q,
              double tolerance, int steps) {
    int c = 0;
    for (; c < steps && !finished; ++c) {
      trainer.read_theta(theta_.data());
      const double gap = q.relative_gap(theta_.data());
      if (!std::isfinite(gap)) return diverge(c);
      last_gap = gap;
      std::copy(theta_.begin(), theta_.end() - 1, at.w.begin());
      at.b = theta_.back();
      const bool reached = gap <= tolerance, last = reached || iteration >= limit;
      visit(gap, last);
      if (reached) hit = iteration;
      if (last) {
        finished = true;
        return c;
      }
      if (!std::isfinite(step())) return diverge(c);
      ++iteration;
    }
    return c;
  }

 private:
  int diverge(int c) {
    diverged_at = iteration;
    finished = true;
    return c;
  }
  std::vector<double> theta_;  // read before the gap is known to be finite
};

// The preprocessing ladder's rungs as a `scaling` choice: "standardize", "minmax", "centre",
// "whiten"; each one's kind and its label in sentences ("standardized x", a catalog label).
std::vector<std::string> scaling_names();
ScalingKind scaling_kind(const std::string& name);
std::string scaling_label(const std::string& name);

// A path point's plot columns: the valley plane's two coordinates, and the fitted line in raw units
// of x (W, b) for one feature, NaN for more (there is no line to draw).
std::array<double, 4> path_columns(const Quadratic& q, const LinearWeights& own,
                                   const LinearWeights& raw);

// The relative gap along each eigen-direction of H, slowest (smallest λ) first: ½λᵢcᵢ²/L*, where
// c = Vᵀ(θ − θ*); they sum to the relative gap (Distill's "Why Momentum Really Works", measured).
std::vector<double> gap_by_direction(const Quadratic& q, const LinearWeights& w);

// The iterations a run needed, as a message: "39", "diverged at 12", "not reached in 200,000".
json iterations_message(const ToleranceRun& r);

// Weights W as a message argument: the number for one feature, "w₁, w₂, …" for more.
json weights_arg(const std::vector<double>& w);
// Adds "weights" (every W, raw units) to a run's record when there are several features ("W" is
// the first).
void add_weights(json& run, const LinearWeights& raw);

// A count that may be missing: the number, or null.
json optional_json(const std::optional<long long>& v);

// The plane a valley is drawn in: for one feature (W, b) itself; for more, the plane through θ* of
// H's slowest and fastest eigen-directions, a point's coordinates its distances from θ* along them.
bool valley_in_eigen_plane(const Quadratic& q);

// The picture of a valley, known before the first step: a kGrid × kGrid grid of the relative gap
// over the plane, the other directions at their optimum. The box is θ* ± 1.15·r_j, where
// r_j = sqrt(2·gap₀·a_jᵀH⁻¹a_j) is the half-width along axis a_j of the loss's level set through
// the start θ = 0: every point a converging run visits lies inside it (each step lowers the loss).
void add_valley_grid(Series& grid, const Quadratic& q);
// The contour levels, log-spaced from a run's starting gap down two decades: in a narrow valley
// the lines close to the floor matter most.
std::vector<double> valley_levels(double gap0);
// Up to 200 points of the data (x: its first feature), evenly spaced, drawn under the fitted line.
void add_data_sample(Series& data, const LinearData& d);

}  // namespace looplab
