// optimizers.cpp — issue 25: can a better optimizer replace scaling?
//
// The valley of the standardization experiment (the same data, the same exact stopping rule),
// crossed by four optimizers on raw and on scaled x (standardized by default), each at a tuned
// rate: gradient descent at 2/(λmin + λmax), heavy ball at its optimal α = 4/(√λmax + √λmin)², β =
// ((√κ − 1)/(√κ + 1))², Nesterov at α = 4/(3λmax + λmin), β = (√(3κ + 1) − 2)/(√(3κ + 1) + 2) — all
// from this run's eigenvalues — and Adam at the rate of a small grid that reaches the tolerance in
// the fewest iterations. Each run stops at the relative gap (L − L*)/L* ≤ tolerance, evaluated
// exactly in double from the float32 weights (L − L* = ½ δᵀHδ), or at max_iterations. The theory's
// rates per step, GD (κ − 1)/(κ + 1), heavy ball (√κ − 1)/(√κ + 1), Nesterov 1 − 2/√(3κ + 1), stand
// beside the measured counts.
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <limits>
#include <map>
#include <optional>

#include "looplab/base/i18n.hpp"
#include "looplab/base/order.hpp"
#include "looplab/data/csv.hpp"
#include "looplab/experiments/common_params.hpp"
#include "looplab/experiments/comparison.hpp"
#include "looplab/experiments/csv_attachment.hpp"
#include "looplab/experiments/experiment.hpp"
#include "looplab/experiments/paired.hpp"
#include "looplab/experiments/plots.hpp"
#include "looplab/experiments/results.hpp"
#include "looplab/experiments/run.hpp"
#include "looplab/experiments/timing.hpp"
#include "looplab/experiments/valley.hpp"
#include "looplab/train/graph_trainer.hpp"
#include "looplab/train/linear.hpp"
#include "looplab/train/optim.hpp"

namespace looplab {
// NOTE: a named namespace around the anonymous one: the layer builds as one unity file, and the
// names it shares with standardization.cpp (Variant, kChunk) stay apart.
namespace optimizers_experiment {
namespace {

constexpr int kChunk = kToleranceChunk;  // iterations per timed chunk
// Wall times to the tolerance are timed again in paired rounds after the runs (rounds.hpp: every
// timed run once a round, in a random order): at least this many, then more while a verdict is
// open, for at most max_seconds.
constexpr std::size_t kTimingRounds = kMinDecidingRounds;
// A turn replays its run until the turn has lasted this long (µs), and its time is the time per
// replay: a run of one step takes a few µs, a browser clock's tick (5 µs or more), and a reading of
// 0 would make the round's ratio infinite.
constexpr double kMinTurnUs = 200.0;
// Directions of the eigen plot: d + 1 for d ≤ 3 features.
constexpr int kMaxDirections = 4;
// Adam's rate is chosen from a sweep of this grid (1-2-5 steps), largest first, by the fewest
// iterations; a trial stops at kSweepSlack times the fewest so far (it can no longer win, and the
// sweep plot has its count near the best), so the sweep costs a few best runs. The choice is
// bracketed unless it lies at an end of the grid, and the result says which.
constexpr double kAdamGrid[] = {10.0, 5.0,  2.0,  1.0,   0.5,   0.2,  0.1,
                                0.05, 0.02, 0.01, 0.005, 0.002, 0.001};
constexpr double kSweepSlack = 4.0;
// tuning = sweep: gradient descent's, heavy ball's and Nesterov's rate from this grid (1-2-5 steps,
// wide enough for raw x's 5e-8), counted in exact arithmetic; β = 0.9 (Keras's usual momentum).
constexpr double kExactSweep[] = {10,   5,    2,    1,    0.5,  0.2,  0.1,  5e-2, 2e-2, 1e-2, 5e-3,
                                  2e-3, 1e-3, 5e-4, 2e-4, 1e-4, 5e-5, 2e-5, 1e-5, 5e-6, 2e-6, 1e-6,
                                  5e-7, 2e-7, 1e-7, 5e-8, 2e-8, 1e-8, 5e-9, 2e-9, 1e-9};
constexpr double kSweepBeta = 0.9;
// While the largest rate tried is the best, the sweep goes on at twice it, up to this rate: the
// choice is then bracketed on both sides.
constexpr double kAdamMaxRate = 1000.0;
constexpr int kAdamMaxExtensions = 7;  // 10 · 2⁷ = 1,280 > kAdamMaxRate
// The exact sweep of the other optimizers: rates (2/λmax)·10^(−4 + k/8), k = 0 … 38 (up to about
// 5.6 × 2/λmax: heavy ball's cliff lies at 2(1 + β)/λmax), each counted by its exact recurrence.
constexpr int kSweepRates = 39;
// A run's exact count is stepped up to this many iterations (heavy ball, Nesterov, Adam: a unit of
// work, whatever max_iterations): the answer ranks the optimizers by it, also where the float32
// run stops at max_iterations. Counts beyond it rank as unknown.
constexpr long long kExactLimit = 1'000'000;
constexpr long long kGdExactLimit = 1'000'000'000'000;  // Quadratic::predicted_iterations' own
// Features by default: x and x² of the seed's data (make() says why).
constexpr long long kDefaultDegree = 2;
// Its rows: gradient descent, heavy ball at the theory's β, heavy ball at β = 0.9, Nesterov at the
// theory's β.
const char* const kSweepRows[] = {"gd", "momentum", "momentum_0.9", "nesterov"};
enum class Method { Gd, Momentum, Nesterov, Adam };
constexpr Method kOptimizers[] = {Method::Gd, Method::Momentum, Method::Nesterov, Method::Adam};
// Its name in parameters, ids and results: "gd", "momentum", "nesterov", "adam".
const char* name_of(Method o) {
  static const char* const names[] = {"gd", "momentum", "nesterov", "adam"};
  return names[static_cast<int>(o)];
}
const char* const kScalings[] = {"raw", "scaled"};
// The preprocessing ladder, in order: raw x, then valley.hpp's scalings from the least to the most
// that they remove (the units, the tilt, both, and the correlation between features).
const char* const kRungs[] = {"raw", "centre", "minmax", "standardize", "whiten"};
// What the ladder's table calls each optimizer (a message, in the reader's language).
const char* const kOptimizerNames[] = {"opt.name_gd", "opt.name_momentum", "opt.name_nesterov",
                                       "opt.name_adam"};

// Linear regression trained by one optimizer of optim.hpp, full batch, in one mode.
class OptimizerTrainer {
 public:
  OptimizerTrainer(Mode mode, Method optimizer, double lr, double beta, const Tensor& x,
                   const Tensor& y)
      : x_(x.data()),
        y_(y.data()),
        model_(x.shape().cols),
        opt_(make_optimizer(optimizer == Method::Gd ? "sgd" : name_of(optimizer), lr,
                            model_.parameters(), options(beta))),
        trainer_(mode, model_, *opt_, x.shape(), y.shape()) {}
  float step() {
    float loss = 0.0f;
    trainer_.run(&x_, &y_, &loss);
    return loss;
  }
  void read_theta(double* theta) const { model_.read_theta(theta); }
  json setup_info() const { return trainer_.setup_info(); }

 private:
  static OptimizerOptions options(double beta) {
    OptimizerOptions o;
    o.beta = beta;
    return o;
  }
  const float* x_;
  const float* y_;
  LinearRegression model_;
  std::unique_ptr<Optimizer> opt_;
  GraphTrainer trainer_;
};

// One x the optimizers train on, with the exact analysis of its quadratic.
struct Problem {
  std::string name, label;   // "raw", "raw x"; "scaled", "standardized x"; "centre", "centred x"
  std::string rung;          // its place on the ladder (kRungs)
  bool ladder_only = false;  // run for the ladder's table alone: no plots, comparisons or timing
  Tensor x;
  std::optional<Scaler> scaler;
  double scaling_ms = 0.0;
  std::optional<Quadratic> quad;
  RateAnalysis gd;            // gradient descent at its best rate 2/(λmin + λmax)
  Quadratic::Tuning hb, nag;  // heavy ball's and Nesterov's optimal α, β and their ρ
};

// One training run to the tolerance (Adam's grid trials too).
struct Track : ToleranceRun {
  std::unique_ptr<OptimizerTrainer> trainer;
};

struct Trial {
  double lr;
  std::optional<long long> hit;
  double gap;
};

struct Variant {
  std::string name, label;  // "raw_gd", "gd, raw x"
  Method optimizer = Method::Gd;
  Problem* problem = nullptr;
  double lr = 0.0, beta = 0.0, rho = 0.0;  // rho: the theory's rate per step (not for adam)
  // Exact arithmetic (double): the recurrences of gd, momentum and nesterov; adam's update at
  // its chosen rate, once its sweep is done.
  std::optional<long long> predicted;
  Track track;
  std::vector<Trial> trials;  // adam: the grid, as far as it has been run
  std::optional<Track> trial;
  double wall_ms = 0.0, tuning_ms = 0.0;  // wall_ms: the recorded run's, scaling included
  // The timing rounds: each turn replays the run to its hit (scaling x again, for scaled
  // x), nothing recorded, on trainers built before the turn; µs per replay, a round each.
  const std::vector<double>* round_us = nullptr;
  std::vector<Track> replays;
  SeriesSampler sampler;
  Series* series = nullptr;
  bool bracketed = false;  // adam, tuning = sweep: the chosen rate has a grid rate either side
  // tuning = sweep (gd, momentum, nesterov): the rates counted in exact arithmetic so far, the
  // fewest iterations among them, and the largest rate at which no direction grows.
  bool sweeping = false;
  int swept = 0;
  std::optional<long long> sweep_best;
  double sweep_stable = 0.0;
  bool sweep_reached = false;  // the sweep is done and one of its rates reached the tolerance
  std::vector<double> rates;   // adam: the sweep's rates, in the order tried
  bool tuned() const {
    return optimizer == Method::Adam ? trials.size() == rates.size() : !sweeping;
  }
};

// Every run's name, "raw_gd" … "scaled_adam".
std::vector<std::string> run_names() {
  std::vector<std::string> names;
  for (const char* s : kScalings)
    for (const Method o : kOptimizers) names.push_back(std::string(s) + "_" + name_of(o));
  return names;
}

// The sweep plot's series: "sweep_raw_gd", … "sweep_scaled_adam".
std::vector<std::string> sweep_names() {
  std::vector<std::string> names;
  for (const char* s : kScalings) {
    for (const char* row : kSweepRows) names.push_back(std::string("sweep_") + s + "_" + row);
    names.push_back(std::string("sweep_") + s + "_adam");
  }
  return names;
}

// The sweep plot of raw or of scaled x: its five rows.
json sweep_plot(const std::string& x) {
  std::vector<std::string> series;
  for (const std::string& name : sweep_names())
    if (name.rfind("sweep_" + x + "_", 0) == 0) series.push_back(name);
  return line_plot("sweep_" + x, {"lr", Scale::Log}, {"iterations", Scale::Log}, series);
}

// The ladder's heatmap: a row per rung, a column per optimizer, the exact iterations to the
// tolerance (result key "ladder").
json ladder_plot() {
  json plot = heatmap_plot("ladder", "x", "optimizer", "exact_iterations", "log");
  plot["source"] = "ladder";
  return plot;
}

class OptimizersRun final : public ChunkedRun {
 public:
  explicit OptimizersRun(const Params& p)
      : ChunkedRun("optimizers", p),
        mode_(parse_mode(p.choice("mode"))),
        tolerance_(p.number("tolerance")),
        max_iterations_(p.integer("max_iterations")),
        tuning_(p.choice("tuning")),
        csv_(csv_data(p)),
        data_(line_data(p, csv_)) {
    add_problem("raw", "raw");
    add_problem("scaled", p.choice("scaling"));
    if (p.flag("ladder"))
      for (const char* rung : kRungs)
        if (rung != std::string("raw") && rung != p.choice("scaling")) add_problem(rung, rung);
    for (Problem& pr : problems_)
      for (const Method o : kOptimizers) {
        Series* series = nullptr;
        if (!pr.ladder_only)
          series = &add_series(pr.name + "_" + name_of(o),
                               {"iteration", "loss", "gap", "W", "b", "line_w", "line_b"});
        if (p.flag(name_of(o))) add_variant(pr, o, series);
      }
    add_valleys();
    for (int i = 1; i <= kMaxDirections; ++i)
      eigen_.push_back(&add_series("λ" + std::to_string(i), {"iteration", "gap"}));
    eigen_run_ = find(p.choice("eigen_run"));
    for (const std::string& name : sweep_names())
      sweep_[name] = &add_series(name, {"lr", "iterations"});
  }

  bool finished() const override { return variants_.back()->track.finished && timing_done_; }

 private:
  // A rung of the ladder: raw x, or x scaled by valley.hpp's scaling `rung`; named "raw",
  // "scaled" (the chosen scaling, plotted and timed) or its rung (the ladder's table alone).
  void add_problem(const std::string& name, const std::string& rung) {
    Problem& pr = problems_.emplace_back();
    pr.name = name;
    pr.rung = rung;
    pr.ladder_only = name != "raw" && name != "scaled";
    pr.label = rung == "raw" ? "raw x" : scaling_label(rung);
    if (rung != "raw") {
      const Stopwatch w;
      pr.scaler = Scaler::fit(data_.x, scaling_kind(rung));
      pr.x = pr.scaler->transform(data_.x);
      pr.scaling_ms = w.elapsed_ms();
    } else {
      pr.x = data_.x;
    }
    pr.quad.emplace(pr.x, data_.y);
    const Quadratic& q = *pr.quad;
    const RateAnalysis any = q.rates(zero(), 1e-30, tolerance_);
    pr.gd = q.rates(zero(), any.best_lr, tolerance_);
    pr.hb = q.best_heavy_ball();
    pr.nag = q.best_nesterov();
  }

  LinearWeights zero() const {  // every run's start, θ = 0
    return {std::vector<double>(static_cast<std::size_t>(data_.x.shape().cols), 0.0), 0.0};
  }

  void add_variant(Problem& pr, Method o, Series* series) {
    auto v = std::make_unique<Variant>();
    v->name = pr.name + "_" + name_of(o);
    v->optimizer = o;
    v->label = std::string(name_of(o)) + ", " + pr.label;
    v->problem = &pr;
    v->series = series;
    v->wall_ms = pr.scaling_ms;
    if (o == Method::Adam) {
      v->rho = std::nan("");
    } else if (tuning_ == "manual") {
      v->lr = params().number("manual_lr");
      v->beta = o == Method::Gd ? 0.0 : params().number("manual_beta");
    } else if (tuning_ == "sweep") {
      v->beta = o == Method::Gd ? 0.0 : kSweepBeta;
      v->sweeping = true;  // one rate per unit of work (sweep_step), then exact_tuned
    } else {               // the theory's optimum
      const Quadratic::Tuning theory = o == Method::Gd         ? Quadratic::Tuning{pr.gd.best_lr}
                                       : o == Method::Momentum ? pr.hb
                                                               : pr.nag;
      v->lr = theory.lr;
      v->beta = theory.beta;
    }
    if (o == Method::Adam) v->rates.assign(std::begin(kAdamGrid), std::end(kAdamGrid));
    if (v->tuned()) exact_tuned(*v);
    variants_.push_back(std::move(v));
  }

  // Gradient descent, heavy ball or Nesterov at its rate: its ρ, its exact count, its run.
  void exact_tuned(Variant& v) {
    const Problem& pr = *v.problem;
    v.rho = v.optimizer == Method::Gd ? pr.quad->rates(zero(), v.lr, tolerance_).rho
            : tuning_ == "theory"     ? (v.optimizer == Method::Momentum ? pr.hb.rho : pr.nag.rho)
                                      : std::nan("");
    v.predicted = exact_count(v, v.lr, v.optimizer == Method::Gd ? kGdExactLimit : kExactLimit);
    start_track(v, v.track, v.lr, max_iterations_);
  }

  // The iterations optimizer o (at momentum beta) needs on pr's x at rate lr in exact arithmetic,
  // up to limit: the runs' counts, the tuning sweep's and the plotted sweep's.
  std::optional<long long> exact_count(const Problem& pr, Method o, double beta, double lr,
                                       long long limit) const {
    const Quadratic& q = *pr.quad;
    switch (o) {
      case Method::Gd:
        return q.predicted_iterations(zero(), lr, tolerance_, limit);
      case Method::Momentum:
        return q.predicted_heavy_ball_iterations(zero(), lr, beta, tolerance_, limit);
      case Method::Nesterov:
        return q.predicted_nesterov_iterations(zero(), lr, beta, tolerance_, limit);
      case Method::Adam:
        return q.predicted_adam_iterations(zero(), lr, tolerance_, limit);
    }
    return std::nullopt;
  }
  std::optional<long long> exact_count(const Variant& v, double lr, long long limit) const {
    return exact_count(*v.problem, v.optimizer, v.beta, lr, limit);
  }

  // The largest lr·λmax at which no direction grows: 2 (gradient descent), 2(1 + β) (heavy ball),
  // 2(1 + β)/(1 + 2β) (Nesterov: its 2×2 recurrence per direction, by Jury's test); none for Adam.
  static double cliff(Method o, double b) {
    return o == Method::Gd         ? 2.0
           : o == Method::Momentum ? 2.0 * (1.0 + b)
           : o == Method::Nesterov ? 2.0 * (1.0 + b) / (1.0 + 2.0 * b)
                                   : std::numeric_limits<double>::infinity();
  }
  static bool grows(const Problem& pr, Method o, double beta, double lr) {
    return lr * pr.gd.lambda_max >= cliff(o, beta);
  }
  static bool diverges(const Variant& v) { return grows(*v.problem, v.optimizer, v.beta, v.lr); }

  // tuning = sweep, one rate of kExactSweep per unit of work: β = kSweepBeta for heavy ball and
  // Nesterov, and the rate with the fewest iterations, each counted in exact arithmetic up to
  // max_iterations (at most kExactLimit): what running the trials would find, without running
  // them. When none gets there: the largest rate at which no direction grows, lr·λmax below 2
  // (gradient descent), 2(1 + β) (heavy ball) or 2(1 + β)/(1 + 2β) (Nesterov): a trial past it
  // diverges at once.
  void sweep_step(Variant& v) {
    const double lr = kExactSweep[v.swept++];
    if (!grows(*v.problem, v.optimizer, v.beta, lr)) v.sweep_stable = std::max(v.sweep_stable, lr);
    const std::optional<long long> n = exact_count(v, lr, std::min(max_iterations_, kExactLimit));
    if (n && (!v.sweep_best || *n < *v.sweep_best)) {
      v.sweep_best = n;
      v.lr = lr;
    }
    if (v.swept < static_cast<int>(std::size(kExactSweep))) return;
    v.sweeping = false;
    v.sweep_reached = v.sweep_best.has_value();
    if (!v.sweep_reached) v.lr = v.sweep_stable > 0.0 ? v.sweep_stable : kExactSweep[v.swept - 1];
    v.bracketed = v.sweep_reached && v.lr != kExactSweep[0] && v.lr != kExactSweep[v.swept - 1];
    exact_tuned(v);
  }

  void start_track(const Variant& v, Track& t, double lr, long long limit) {
    t.trainer =
        std::make_unique<OptimizerTrainer>(mode_, v.optimizer, lr, v.beta, v.problem->x, data_.y);
    t.start(static_cast<std::size_t>(v.problem->x.shape().cols), limit);
  }

  // The picture of each x's valley (valley.hpp), and a sample of the data.
  void add_valleys() {
    Series& levels = add_series("valley_levels",
                                {"raw_gd", "raw_momentum", "raw_nesterov", "raw_adam", "scaled_gd",
                                 "scaled_momentum", "scaled_nesterov", "scaled_adam"});
    std::vector<double> lv[2];
    for (int s = 0; s < 2; ++s) {
      add_valley_grid(add_series(problems_[s].name + "_valley", {"W", "b", "gap"}),
                      *problems_[s].quad);
      lv[s] = valley_levels(problems_[s].gd.gap0);
    }
    for (std::size_t k = 0; k < lv[0].size(); ++k)
      levels.add({lv[0][k], lv[0][k], lv[0][k], lv[0][k], lv[1][k], lv[1][k], lv[1][k], lv[1][k]});
    add_data_sample(add_series("data", {"x", "y"}), data_);
    // Several features: the panels show the plane of the extreme eigen-directions (valley.hpp).
    if (valley_in_eigen_plane(*problems_[0].quad)) add_series("valley_plane", {"eigen"}).add({1.0});
  }

  // One point of the exact learning-rate sweep, a unit of work (a recurrence may run to
  // max_iterations): the iterations rate k of a row needs in exact arithmetic, plotted unless it
  // diverges (past the cliff) or needs more than max_iterations.
  void sweep_point(std::size_t i) {
    const std::size_t rows = std::size(kSweepRows);
    Problem& pr = problems_[i / (rows * kSweepRates)];
    const std::string row = kSweepRows[(i / kSweepRates) % rows];
    const double lr = 2.0 / pr.gd.lambda_max *
                      std::pow(10.0, -4.0 + 0.125 * static_cast<double>(i % kSweepRates));
    const Method o = row == "gd"         ? Method::Gd
                     : row == "nesterov" ? Method::Nesterov
                                         : Method::Momentum;
    const double beta = row == "gd"         ? 0.0
                        : row == "nesterov" ? pr.nag.beta
                        : row == "momentum" ? pr.hb.beta
                                            : kSweepBeta;  // "momentum_0.9"
    const std::optional<long long> n = exact_count(pr, o, beta, lr, max_iterations_);
    if (n) sweep_series(pr, row).add({lr, static_cast<double>(*n)});
  }

  Series& sweep_series(const Problem& pr, const std::string& row) {
    return *sweep_.at("sweep_" + pr.name + "_" + row);
  }

  Variant& current() const {
    for (const auto& v : variants_)
      if (!v->track.finished) return *v;
    return *variants_.back();
  }

  void work_one() override {
    if (swept_ < 2 * std::size(kSweepRows) * kSweepRates) return sweep_point(swept_++);
    if (variants_.back()->track.finished) return time_turn();
    Variant& v = current();
    if (v.tuned()) {
      const Stopwatch w;
      run_chunk(v, v.track, kChunk, true);
      v.wall_ms += w.elapsed_ms();
      return;
    }
    if (v.sweeping) {
      const Stopwatch w;
      sweep_step(v);
      v.tuning_ms += w.elapsed_ms();
      return;
    }
    // Adam's sweep: the next trial, capped at kSweepSlack times the best count so far.
    const Stopwatch w;
    if (!v.trial) {
      long long limit = max_iterations_;
      for (const Trial& t : v.trials)
        if (t.hit)
          limit =
              std::min(limit, static_cast<long long>(kSweepSlack * static_cast<double>(*t.hit)));
      v.trial.emplace();
      start_track(v, *v.trial, v.rates[v.trials.size()], limit);
    }
    run_chunk(v, *v.trial, kChunk, false);
    if (v.trial->finished) {
      v.trials.push_back({v.rates[v.trials.size()], v.trial->hit,
                          v.trial->diverged_at ? std::nan("") : v.trial->last_gap});
      if (v.trial->hit && !v.problem->ladder_only)
        sweep_series(*v.problem, "adam")
            .add({v.trials.back().lr, static_cast<double>(*v.trial->hit)});
      v.trial.reset();
      if (v.tuned()) {
        // The fewest iterations; with none reaching the tolerance, the lowest final gap.
        const Trial* best = &v.trials[0];
        double top = 0.0, bottom = std::numeric_limits<double>::infinity();
        for (const Trial& t : v.trials) {
          const bool better = t.hit ? (!best->hit || *t.hit < *best->hit)
                                    : (!best->hit && std::isfinite(t.gap) && !(t.gap >= best->gap));
          if (better) best = &t;
          top = std::max(top, t.lr);
          bottom = std::min(bottom, t.lr);
        }
        if (best->hit && best->lr == top && 2.0 * top <= kAdamMaxRate) {
          v.rates.push_back(2.0 * top);  // the best is the largest tried: try a larger one
        } else {
          v.lr = best->lr;
          v.bracketed = best->lr != top && best->lr != bottom;
          v.predicted = exact_count(v, v.lr, kExactLimit);
          start_track(v, v.track, v.lr, max_iterations_);
        }
      }
    }
    v.tuning_ms += w.elapsed_ms();
  }

  // Up to `steps` iterations of a track; a plot point where the sampler wants one if `record`.
  void run_chunk(Variant& v, Track& t, int steps, bool record) {
    const Quadratic& q = *v.problem->quad;
    t.advance(
        *t.trainer, [&] { return t.trainer->step(); },
        [&](double gap, bool last) {
          if (!record || !v.series || (!v.sampler.wants(t.iteration) && !last)) return;
          const double loss = q.loss_at_optimum() + gap * q.gap_scale();
          const auto xy = path_columns(q, t.at, raw_units(v));
          v.series->add({static_cast<double>(t.iteration), loss, gap, xy[0], xy[1], xy[2], xy[3]});
          if (&v == eigen_run_) add_eigen_point(q, t);
        },
        q, tolerance_, steps);
  }

  // The chosen run's gap along each eigen-direction (the "eigen" plot): series λ1 … λ(d+1),
  // ascending eigenvalues.
  void add_eigen_point(const Quadratic& q, const Track& t) {
    const std::vector<double> shares = gap_by_direction(q, t.at);
    for (std::size_t i = 0; i < shares.size() && i < eigen_.size(); ++i)
      eigen_[i]->add({static_cast<double>(t.iteration), shares[i]});
  }

  // The timing rounds' pairs, side a first: each optimizer on scaled x against it on raw x, when
  // both reached the tolerance, and gradient descent on scaled x against the answer's best on raw
  // x (best_raw), when that is another optimizer.
  struct WallPair {
    std::string id;
    Variant *a, *b;
  };
  std::vector<WallPair> wall_pairs() const {
    std::vector<WallPair> pairs;
    for (const Method o : kOptimizers) {
      Variant* raw = find(std::string("raw_") + name_of(o));
      Variant* scaled = find(std::string("scaled_") + name_of(o));
      if (raw && scaled && raw->track.hit && scaled->track.hit)
        pairs.push_back({std::string(name_of(o)) + "_wall_time", scaled, raw});
    }
    Variant *gd = find("scaled_gd"), *best = best_raw();
    if (gd && best && gd->track.hit && best->track.hit && best->optimizer != Method::Gd)
      pairs.push_back({"best_raw_wall_time", gd, best});
    return pairs;
  }

  // The optimizer on raw x that needs the fewest iterations in exact arithmetic (double), among
  // those that get there within kExactLimit (gradient descent's count, found by bisection, can be
  // larger; the others' are unknown beyond it); nullptr when none does.
  Variant* best_raw() const {
    Variant* best = nullptr;
    for (const Method o : kOptimizers) {
      Variant* v = find(std::string("raw_") + name_of(o));
      if (v && ranked_count(*v) < kUnranked && (!best || *v->predicted < *best->predicted))
        best = v;
    }
    return best;
  }
  // The count the answer ranks by: the exact count within kExactLimit, else kUnranked.
  static constexpr long long kUnranked = std::numeric_limits<long long>::max();
  static long long ranked_count(const Variant& v) {
    return v.predicted && *v.predicted <= kExactLimit ? *v.predicted : kUnranked;
  }

  std::size_t rounds_done() const { return rounds_ ? rounds_->rounds() : 0; }

  // The timing rounds start once every run is done: a side per timed run (timed_pairs), a turn
  // of whole replays lasting at least kMinTurnUs.
  void start_timing() {
    timing_started_ = true;
    pairs_ = wall_pairs();
    for (const WallPair& p : pairs_)
      for (Variant* v : {p.a, p.b})
        if (std::find(timed_.begin(), timed_.end(), v) == timed_.end()) timed_.push_back(v);
    if (timed_.empty()) {
      timing_done_ = true;
      return;
    }
    std::vector<TimedSide> sides;
    for (Variant* v : timed_)
      sides.push_back({v->label, [] { return true; },
                       [this, v](long long replays) { return replay(*v, replays); },
                       [this, v](long long replays) { build_replays(*v, replays); }});
    rounds_ = &add_rounds(std::move(sides), {kMinTurnUs / 1000.0, 1, false});
    for (std::size_t i = 0; i < timed_.size(); ++i) timed_[i]->round_us = &rounds_->rounds_us(i);
  }

  // Fresh trainers for a turn's replays, built outside the stopwatch (the compiled code is
  // cached).
  void build_replays(Variant& v, long long replays) {
    v.replays.resize(static_cast<std::size_t>(replays));
    for (Track& t : v.replays) {
      t = Track{};
      start_track(v, t, v.lr, *v.track.hit);
    }
  }

  // The turn: each replay scales x again (scaled x) and runs to its hit.
  long long replay(Variant& v, long long replays) {
    for (Track& t : v.replays) {
      if (v.problem->scaler) {
        const Scaler scaler = Scaler::fit(data_.x, scaling_kind(v.problem->rung));
        const Tensor x = scaler.transform(data_.x);
        (void)x;
      }
      while (!t.finished) run_chunk(v, t, kChunk, false);
    }
    v.replays.clear();
    return replays;
  }

  void time_turn() {
    if (!timing_started_) return start_timing();
    rounds_->turn();
    if (rounds_done() >= kTimingRounds && !rounds_->mid_round()) timing_done_ = true;
  }

  LinearWeights raw_units(const Variant& v) const {
    return v.problem->scaler ? v.problem->scaler->to_raw(v.track.at) : v.track.at;
  }

  // The runs' iterations (to 90%), then the timing rounds (a share fixed in advance: the progress
  // never goes back when a run ends and its replays join the rounds). A run expects its predicted
  // count, or its iterations so far when it has gone past it (float32 gradient descent on raw x
  // stalls short of the tolerance): both sides grow alike, so the fraction still moves up.
  double fraction() const override {
    double total = 0.0, got = 0.0;
    for (const auto& v : variants_) {
      const long long predicted = std::min(max_iterations_, v->predicted.value_or(1000));
      const double expected = static_cast<double>(std::max(predicted, v->track.iteration)) + 1.0;
      total += expected;
      got += v->track.finished ? expected
                               : std::min(expected, static_cast<double>(v->track.iteration));
    }
    if (!timing_started_) return 0.9 * got / total;
    if (timed_.empty()) return 1.0;
    const double rounds = static_cast<double>(std::min(rounds_done(), kTimingRounds));
    return 0.9 + 0.1 * rounds / static_cast<double>(kTimingRounds);
  }

  json progress_message() const override {
    if (timing_started_ && !timed_.empty())
      return msg("opt.progress_timing", {{"name", timed_[rounds_->side()]->label},
                                         {"k", static_cast<long long>(rounds_done() + 1)},
                                         {"n", static_cast<long long>(kTimingRounds)}});
    const Variant& v = current();
    if (v.sweeping)
      return msg("opt.progress_tuning",
                 {{"name", v.label}, {"lr", kExactSweep[v.swept]}, {"i", 0}});
    if (!v.tuned())
      return msg("opt.progress_tuning", {{"name", v.label},
                                         {"lr", v.rates[v.trials.size()]},
                                         {"i", v.trial ? v.trial->iteration : 0}});
    return msg("opt.progress", {{"name", v.label}, {"i", v.track.iteration}});
  }

  json config() const override { return config_without_text(params(), csv_); }

  static json number_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

  json runs() const override {
    json runs = json::array();
    for (const auto& vp : variants_) {
      const Variant& v = *vp;
      if (v.problem->ladder_only) continue;  // in the ladder's table
      const Track& t = v.track;
      const LinearWeights w = raw_units(v);
      const double steps = static_cast<double>(std::max<long long>(1, t.iteration));
      json r = object({{"variant", v.name},
                       {"optimizer", name_of(v.optimizer)},
                       {"x", v.problem->name},
                       {"mode", mode_name(mode_)},
                       {"lr", v.lr},
                       {"beta", v.optimizer == Method::Adam ? json(nullptr) : json(v.beta)},
                       {"iterations_to_tolerance", optional_json(t.hit)},
                       {"iterations_run", t.iteration},
                       {"diverged_at", optional_json(t.diverged_at)},
                       {"wall_ms", time_ms(v)},
                       {"rounds", static_cast<long long>(timed(v) ? v.round_us->size() : 0)},
                       {"ci_ms", !timed(v) ? json(nullptr) : interval_json(ms_rounds(v))},
                       // One basis: the recorded run's own time, less its own scaling of x (the
                       // rounds' warm replays against a cold scaling could go negative).
                       {"us_per_iteration", (v.wall_ms - v.problem->scaling_ms) * 1000.0 / steps},
                       {"W", w.w.at(0)},
                       {"b", w.b},
                       {"final_gap", t.diverged_at ? json(nullptr) : json(t.last_gap)},
                       {"condition_number", v.problem->quad->condition_number()},
                       {"theory_rho", number_or_null(v.rho)},
                       {"predicted_iterations", optional_json(v.predicted)}});
      if (v.optimizer == Method::Adam || tuning_ == "sweep") r["tuning_ms"] = v.tuning_ms;
      add_weights(r, w);
      const json setup = t.trainer ? t.trainer->setup_info() : json::object();
      for (const auto& [key, value] : setup.items()) r[key] = value;
      runs.push_back(r);
    }
    return runs;
  }

  // The rung `name` of the ladder ("raw" … "whiten"), when this run has it.
  const Problem* find_rung(const std::string& name) const {
    for (const Problem& pr : problems_)
      if (pr.rung == name) return &pr;
    return nullptr;
  }
  const Problem& rung(const std::string& name) const { return *find_rung(name); }
  static std::string variant_name(const Problem& pr, Method o) {
    return pr.name + "_" + name_of(o);
  }

  // The ladder's table (result key "ladder", drawn as a heatmap): a row per rung and optimizer,
  // its κ, exact and measured iterations and the recorded run's wall time.
  json tables() const override { return object({{"ladder", ladder_table()}}); }

  Variant* find(const std::string& name) const {
    for (const auto& v : variants_)
      if (v->name == name) return v.get();
    return nullptr;
  }

  // Timed in the rounds: a partner reached the tolerance too, and a round is counted.
  static bool timed(const Variant& v) { return v.round_us && !v.round_us->empty(); }
  static std::vector<double> ms_rounds(const Variant& v) { return in_ms(*v.round_us); }

  // A run's wall time to the tolerance: the median of its timing rounds, or the recorded run's
  // when it was not timed again (it has no partner that reached the tolerance).
  static double time_ms(const Variant& v) {
    return !timed(v) ? v.wall_ms : median(*v.round_us) / 1000.0;
  }

  std::vector<Comparison> wall_comparisons() const;
  std::vector<Comparison> comparisons() const override;
  json answer(const std::vector<Comparison>& cmp) const;
  json ranking() const;
  json needs(const Variant& v) const;
  json exact_message(const Variant& v) const;
  json ladder_story() const;
  json momentum_story() const;
  json ladder_table() const;
  json headline() const;
  json reading(const std::vector<Comparison>& cmp) const;
  json theory() const;
  json summary() const override;

  Mode mode_;
  double tolerance_;
  long long max_iterations_;
  std::string tuning_;  // theory | sweep | manual
  std::optional<CsvData> csv_;
  LinearData data_;
  std::deque<Problem> problems_;  // raw, scaled, then the ladder's other rungs (stable addresses)
  std::vector<std::unique_ptr<Variant>> variants_;
  std::vector<Series*> eigen_;            // the chosen run's gap along eigen-directions 1 … d + 1
  const Variant* eigen_run_ = nullptr;    // the run the eigen plot follows, when it runs
  std::map<std::string, Series*> sweep_;  // sweep_<x>_<row>: iterations against the rate
  std::size_t swept_ = 0;                 // points of the exact sweep done
  std::vector<WallPair> pairs_;     // the timed comparisons (wall_pairs), once the runs are done
  std::vector<Variant*> timed_;     // their sides, each once
  PairedRounds* rounds_ = nullptr;  // the timing rounds, once the runs are done
  bool timing_started_ = false, timing_done_ = false;
};

// Iterations of a and b (side a first), exact counts: when both runs reached the tolerance, or
// one did and the other stopped at max_iterations without it (its count is then a lower bound,
// and its label says so). Nothing when either diverged or neither reached it.
std::optional<Comparison> count_comparison(const std::string& id, const Variant& a,
                                           const Variant& b) {
  const Track &ta = a.track, &tb = b.track;
  if (ta.diverged_at || tb.diverged_at || (!ta.hit && !tb.hit)) return std::nullopt;
  auto side = [](const Variant& v) {
    const Track& t = v.track;
    Measure m{t.hit ? v.label : v.label + " (not reached)",
              static_cast<double>(t.hit.value_or(t.iteration)), 0.0};
    m.bound = !t.hit;
    return m;
  };
  return compare(id, side(a), side(b), Quantity::Count, "iterations");
}

std::vector<Comparison> OptimizersRun::comparisons() const {
  std::vector<Comparison> c;
  // Scaling's effect on each optimizer: scaled is side a, raw side b.
  for (const Method o : kOptimizers) {
    const Variant* raw = find(std::string("raw_") + name_of(o));
    const Variant* scaled = find(std::string("scaled_") + name_of(o));
    if (!raw || !scaled) continue;
    if (auto k = count_comparison(std::string(name_of(o)) + "_scaling", *scaled, *raw))
      c.push_back(*k);
  }
  // Each optimizer against gradient descent on the same x: the optimizer is side a.
  for (const char* s : kScalings) {
    const Variant* gd = find(std::string(s) + "_gd");
    if (!gd) continue;
    for (const Method o : kOptimizers) {
      const Variant* v = find(std::string(s) + "_" + name_of(o));
      if (!v || v == gd) continue;
      if (auto k = count_comparison(std::string(s) + "_" + name_of(o) + "_vs_gd", *v, *gd))
        c.push_back(*k);
    }
  }
  for (Comparison& w : wall_comparisons()) c.push_back(std::move(w));
  return c;
}

// Wall times to the tolerance from the paired timing rounds (ms, scaling x included): scaled
// against raw x per optimizer, and gradient descent on scaled x against the best on raw x.
std::vector<Comparison> OptimizersRun::wall_comparisons() const {
  std::vector<Comparison> c;
  for (const WallPair& p : pairs_) {
    if (!timed(*p.a) || !timed(*p.b)) continue;
    auto side = [](const Variant& v) { return paired_side(v.label, ms_rounds(v)); };
    c.push_back(compare(p.id, side(*p.a), side(*p.b), Quantity::Time, "ms to the tolerance"));
  }
  return c;
}

// The answer, from exact counts (double precision), never from float32's: every optimizer on raw
// x ranked against gradient descent on scaled x, the closest and what it needs to know; the
// ladder's story; float32 runs that ended away from their exact count, as a lesson of their own;
// the paired timing of the best on raw x against gradient descent on scaled x.
json OptimizersRun::answer(const std::vector<Comparison>& cmp) const {
  json list = json::array();
  for (const auto& v : variants_)
    if (!v->problem->ladder_only)
      list.push_back(
          msg("opt.a_list_item", {{"label", v->label}, {"n", iterations_message(v->track)}}));
  const Variant *gd = find("scaled_gd"), *best = best_raw();
  const bool any_raw = std::any_of(variants_.begin(), variants_.end(),
                                   [](const auto& v) { return v->problem->name == "raw"; });
  if (!gd || !gd->predicted || !any_raw)
    return msg("opt.a_partial", {{"list", separated(list, "sep.semicolon")}});
  json items = json::array();
  if (tuning_ == "manual") items.push_back(msg("opt.a_manual"));
  json args = object({{"label", gd->problem->label},
                      {"gds", *gd->predicted},
                      {"kr", problems_[0].quad->condition_number()},
                      {"ranking", ranking()},
                      {"n", kExactLimit}});
  const char* key = "opt.a_raw_beyond";  // none gets there within the exact limit
  if (best) {
    const double gds = static_cast<double>(std::max<long long>(1, *gd->predicted));
    const double f = static_cast<double>(*best->predicted) / gds;
    key = *best->predicted > *gd->predicted   ? "opt.a_closest_more"
          : *best->predicted < *gd->predicted ? "opt.a_closest_fewer"
                                              : "opt.a_closest_same";
    args["best"] = best->label;
    args["n"] = *best->predicted;
    args["f"] = f >= 1.0 ? f : 1.0 / std::max(f, 1.0 / gds);
    args["needs"] = needs(*best);
  }
  items.push_back(msg(key, args));
  for (json story : {ladder_story(), momentum_story()})
    if (!story.is_null()) items.push_back(std::move(story));
  for (const auto& v : variants_) {  // float32 runs that stopped where exact arithmetic did not
    const Track& t = v->track;
    if (v->problem->ladder_only || t.hit || t.diverged_at || !v->predicted ||
        *v->predicted > t.iteration)
      continue;
    items.push_back(msg(
        "opt.a_float32",
        {{"label", v->label}, {"n", t.iteration}, {"gap", t.last_gap}, {"exact", *v->predicted}}));
  }
  if (const Comparison* c = find_comparison(cmp, "best_raw_wall_time"))
    items.push_back(
        msg("opt.a_timing",
            {{"cmp", c->message()}, {"ms", gd->problem->scaling_ms}, {"label", gd->label}}));
  return msg("seq", {{"items", items}});
}

// The optimizers on raw x by their exact counts, fewest first; those beyond kExactLimit last, in
// their order (each said with its count, or "more than", or "diverges").
json OptimizersRun::ranking() const {
  std::vector<const Variant*> raw;
  for (const Method o : kOptimizers)
    if (const Variant* v = find(std::string("raw_") + name_of(o))) raw.push_back(v);
  std::vector<long long> counts;
  for (const Variant* v : raw) counts.push_back(ranked_count(*v));
  json items = json::array();
  for (const std::size_t i : order_by(counts))
    items.push_back(
        msg("opt.a_rank_item", {{"name", msg(kOptimizerNames[static_cast<int>(raw[i]->optimizer)])},
                                {"n", exact_message(*raw[i])}}));
  return separated(items, "sep.comma");
}

// What an optimizer's rate (and β) took to find: a sweep (Adam), H's eigenvalues (the others,
// tuned by the theory), or a hand (tuning = manual).
json OptimizersRun::needs(const Variant& v) const {
  if (v.optimizer == Method::Adam)
    return msg("opt.needs_sweep", {{"trials", static_cast<long long>(v.trials.size())}});
  if (tuning_ == "manual") return msg("opt.needs_manual");
  if (tuning_ == "sweep")
    return msg(v.sweep_reached ? "opt.needs_sweep_exact" : "opt.needs_sweep_none",
               {{"trials", static_cast<long long>(v.swept)}});
  return msg(v.optimizer == Method::Gd ? "opt.needs_gd" : "opt.needs_oracle");
}

// The exact count, or "more than" the limit it was looked for up to (gradient descent's count is
// found by bisection, not stepped: up to predicted_iterations' own limit).
json OptimizersRun::exact_message(const Variant& v) const {
  if (v.predicted) return msg("std.iter", {{"n", *v.predicted}});
  if (diverges(v)) return msg("opt.diverges");
  return msg("opt.beyond", {{"n", v.optimizer == Method::Gd ? kGdExactLimit : kExactLimit}});
}

// Down the ladder with gradient descent (exact counts); nothing unless every rung ran.
json OptimizersRun::ladder_story() const {
  if (problems_.size() != std::size(kRungs)) return nullptr;
  json rungs = json::array();
  for (const char* name : kRungs) {
    const Problem& pr = rung(name);
    const Variant* v = find(variant_name(pr, Method::Gd));
    rungs.push_back(msg("opt.a_rung", {{"label", pr.label},
                                       {"kappa", pr.quad->condition_number()},
                                       {"n", v ? exact_message(*v) : msg("opt.not_run")}}));
  }
  return msg("opt.a_ladder", {{"list", separated(rungs, "sep.semicolon")}});
}

// What momentum buys on scaled x: heavy ball against gradient descent (exact counts), beside √κ.
json OptimizersRun::momentum_story() const {
  const Variant *gd = find("scaled_gd"), *hb = find("scaled_momentum");
  if (!gd || !hb || !gd->predicted || !hb->predicted || *hb->predicted <= 0) return nullptr;
  const double kappa = gd->problem->quad->condition_number();
  // √κ is the theory's gain at its own α, β: beside another β, the β is said instead.
  const char* key = *hb->predicted > *gd->predicted    ? "opt.a_momentum_loses"
                    : *hb->predicted == *gd->predicted ? "opt.a_momentum_none"
                    : tuning_ == "theory"              ? "opt.a_momentum_buys"
                                                       : "opt.a_momentum_buys_beta";
  return msg(key, {{"label", gd->problem->label},
                   {"kappa", kappa},
                   {"hb", *hb->predicted},
                   {"gd", *gd->predicted},
                   {"f", static_cast<double>(*gd->predicted) / static_cast<double>(*hb->predicted)},
                   {"sk", std::sqrt(kappa)},
                   {"beta", hb->beta}});
}

json OptimizersRun::ladder_table() const {
  json rows = json::array();
  for (const char* name : kRungs) {
    const Problem* pr = find_rung(name);
    if (!pr) continue;
    for (const Method o : kOptimizers) {
      const Variant* v = find(variant_name(*pr, o));
      if (!v) continue;
      rows.push_back(object({{"x", msg("opt.ladder_x", {{"label", pr->label}})},
                             {"optimizer", msg(kOptimizerNames[static_cast<int>(o)])},
                             {"condition_number", pr->quad->condition_number()},
                             {"exact_iterations", optional_json(v->predicted)},
                             {"iterations_to_tolerance", optional_json(v->track.hit)},
                             {"iterations_run", v->track.iteration},
                             {"lr", v->lr},
                             {"wall_ms", v->wall_ms}}));
    }
  }
  return rows;
}

json OptimizersRun::headline() const {
  json headline = json::array();
  for (const char* name : kRungs) {  // a card per rung: κ, the exact counts, the theory's ρ
    const Problem* pr = find_rung(name);
    if (!pr) continue;
    const double kappa = pr->quad->condition_number(), sk = std::sqrt(kappa);
    json exact = json::array(), measured = json::array();
    for (const Method o : kOptimizers) {
      const Variant* v = find(variant_name(*pr, o));
      const json name_o = msg(kOptimizerNames[static_cast<int>(o)]);
      exact.push_back(msg("opt.a_rank_item",
                          {{"name", name_o}, {"n", v ? exact_message(*v) : msg("opt.not_run")}}));
      if (v)
        measured.push_back(
            msg("opt.a_rank_item", {{"name", name_o}, {"n", iterations_message(v->track)}}));
    }
    headline.push_back(
        card(msg("opt.h_rung", {{"label", pr->label}, {"kappa", kappa}}),
             msg("seq", {{"items", separated(exact, "sep.comma")}}),
             msg("opt.h_rung_note", {{"gd", (kappa - 1.0) / (kappa + 1.0)},
                                     {"hb", (sk - 1.0) / (sk + 1.0)},
                                     {"nag", pr->nag.rho},
                                     {"lmin", pr->gd.lambda_min},
                                     {"lmax", pr->gd.lambda_max},
                                     {"measured", separated(measured, "sep.comma")}})));
  }
  for (const auto& vp : variants_) {
    const Variant& v = *vp;
    if (v.problem->ladder_only) continue;
    json tuned;
    if (v.optimizer == Method::Adam)
      tuned = msg("opt.tuned_adam", {{"lr", v.lr},
                                     {"hi", *std::max_element(v.rates.begin(), v.rates.end())},
                                     {"lo", *std::min_element(v.rates.begin(), v.rates.end())},
                                     {"edge", v.bracketed ? json() : msg("opt.sweep_edge")}});
    else if (tuning_ == "manual")
      tuned = msg("opt.tuned_manual", {{"lr", v.lr}, {"beta", v.beta}});
    else if (tuning_ == "sweep")
      tuned = msg(v.sweep_reached ? "opt.tuned_sweep" : "opt.tuned_sweep_none",
                  {{"lr", v.lr},
                   {"beta", v.beta},
                   {"trials", static_cast<long long>(v.swept)},
                   {"edge", v.bracketed ? json() : msg("opt.sweep_edge")}});
    else
      tuned = msg(v.optimizer == Method::Gd ? "opt.tuned_gd" : "opt.tuned_theory",
                  {{"lr", v.lr}, {"beta", v.beta}});
    json note =
        msg("opt.h_run_note",
            {{"tuned", tuned},
             {"ms", time_ms(v)},
             {"predicted", v.predicted ? msg("opt.predicted", {{"n", *v.predicted}}) : json()}});
    headline.push_back(card(msg("opt.h_run", {{"label", v.label}, {"tol", tolerance_}}),
                            iterations_message(v.track), note));
  }
  return headline;
}

json OptimizersRun::reading(const std::vector<Comparison>& cmp) const {
  json reading = json::array();
  for (const auto& vp : variants_) {
    const Variant& v = *vp;
    if (v.problem->ladder_only) continue;
    if (v.track.diverged_at)
      reading.push_back(
          msg("opt.r_diverged", {{"label", v.label}, {"at", *v.track.diverged_at}, {"lr", v.lr}}));
    else if (!v.track.hit)
      reading.push_back(
          msg("std.r_not_reached",
              {{"label", v.label}, {"n", v.track.iteration}, {"gap", v.track.last_gap}}));
    if (v.optimizer == Method::Adam) {
      json grid = json::array();
      for (const Trial& t : v.trials)
        grid.push_back(msg(t.hit ? "opt.r_trial" : "opt.r_trial_stopped",
                           {{"lr", t.lr}, {"n", t.hit.value_or(0)}}));
      reading.push_back(msg("opt.r_adam", {{"label", v.label},
                                           {"list", separated(grid, "sep.semicolon")},
                                           {"lr", v.lr},
                                           {"slack", kSweepSlack}}));
    }
  }
  json said = json::array();
  for (const Comparison& c : cmp) said.push_back(c.message());
  const json measured = separated(said, "sep.semicolon");
  if (!measured.empty()) reading.push_back(msg("std.r_measured", {{"list", measured}}));
  reading.push_back(msg("opt.r_why"));
  return msg("seq", {{"items", reading}});
}

json OptimizersRun::theory() const {
  json theory = json::object();
  for (const Problem& pr : problems_) {
    const double kappa = pr.quad->condition_number(), sk = std::sqrt(kappa);
    theory[pr.name] = object({{"lambda_min", pr.gd.lambda_min},
                              {"lambda_max", pr.gd.lambda_max},
                              {"kappa", kappa},
                              {"gd_lr", pr.gd.best_lr},
                              {"gd_rho", (kappa - 1.0) / (kappa + 1.0)},
                              {"gd_estimated_iterations", optional_json(pr.gd.best_estimate)},
                              {"heavy_ball_lr", pr.hb.lr},
                              {"heavy_ball_beta", pr.hb.beta},
                              {"heavy_ball_rho", (sk - 1.0) / (sk + 1.0)},
                              {"nesterov_lr", pr.nag.lr},
                              {"nesterov_beta", pr.nag.beta},
                              {"nesterov_rho", pr.nag.rho}});
  }
  return theory;
}

json OptimizersRun::summary() const {
  const std::vector<Comparison> cmp = comparisons();
  const Quadratic& q = *problems_[0].quad;
  json s;
  s["closed_form"] = {
      {"W", q.optimum().w.at(0)}, {"b", q.optimum().b}, {"mse", q.loss_at_optimum()}};
  s["tolerance"] = tolerance_;
  s["tuning"] = tuning_;
  json grid = json::object();
  for (const auto& v : variants_) {
    if (v->optimizer != Method::Adam) continue;
    json trials = json::array();
    for (const Trial& t : v->trials)
      trials.push_back(object({{"lr", t.lr}, {"iterations_to_tolerance", optional_json(t.hit)}}));
    grid[v->problem->name] = object({{"trials", trials}, {"bracketed", v->bracketed}});
  }
  s["adam_grid"] = grid;
  s["theory"] = theory();
  s["comparisons"] = comparisons_json(cmp);
  summary_messages(s, headline(), reading(cmp), answer(cmp));
  return s;
}

}  // namespace

Experiment make() {
  Experiment e;
  e.id = "optimizers";
  // NOTE: no number here may depend on the data: every rate is computed in the run, from its own
  // eigenvalues, and stated in the result.
  e.params = line_data_params();
  // x and x² of the seed's data by default: standardizing leaves κ = 62 from their correlation,
  // what momentum works on and whitening removes (one feature standardized always has κ = 1).
  for (ParamSpec& spec : e.params)
    if (spec.name == "degree") spec.default_value = kDefaultDegree;
  e.params.insert(e.params.end(),
                  {
                      boolean("gd", true),
                      boolean("momentum", true),
                      boolean("nesterov", true),
                      boolean("adam", true),
                      choice("scaling", "standardize", scaling_names()),
                      boolean("ladder", true),
                      choice("tuning", "theory", {"theory", "sweep", "manual"}),
                      choice("eigen_run", "scaled_momentum", run_names()),
                      number("manual_lr", 1e-4, 0.0, 10.0)
                          .exclusive_min()
                          .log_scale()
                          .only_when("tuning", "manual"),
                      number("manual_beta", 0.9, 0.0, 0.999).only_when("tuning", "manual"),
                      number("tolerance", 1e-6, 1e-12, 1.0).log_scale(),
                      integer("max_iterations", 20000, 1, 10'000'000),
                      choice("mode", "traced", {"eager", "traced", "compiled"}),
                      common::max_seconds(),
                      common::band(),
                  });
  e.takes_csv = true;
  std::vector<std::string> names;
  std::vector<ContourPanel> panels;
  for (const char* s : kScalings)
    for (const Method o : kOptimizers) {
      const std::string name = std::string(s) + "_" + name_of(o);
      names.push_back(name);
      panels.push_back(
          {std::string(name_of(o)) + ", " + (std::string(s) == "raw" ? "raw x" : "scaled x"),
           std::string(s) + "_valley", name});
    }
  std::vector<std::string> directions;
  for (int i = 1; i <= kMaxDirections; ++i) directions.push_back("λ" + std::to_string(i));
  e.plots =
      json::array({line_plot("gap", {"iteration", Scale::Log}, {"gap", Scale::Log}, names),
                   contour_plot("valley", {"W"}, {"b"}, "gap", panels, "valley_levels", "data",
                                "line_w", "line_b"),
                   line_plot("eigen", {"iteration", Scale::Log}, {"gap", Scale::Log}, directions),
                   sweep_plot("raw"), sweep_plot("scaled"), ladder_plot()});
  e.check = [](const Params& p) {
    check_line_data(p, kDefaultDegree);
    if (!p.flag("gd") && !p.flag("momentum") && !p.flag("nesterov") && !p.flag("adam"))
      refuse("err.opt_none");
  };
  e.estimate = [](const Params& p) {
    const double n = p.choice("data") == "synthetic" ? static_cast<double>(p.integer("n")) : 1000.0;
    // Bytes: x, y and the scaled x, and per live trainer (a run's, kept to the end, and at most
    // one of Adam's grid trials) its buffers: eager allocates a few n-sized tensors per step, and
    // only one trainer steps at a time (measured: 3.9 MB at n = 200,000, limits_test.cpp). Steps:
    // every run and every grid trial, up to max_iterations, and the timing rounds' replays (at
    // least kTimingRounds of every run; more within max_seconds).
    const double rungs = p.flag("ladder") ? static_cast<double>(std::size(kRungs)) : 2.0;
    double runs = 0.0, trials = 0.0;
    for (const Method o : kOptimizers)
      if (p.flag(name_of(o))) {
        runs += rungs;
        if (o == Method::Adam)
          trials += rungs * static_cast<double>(std::size(kAdamGrid) + kAdamMaxExtensions);
      }
    return Estimate{1e6 + n * 4.0 * (3.0 + 8.0 * (runs + 1.0)),
                    (runs * (1.0 + kTimingRounds) + trials) *
                        static_cast<double>(p.integer("max_iterations") + 1),
                    "n and max_iterations"};
  };
  e.small_config = {"data=synthetic", "n=100", "max_iterations=1000", "max_seconds=0"};
  e.golden_configs = {
      {},
      {"mode=eager", "degree=1", "nesterov=false", "adam=false", "ladder=false",
       "max_iterations=200000"},
      {"tuning=manual", "manual_lr=1e-4", "manual_beta=0.9", "ladder=false", "max_iterations=5000"},
      {"data=correlated", "r=0.99", "max_iterations=20000", "max_seconds=0"}};
  e.start = start_run_of<OptimizersRun>;
  return e;
}

}  // namespace optimizers_experiment

Experiment make_optimizers_experiment() { return optimizers_experiment::make(); }

}  // namespace looplab
