// standardization.cpp — seed thread 004: why does scaling inputs make training faster?
//
// Two gradient-descent runs of the same linear regression, one on raw x and one on scaled x, each
// until the relative loss gap (L − L*)/L* reaches the tolerance. The gap is evaluated exactly in
// double from the float32 weights (L − L* = ½ δᵀHδ), so it costs O(1) per step and is not
// blurred by float32 rounding of a 1000-term sum.
#include <cmath>
#include <optional>

#include "looplab/data/csv.hpp"
#include "looplab/experiments/common_params.hpp"
#include "looplab/experiments/csv_attachment.hpp"
#include "looplab/experiments/experiment.hpp"
#include "looplab/experiments/plots.hpp"
#include "looplab/experiments/results.hpp"
#include "looplab/experiments/run.hpp"
#include "looplab/train/linear.hpp"
#include "looplab/train/linear_trainer.hpp"

namespace looplab {
namespace {

struct Variant {
  std::string name;
  double lr = 0.0;
  Tensor x;                       // the inputs this variant trains on
  std::optional<Scaler> scaler;   // set for the scaled variant
  double scaling_ms = 0.0;        // fitting and applying the scaler (part of wall_ms)
  std::optional<Quadratic> quad;  // of this variant's own problem
  std::optional<long long> predicted;
  std::unique_ptr<LinearTrainer> trainer;

  long long iteration = 0;
  std::optional<long long> hit, diverged_at;
  bool finished = false;
  double wall_ms = 0.0, last_gap = 0.0;
  LinearWeights last_finite;  // the weights at the last iteration with a finite loss
  SeriesSampler sampler;
  Series* series = nullptr;  // registered with the run as `name`
};

// The user's CSV must determine a line: two rows at least, and more than one distinct x.
LinearData checked_csv_data(CsvData csv) {
  const Tensor& x = csv.data.x;
  if (csv.rows < 2)
    throw ConfigError("csv: needs at least 2 data rows to fit a line, got " +
                      with_commas(static_cast<long long>(csv.rows)));
  for (std::size_t i = 1; i < csv.rows; ++i)
    if (x[i] != x[0]) return std::move(csv.data);
  throw ConfigError("x: column \"" + csv.x +
                    "\" has one value in every row; a line through it is not determined");
}

LinearData make_data(const Params& p, const std::optional<CsvData>& csv) {
  if (csv) return checked_csv_data(*csv);
  if (p.choice("data") == "seed004") return sine_trend_data();
  SyntheticSpec s;
  s.n = static_cast<int>(p.integer("n"));
  s.slope = p.number("slope");
  s.intercept = p.number("intercept");
  s.noise = p.number("noise");
  s.x_min = p.number("x_min");
  s.x_max = p.number("x_max");
  s.seed = static_cast<std::uint64_t>(p.integer("seed"));
  return synthetic_data(s);
}

class StandardizationRun final : public ChunkedRun {
 public:
  explicit StandardizationRun(const Params& p)
      : ChunkedRun("standardization", p),
        mode_(parse_mode(p.choice("mode"))),
        tolerance_(p.number("tolerance")),
        max_iterations_(p.integer("max_iterations")),
        csv_(csv_data(p)),
        data_(make_data(p, csv_)) {
    add_variant("raw", p.number("lr_raw"), std::nullopt);
    add_variant("scaled", p.number("lr_scaled"),
                p.choice("scaling") == "minmax" ? ScalingKind::MinMax : ScalingKind::Standardize);
  }

  bool done() const override { return variants_.back()->finished; }

 private:
  void work_one() override { run_chunk(current(), 256); }

  std::string message() const override {
    const Variant& v = current();
    return v.name + ": iteration " + with_commas(v.iteration);
  }

  json config() const override {
    json config = config_without_text(params(), csv_);
    if (csv_) config["data"] = "csv";
    return config;
  }

  json runs() const override {
    json runs = json::array();
    for (const auto& v : variants_) runs.push_back(run_json(*v));
    return runs;
  }

  void add_variant(const std::string& name, double lr, std::optional<ScalingKind> scaling) {
    auto v = std::make_unique<Variant>();
    v->name = name;
    v->series = &add_series(name, {"iteration", "loss", "gap"});
    v->lr = lr;
    if (scaling) {
      const Stopwatch w;
      v->scaler = Scaler::fit(data_.x, *scaling);
      v->x = v->scaler->transform(data_.x);
      v->scaling_ms = w.elapsed_ms();
      v->wall_ms = v->scaling_ms;
    } else {
      v->x = data_.x;
    }
    v->quad.emplace(v->x, data_.y);
    const LinearWeights zero{std::vector<double>(static_cast<std::size_t>(v->x.shape().cols), 0.0),
                             0.0};
    v->predicted = v->quad->predicted_iterations(zero, lr, tolerance_);
    v->last_finite = zero;
    v->trainer = make_linear_trainer(mode_, v->x, data_.y);
    variants_.push_back(std::move(v));
  }

  // The first unfinished variant (the last one once all are finished).
  Variant& current() const {
    for (const auto& v : variants_)
      if (!v->finished) return *v;
    return *variants_.back();
  }

  // Up to `steps` iterations: check the gap at the current weights, record a plot point, step.
  void run_chunk(Variant& v, int steps) {
    const Stopwatch w;
    double theta[17];
    for (int c = 0; c < steps && !v.finished; ++c) {
      v.trainer->read_theta(theta);
      const double gap = v.quad->relative_gap(theta);
      if (!std::isfinite(gap)) {
        v.diverged_at = v.iteration;
        v.finished = true;
        break;
      }
      v.last_gap = gap;
      for (std::size_t j = 0; j < v.last_finite.w.size(); ++j) v.last_finite.w[j] = theta[j];
      v.last_finite.b = theta[v.last_finite.w.size()];
      const bool hit = gap <= tolerance_;
      const bool last = hit || v.iteration >= max_iterations_;
      if (v.sampler.wants(v.iteration) || last) {
        const double loss = v.quad->loss_at_optimum() + gap * v.quad->gap_scale();
        v.series->add({static_cast<double>(v.iteration), loss, gap});
      }
      if (hit) v.hit = v.iteration;
      if (last) {
        v.finished = true;
        break;
      }
      if (!std::isfinite(v.trainer->step(static_cast<float>(v.lr)))) {
        v.diverged_at = v.iteration;
        v.finished = true;
        break;
      }
      ++v.iteration;
    }
    v.wall_ms += w.elapsed_ms();
  }

  double fraction() const override {
    double total = 0.0, got = 0.0;
    for (const auto& v : variants_) {
      const double expected =
          static_cast<double>(std::min(max_iterations_, v->predicted.value_or(max_iterations_))) +
          1.0;
      total += expected;
      got += v->finished ? expected : std::min(expected, static_cast<double>(v->iteration));
    }
    return got / total;
  }

  LinearWeights raw_units(const Variant& v) const {
    return v.scaler ? v.scaler->to_raw(v.last_finite) : v.last_finite;
  }

  static json optional_json(const std::optional<long long>& v) {
    return v ? json(*v) : json(nullptr);
  }

  json run_json(const Variant& v) const {
    const LinearWeights w = raw_units(v);
    const double steps = static_cast<double>(std::max<long long>(1, v.iteration));
    json r = {{"variant", v.name},
              {"mode", mode_name(mode_)},
              {"lr", v.lr},
              {"iterations_to_tolerance", optional_json(v.hit)},
              {"iterations_run", v.iteration},
              {"diverged_at", optional_json(v.diverged_at)},
              {"wall_ms", v.wall_ms},
              {"us_per_iteration", (v.wall_ms - v.scaling_ms) * 1000.0 / steps},
              {"W", w.w.at(0)},
              {"b", w.b},
              {"final_gap", v.diverged_at ? json(nullptr) : json(v.last_gap)},
              {"condition_number", v.quad->condition_number()},
              {"largest_stable_lr", v.quad->largest_stable_lr()},
              {"predicted_iterations", optional_json(v.predicted)}};
    const json setup = v.trainer->setup_info();
    for (const auto& [key, value] : setup.items()) r[key] = value;
    if (v.scaler) {
      r["scaling"] = params().choice("scaling");
      r["scaling_ms"] = v.scaling_ms;
    }
    return r;
  }

  json summary() const override;

  Mode mode_;
  double tolerance_;
  long long max_iterations_;
  std::optional<CsvData> csv_;  // the user's own data, when a CSV came with the config
  LinearData data_;
  std::vector<std::unique_ptr<Variant>> variants_;
};

std::string iterations_text(const Variant& v) {
  if (v.hit) return with_commas(*v.hit);
  if (v.diverged_at) return "diverged at " + with_commas(*v.diverged_at);
  return "not reached in " + with_commas(v.iteration);
}

json StandardizationRun::summary() const {
  const Variant& raw = *variants_[0];
  const Variant& scaled = *variants_[1];
  const Quadratic& q = *raw.quad;
  json s;
  s["closed_form"] = {
      {"W", q.optimum().w.at(0)}, {"b", q.optimum().b}, {"mse", q.loss_at_optimum()}};
  s["tolerance"] = tolerance_;
  json speedup_iterations = nullptr, speedup_wall = nullptr;
  if (raw.hit && scaled.hit) {
    speedup_iterations =
        static_cast<double>(*raw.hit) / static_cast<double>(std::max<long long>(1, *scaled.hit));
    speedup_wall = raw.wall_ms / std::max(scaled.wall_ms, 1e-9);
  }
  s["speedup_iterations"] = speedup_iterations;
  s["speedup_wall"] = speedup_wall;

  auto predicted_text = [](const Variant& v) {
    return v.predicted ? with_commas(*v.predicted) : std::string("never (lr ≥ 2/λmax)");
  };
  const LinearWeights wr = raw_units(raw), ws = raw_units(scaled);
  json headline = json::array();
  headline.push_back(
      {{"label", "Iterations to a " + format_sig(tolerance_, 2) + " relative gap"},
       {"value", iterations_text(raw) + " → " + iterations_text(scaled)},
       {"note", speedup_iterations.is_null()
                    ? "no ratio: a run did not reach the tolerance"
                    : format_sig(speedup_iterations.get<double>(), 4) + "× fewer iterations"}});
  headline.push_back(
      {{"label", "Wall time (" + mode_name(mode_) + ")"},
       {"value", format_sig(raw.wall_ms, 3) + " ms → " + format_sig(scaled.wall_ms, 3) + " ms"},
       {"note", speedup_wall.is_null()
                    ? "measured on this machine"
                    : format_sig(speedup_wall.get<double>(), 3) + "× less time, measured here"}});
  headline.push_back({{"label", "Condition number κ = λmax/λmin"},
                      {"value", format_sig(q.condition_number(), 5) + " → " +
                                    format_sig(scaled.quad->condition_number(), 3)},
                      {"note", "largest stable lr 2/λmax: " + format_sig(q.largest_stable_lr(), 2) +
                                   " → " + format_sig(scaled.quad->largest_stable_lr(), 2)}});
  headline.push_back({{"label", "Predicted iterations (exact arithmetic)"},
                      {"value", predicted_text(raw) + " → " + predicted_text(scaled)},
                      {"note", "from the eigenvalues of the Hessian; measured runs are float32"}});
  headline.push_back({{"label", "Weights in raw units (W, b)"},
                      {"value", format_sig(wr.w.at(0), 6) + ", " + format_sig(wr.b, 6) + "  |  " +
                                    format_sig(ws.w.at(0), 6) + ", " + format_sig(ws.b, 6)},
                      {"note", "closed form: " + format_sig(q.optimum().w.at(0), 6) + ", " +
                                   format_sig(q.optimum().b, 7) + " (MSE " +
                                   format_sig(q.loss_at_optimum(), 7) + ")"}});
  s["headline"] = headline;

  std::string reading;
  if (raw.diverged_at) {
    reading = "The raw run diverged at iteration " + with_commas(*raw.diverged_at) +
              ": lr_raw = " + format_sig(raw.lr, 3) +
              " is above the largest stable rate 2/λmax = " + format_sig(q.largest_stable_lr(), 3) +
              " for raw inputs. ";
  } else if (!raw.hit) {
    reading = "The raw run did not reach the tolerance in " + with_commas(raw.iteration) +
              " iterations (gap still " + format_sig(raw.last_gap, 3) + "). ";
  }
  if (raw.hit && scaled.hit) {
    reading += params().choice("scaling") == "standardize" ? "Standardizing" : "Min-max scaling";
    reading += " cut the iterations " + format_sig(speedup_iterations.get<double>(), 4) +
               "-fold (" + with_commas(*raw.hit) + " → " + with_commas(*scaled.hit) +
               ") and the wall time " + format_sig(speedup_wall.get<double>(), 3) +
               "-fold; theory predicted " + predicted_text(raw) + " → " + predicted_text(scaled) +
               " iterations from κ = " + format_sig(q.condition_number(), 5) + " → " +
               format_sig(scaled.quad->condition_number(), 3) + ".";
  } else if (scaled.hit) {
    reading += "The scaled run reached the tolerance in " + with_commas(*scaled.hit) +
               " iterations (κ = " + format_sig(scaled.quad->condition_number(), 3) + ").";
  } else if (scaled.diverged_at) {
    reading += "The scaled run diverged at iteration " + with_commas(*scaled.diverged_at) +
               ": lr_scaled is above 2/λmax = " + format_sig(scaled.quad->largest_stable_lr(), 3) +
               ".";
  } else {
    reading += "The scaled run did not reach the tolerance in " + with_commas(scaled.iteration) +
               " iterations.";
  }
  s["reading"] = reading;
  return s;
}

}  // namespace

Experiment make_standardization_experiment() {
  Experiment e;
  e.id = "standardization";
  e.title = "Standardization";
  e.question = "Why does scaling inputs make training 1000x faster?";
  e.explanation = {{"intro",
                    "Gradient descent fits y = W·x + b to 1000 points with x from 0 to 100. On raw "
                    "x the loss surface is a long, "
                    "narrow valley: W is steep, b is flat. Standardizing x, (x − mean)/std, makes "
                    "it a round bowl."},
                   {"try",
                    "Run with the defaults, then raise lr_raw to 1e-3 (above the largest stable "
                    "rate) and watch it diverge; try "
                    "scaling = minmax; try mode = reference to see what the framework machinery "
                    "costs per step; load a CSV of your "
                    "own and pick its x and y columns."},
                   {"mechanism",
                    "Each step shrinks the error along eigen-direction i of the Hessian H by |1 − "
                    "lr·λi|. Stability needs lr < 2/λmax, "
                    "so the slowest direction shrinks by about 1 − 2/κ per step with κ = "
                    "λmax/λmin: raw κ ≈ 13,300 needs ~10⁵ steps, "
                    "standardized κ = 1 needs ~40."}};
  e.params = {
      choice("data", "seed004", {"seed004", "synthetic"},
             "seed004: x = arange(0, 100, 0.1), y = x + 20 sin(x/10) + 15; synthetic: a noisy line "
             "(a CSV of your own, when given, replaces both)"),
      common::samples(1000, 2, "number of points").only_when("data", "synthetic"),
      number("slope", 1.0, -1e6, 1e6, "true slope of the line").only_when("data", "synthetic"),
      number("intercept", 15.0, -1e6, 1e6, "true intercept").only_when("data", "synthetic"),
      number("noise", 10.0, 0.0, 1e6, "standard deviation of the noise added to y")
          .only_when("data", "synthetic"),
      number("x_min", 0.0, -1e6, 1e6, "smallest x").only_when("data", "synthetic"),
      number("x_max", 100.0, -1e6, 1e6, "largest x").only_when("data", "synthetic"),
      common::seed("random seed of the synthetic data").only_when("data", "synthetic"),
      number("lr_raw", 1e-4, 0.0, 10.0, "learning rate on raw inputs").exclusive_min().log_scale(),
      number("lr_scaled", 0.1, 0.0, 10.0, "learning rate on scaled inputs")
          .exclusive_min()
          .log_scale(),
      choice("scaling", "standardize", {"standardize", "minmax"},
             "standardize: (x − mean)/std; minmax: (x − min)/(max − min)"),
      number("tolerance", 1e-6, 1e-12, 1.0, "stop when (L − L*)/L* is at most this").log_scale(),
      integer("max_iterations", 200000, 1, 10'000'000,
              "give up after this many iterations per run"),
      choice("mode", "eager", {"eager", "traced", "reference"},
             "eager: op by op with fresh buffers; traced: compiled once, replayed; reference: a "
             "hand-written loop"),
  };
  e.takes_csv = true;
  e.plots = json::array({line_plot("gap", "Relative loss gap (L − L*)/L* against iteration",
                                   {"iteration", "iteration", Scale::Log},
                                   {"gap", "(L − L*) / L*", Scale::Log}, {"raw", "scaled"})});
  e.quoted = json::array({{{"label", "TensorFlow 1.15 loop, 1e5 iterations, CPU"},
                           {"value", "about 40 s"},
                           {"source", "seed thread 004, question"}},
                          {{"label", "TensorFlow 1.15 loop, 1e5 iterations, GPU"},
                           {"value", "about 80 s"},
                           {"source", "seed thread 004, question"}},
                          {{"label", "The same loop in NumPy"},
                           {"value", "about 4 s"},
                           {"source", "seed thread 004, question"}},
                          {{"label", "Standardized x, lr 1e-1"},
                           {"value", "about 1e2 iterations instead of 1e5"},
                           {"source", "seed thread 004, answer 2"}}});
  e.check = [](const Params& p) {
    if (auto csv = csv_data(p))
      checked_csv_data(std::move(*csv));  // so validation reports a bad file too
    if (p.choice("data") == "synthetic" && !(p.number("x_min") < p.number("x_max")))
      throw ConfigError("x_max: must be greater than x_min (" + format_number(p.number("x_min")) +
                        "), got " + format_number(p.number("x_max")));
  };
  e.estimate = [](const Params& p) {
    const double n = p.choice("data") == "synthetic" ? static_cast<double>(p.integer("n")) : 1000.0;
    // x and y, each variant's own x, its trainer's buffers (eager allocates a few n-sized tensors
    // per step): a few dozen floats per point; the iterations of both variants.
    return Estimate{1e6 + n * 4.0 * 48.0,
                    2.0 * static_cast<double>(p.integer("max_iterations") + 1),
                    "n and max_iterations"};
  };
  e.start = start_run_of<StandardizationRun>;
  return e;
}

}  // namespace looplab
