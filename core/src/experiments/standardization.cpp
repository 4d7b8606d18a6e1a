// standardization.cpp — seed thread 004: why does scaling inputs make training faster?
//
// Two gradient-descent runs of the same linear regression, one on raw x and one on scaled x, each
// until the relative loss gap (L − L*)/L* reaches the tolerance (valley.hpp).
#include <Eigen/Dense>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "looplab/base/i18n.hpp"
#include "looplab/data/csv.hpp"
#include "looplab/experiments/common_params.hpp"
#include "looplab/experiments/comparison.hpp"
#include "looplab/experiments/csv_attachment.hpp"
#include "looplab/experiments/experiment.hpp"
#include "looplab/experiments/plots.hpp"
#include "looplab/experiments/results.hpp"
#include "looplab/experiments/run.hpp"
#include "looplab/experiments/timing.hpp"
#include "looplab/experiments/valley.hpp"
#include "looplab/train/linear.hpp"
#include "looplab/train/linear_trainer.hpp"

namespace looplab {
namespace {

struct Variant : ToleranceRun {
  std::string name;
  std::string label;  // in sentences: "raw x", "standardized x", "min-max scaled x"
  double lr = 0.0;
  Tensor x;                       // the inputs this variant trains on
  std::optional<Scaler> scaler;   // set for the scaled variant
  double scaling_ms = 0.0;        // fitting and applying the scaler (part of wall_ms)
  std::optional<Quadratic> quad;  // of this variant's own problem
  std::optional<long long> predicted;
  RateAnalysis rate;  // ρ, the estimate and the best rate for this variant's lr
  std::unique_ptr<LinearTrainer> trainer;

  double wall_ms = 0.0;
  std::vector<double> chunk_us;  // µs per iteration of every full chunk (kChunk iterations)
  long long chunks = 0;          // timed chunks, full or not
  SeriesSampler sampler;
  Series* series = nullptr;  // registered with the run as `name`: the path and the loss
};

constexpr int kChunk = kToleranceChunk;  // iterations per timed chunk

// An iteration estimate as a message argument: the count, or "never (ρ ≥ 1)".
json estimate_arg(const std::optional<long long>& k) { return k ? json(*k) : msg("std.est_never"); }

class StandardizationRun final : public ChunkedRun {
 public:
  explicit StandardizationRun(const Params& p)
      : ChunkedRun("standardization", p),
        mode_(parse_mode(p.choice("mode"))),
        tolerance_(p.number("tolerance")),
        max_iterations_(p.integer("max_iterations")),
        csv_(csv_data(p)),
        data_(line_data(p, csv_)) {
    add_variant("raw", "raw x", p.number("lr_raw"), std::nullopt);
    add_variant("scaled", scaling_label(p.choice("scaling")), p.number("lr_scaled"),
                scaling_kind(p.choice("scaling")));
    add_valleys();
  }

  bool finished() const override { return variants_.back()->finished; }

 private:
  void work_one() override { run_chunk(current(), kChunk); }

  json progress_message() const override {
    const Variant& v = current();
    return msg("std.progress", {{"name", v.name}, {"i", v.iteration}});
  }

  json config() const override { return config_without_text(params(), csv_); }

  json runs() const override {
    json runs = json::array();
    for (const auto& v : variants_) runs.push_back(run_json(*v));
    return runs;
  }

  void add_variant(const std::string& name, const std::string& label, double lr,
                   std::optional<ScalingKind> scaling) {
    auto v = std::make_unique<Variant>();
    v->name = name;
    v->label = label;
    // The path: W and b in the variant's own coordinates (drawn on its contours), line_w and
    // line_b the same line in raw units of x (drawn over the data).
    v->series = &add_series(name, {"iteration", "loss", "gap", "W", "b", "line_w", "line_b"});
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
    v->rate = v->quad->rates(zero, lr, tolerance_);
    v->start(zero.w.size(), max_iterations_);
    v->trainer = make_linear_trainer(mode_, v->x, data_.y);
    variants_.push_back(std::move(v));
  }

  // The picture of each variant's valley (valley.hpp), and a sample of the data.
  void add_valleys() {
    Series& levels = add_series("valley_levels", {"raw", "scaled"});
    std::vector<std::vector<double>> level_values;
    for (const auto& v : variants_) {
      add_valley_grid(add_series(v->name + "_valley", {"W", "b", "gap"}), *v->quad);
      level_values.push_back(valley_levels(v->rate.gap0));
    }
    for (std::size_t k = 0; k < level_values[0].size(); ++k)
      levels.add({level_values[0][k], level_values[1][k]});
    add_data_sample(add_series("data", {"x", "y"}), data_);
    // Several features: the panels show the plane of the extreme eigen-directions (valley.hpp).
    if (valley_in_eigen_plane(*variants_[0]->quad))
      add_series("valley_plane", {"eigen"}).add({1.0});
  }

  // The first unfinished variant (the last one once all are finished).
  Variant& current() const {
    for (const auto& v : variants_)
      if (!v->finished) return *v;
    return *variants_.back();
  }

  // Up to `steps` iterations, timed: a plot point where the sampler wants one.
  void run_chunk(Variant& v, int steps) {
    const Stopwatch w;
    const int c = v.advance(
        *v.trainer, [&] { return v.trainer->step(static_cast<float>(v.lr)); },
        [&](double gap, bool last) {
          if (!v.sampler.wants(v.iteration) && !last) return;
          const double loss = v.quad->loss_at_optimum() + gap * v.quad->gap_scale();
          const auto xy = path_columns(*v.quad, v.at, raw_units(v));
          v.series->add({static_cast<double>(v.iteration), loss, gap, xy[0], xy[1], xy[2], xy[3]});
        },
        *v.quad, tolerance_, steps);
    const double ms = w.elapsed_ms();
    v.wall_ms += ms;
    ++v.chunks;
    if (c == steps) v.chunk_us.push_back(ms * 1000.0 / steps);
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
    return v.scaler ? v.scaler->to_raw(v.at) : v.at;
  }

  json run_json(const Variant& v) const {
    const LinearWeights w = raw_units(v);
    const double steps = static_cast<double>(std::max<long long>(1, v.iteration));
    json r = object({{"variant", v.name},
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
                     {"predicted_iterations", optional_json(v.predicted)},
                     {"rho", v.rate.rho},
                     {"estimated_iterations", optional_json(v.rate.estimate)}});
    add_weights(r, w);
    const json setup = v.trainer->setup_info();
    for (const auto& [key, value] : setup.items()) r[key] = value;
    if (v.scaler) {
      r["scaling"] = params().choice("scaling");
      r["scaling_ms"] = v.scaling_ms;
    }
    return r;
  }

  // The time per iteration of a variant's full chunks, relative spread (half-IQR / median); 0
  // with fewer than 3 chunks, where there is no spread to measure.
  static double relative_spread(const Variant& v) {
    if (v.chunk_us.size() < 3) return 0.0;
    const double m = median(v.chunk_us);
    return m > 0.0 ? half_iqr(v.chunk_us) / m : 0.0;
  }

  std::vector<Comparison> comparisons() const override;
  json theory_message(const Variant& v, bool first) const;
  json answer(const std::vector<Comparison>& cmp) const;
  json beside_quoted() const;
  json theory() const;  // per variant: λ, κ, ρ, the estimates
  json headline(const std::vector<Comparison>& cmp) const;  // iterations, wall time, why, weights
  json reading(const std::vector<Comparison>& cmp) const;   // what happened, measured, why
  json summary() const override;

  Mode mode_;
  double tolerance_;
  long long max_iterations_;
  std::optional<CsvData> csv_;  // the user's own data, when a CSV came with the config
  LinearData data_;
  std::vector<std::unique_ptr<Variant>> variants_;
};

// Scaled is side a, raw side b, in every comparison.
std::vector<Comparison> StandardizationRun::comparisons() const {
  const Variant& raw = *variants_[0];
  const Variant& scaled = *variants_[1];
  std::vector<Comparison> c;
  if (raw.hit && scaled.hit) {
    // Iterations are exact: no spread.
    c.push_back(compare("iterations", {scaled.label, static_cast<double>(*scaled.hit), 0.0},
                        {raw.label, static_cast<double>(*raw.hit), 0.0}, Quantity::Count,
                        "iterations"));
    // A wall time is the sum of its run's timed chunks, measured once. Its spread: a clock tick
    // per chunk, plus the chunk-to-chunk scatter of the time per iteration (half-IQR / median)
    // shrunk by √chunks, as for a sum of independent chunks. A run too short to have a scatter
    // of its own borrows the other run's.
    const double clock_ms = environment()["clock_resolution_ns"].get<double>() * 1e-6;
    const double rel_raw = relative_spread(raw), rel_scaled = relative_spread(scaled);
    auto wall = [&](const Variant& v, double rel) {
      const double chunks = static_cast<double>(std::max<long long>(1, v.chunks));
      const double r = rel > 0.0 ? rel : std::max(rel_raw, rel_scaled);
      return Measure{v.label, v.wall_ms, clock_ms * chunks + v.wall_ms * r / std::sqrt(chunks)};
    };
    c.push_back(compare("wall_time", wall(scaled, rel_scaled), wall(raw, rel_raw), Quantity::Time,
                        "ms to the tolerance"));
  }
  // The time per iteration only where both runs have chunks enough to measure its spread.
  if (raw.chunk_us.size() >= 3 && scaled.chunk_us.size() >= 3) {
    auto per = [](const Variant& v) {
      return Measure{v.label, median(v.chunk_us), half_iqr(v.chunk_us)};
    };
    c.push_back(
        compare("time_per_iteration", per(scaled), per(raw), Quantity::Time, "µs per iteration"));
  }
  if (!raw.diverged_at && !scaled.diverged_at) {
    // A run that reached the tolerance stopped somewhere below it: its gap is known to ± tol.
    auto gap = [&](const Variant& v) {
      return Measure{v.label, v.last_gap, v.hit ? tolerance_ : 0.0};
    };
    c.push_back(
        compare("final_gap", gap(scaled), gap(raw), Quantity::Loss, "relative gap (L − L*)/L*"));
  }
  return c;
}

// ρ and the estimate with this run's own numbers, next to the measured count. `first`: the
// sentence starts with it ("For raw x, ...").
json StandardizationRun::theory_message(const Variant& v, bool first) const {
  const RateAnalysis& r = v.rate;
  // The eigenvalue that sets ρ: the one farthest from 1/lr.
  const double lambda = std::abs(1.0 - v.lr * r.lambda_min) >= std::abs(1.0 - v.lr * r.lambda_max)
                            ? r.lambda_min
                            : r.lambda_max;
  json rest;
  if (!r.estimate) {
    rest = msg("std.theory_grows");
  } else {
    const json slow = r.gap0_slow < r.gap0 * (1.0 - 1e-6)
                          ? msg("std.theory_slow", {{"gap0s", r.gap0_slow}, {"gap0", r.gap0}})
                          : json();
    rest = msg("std.theory_k", {{"gap0s", r.gap0_slow},
                                {"tol", tolerance_},
                                {"den", -2.0 * std::log(r.rho)},
                                {"k", *r.estimate},
                                {"slow", slow}});
  }
  return msg("std.theory", {{"for", msg(first ? "std.for_first" : "std.for", {{"label", v.label}})},
                            {"lr", v.lr},
                            {"lambda", lambda},
                            {"rho", r.rho},
                            {"rest", rest},
                            {"measured", iterations_message(v)},
                            {"kappa", r.kappa},
                            {"best_lr", r.best_lr},
                            {"best_rho", r.best_rho},
                            {"best_k", estimate_arg(r.best_estimate)}});
}

// The experiment's question, "why does scaling make training faster?", answered from this run.
json StandardizationRun::answer(const std::vector<Comparison>& cmp) const {
  const Variant& raw = *variants_[0];
  const Variant& scaled = *variants_[1];
  const RateAnalysis &rr = raw.rate, &rs = scaled.rate;
  // What κ alone costs: each variant at its best rate. Whether raw's count comes from κ or from
  // its learning rate is read from these, not assumed.
  const json best = msg("std.a_best", {{"kr", rr.kappa},
                                       {"kbr", estimate_arg(rr.best_estimate)},
                                       {"label", scaled.label},
                                       {"ks", rs.kappa},
                                       {"kbs", estimate_arg(rs.best_estimate)}});
  // Which costs raw x more here: its learning rate (its count over its best-rate count) or the
  // valley (its best-rate count over the scaled run's count)?
  json cause = msg("std.a_cause_none");
  if (rr.best_estimate && scaled.hit && !raw.diverged_at) {
    const double raw_count =
        static_cast<double>(raw.hit ? *raw.hit : rr.estimate.value_or(raw.iteration));
    const double best_count = static_cast<double>(std::max<long long>(1, *rr.best_estimate));
    const double lr_factor = raw_count / best_count;
    const double kappa_factor =
        best_count / static_cast<double>(std::max<long long>(1, *scaled.hit));
    cause = kappa_factor >= lr_factor
                ? msg("std.a_cause_kappa")
                : msg("std.a_cause_lr", {{"lr", raw.lr}, {"best", rr.best_lr}});
  }
  if (scaled.diverged_at)
    return msg("std.a_scaled_diverged", {{"lr", scaled.lr},
                                         {"label", scaled.label},
                                         {"max", scaled.quad->largest_stable_lr()},
                                         {"rho", rs.rho},
                                         {"at", *scaled.diverged_at},
                                         {"raw", iterations_message(raw)}});
  if (!scaled.hit)
    return msg("std.a_scaled_not_reached", {{"label", scaled.label},
                                            {"n", scaled.iteration},
                                            {"lr", scaled.lr},
                                            {"rho", rs.rho},
                                            {"k", estimate_arg(rs.estimate)},
                                            {"best", rs.best_lr},
                                            {"raw", iterations_message(raw)}});
  if (raw.diverged_at)
    return msg("std.a_raw_diverged", {{"lr", raw.lr},
                                      {"max", raw.quad->largest_stable_lr()},
                                      {"at", *raw.diverged_at},
                                      {"smax", scaled.quad->largest_stable_lr()},
                                      {"kr", rr.kappa},
                                      {"ks", rs.kappa},
                                      {"ls", scaled.lr},
                                      {"n", *scaled.hit},
                                      {"rho", rs.rho},
                                      {"best", best},
                                      {"cause", cause}});
  if (!raw.hit)
    return msg("std.a_raw_not_reached", {{"n", raw.iteration},
                                         {"rr", rr.rho},
                                         {"k", estimate_arg(rr.estimate)},
                                         {"label", scaled.label},
                                         {"ns", *scaled.hit},
                                         {"rs", rs.rho},
                                         {"best", best},
                                         {"cause", cause}});
  const Comparison& it = *find_comparison(cmp, "iterations");
  const Comparison& wall = *find_comparison(cmp, "wall_time");
  const json rates = msg("std.a_rates", {{"rr", rr.rho}, {"rs", rs.rho}, {"label", scaled.label}});
  if (it.verdict == Verdict::A) {
    const json fewer =
        msg("std.a_fewer", {{"f", it.factor()}, {"raw", *raw.hit}, {"scaled", *scaled.hit}});
    const char* key = wall.verdict == Verdict::A      ? "std.a_time_cut"
                      : wall.verdict == Verdict::Same ? "std.a_time_same"
                                                      : "std.a_time_longer";
    const json time = msg(
        key,
        {{"f", wall.factor()}, {"raw", raw.wall_ms}, {"scaled", scaled.wall_ms}, {"fewer", fewer}});
    return msg("std.a_faster",
               {{"time", time}, {"rates", rates}, {"best", best}, {"cause", cause}});
  }
  if (it.verdict == Verdict::B)
    return msg("std.a_slower",
               {{"f", it.factor()}, {"raw", *raw.hit}, {"scaled", *scaled.hit}, {"rates", rates}});
  return msg("std.a_unchanged", {{"n", *raw.hit}, {"rates", rates}});
}

json StandardizationRun::beside_quoted() const {
  const Variant& raw = *variants_[0];
  const Variant& scaled = *variants_[1];
  const bool seed = !csv_ && params().choice("data") == "seed004";
  json out = json::array();
  out.push_back(object(
      {{"label", msg("std.q_iter_label", {{"label", scaled.label}})},
       {"quoted", msg("std.q_iter_quoted")},
       {"measured", msg("std.q_iter_measured", {{"raw", iterations_message(raw)},
                                                {"scaled", iterations_message(scaled)},
                                                {"lr1", raw.lr},
                                                {"lr2", scaled.lr},
                                                {"tol", tolerance_}})},
       {"why", msg("std.q_iter_why", {{"not_seed", seed ? json() : msg("std.q_not_seed")}})}}));
  const double us =
      raw.iteration > 0 ? raw.wall_ms * 1000.0 / static_cast<double>(raw.iteration) : 0.0;
  const char* loop = mode_ == Mode::Eager      ? "std.q_loop_eager"
                     : mode_ == Mode::Traced   ? "std.q_loop_traced"
                     : mode_ == Mode::Compiled ? "std.q_loop_compiled"
                                               : "std.q_loop_reference";
  out.push_back(object(
      {{"label", msg("std.q_wall_label")},
       {"quoted", msg("std.q_wall_quoted")},
       {"measured",
        msg("std.q_wall_measured",
            {{"ms", raw.wall_ms}, {"n", raw.iteration}, {"us", us}, {"mode", mode_name(mode_)}})},
       {"why", msg("std.q_wall_why", {{"loop", msg(loop)}})}}));
  return out;
}

json StandardizationRun::theory() const {
  json theory = json::object();
  for (const auto& v : variants_) {
    const RateAnalysis& r = v->rate;
    theory[v->name] = object({{"lr", v->lr},
                              {"lambda_min", r.lambda_min},
                              {"lambda_max", r.lambda_max},
                              {"kappa", r.kappa},
                              {"rho", r.rho},
                              {"gap0", r.gap0},
                              {"gap0_slow", r.gap0_slow},
                              {"estimated_iterations", optional_json(r.estimate)},
                              {"exact_iterations", optional_json(v->predicted)},
                              {"measured_iterations", optional_json(v->hit)},
                              {"best_lr", r.best_lr},
                              {"best_rho", r.best_rho},
                              {"best_estimated_iterations", optional_json(r.best_estimate)}});
  }
  return theory;
}

json StandardizationRun::headline(const std::vector<Comparison>& cmp) const {
  const Variant& raw = *variants_[0];
  const Variant& scaled = *variants_[1];
  const Quadratic& q = *raw.quad;
  const Comparison* it = find_comparison(cmp, "iterations");
  const Comparison* wall = find_comparison(cmp, "wall_time");
  const LinearWeights wr = raw_units(raw), ws = raw_units(scaled);
  json headline = json::array();
  headline.push_back(card(msg("std.h_iter", {{"tol", tolerance_}}),
                          msg("std.h_iter_value", {{"raw", iterations_message(raw)},
                                                   {"scaled", iterations_message(scaled)}}),
                          it ? it->short_message() : msg("std.h_iter_none")));
  headline.push_back(card(
      msg("std.h_wall", {{"mode", mode_name(mode_)}}),
      msg("std.h_wall_value", {{"raw", raw.wall_ms}, {"scaled", scaled.wall_ms}}),
      wall ? msg("std.h_wall_note", {{"short", wall->short_message()}}) : msg("std.h_wall_none")));
  for (const auto& v : variants_) {
    const RateAnalysis& r = v->rate;
    headline.push_back(card(
        msg("std.h_why", {{"label", v->label}}),
        msg("std.h_why_value", {{"rho", r.rho},
                                {"k", estimate_arg(r.estimate)},
                                {"measured", iterations_message(*v)}}),
        msg("std.h_why_note", {{"kappa", r.kappa},
                               {"max", v->quad->largest_stable_lr()},
                               {"best_lr", r.best_lr},
                               {"best_rho", r.best_rho},
                               {"best_k", estimate_arg(r.best_estimate)},
                               {"exact", v->predicted ? json(*v->predicted) : msg("std.never")}})));
  }
  headline.push_back(
      card(msg("std.h_weights"),
           msg("std.h_weights_value",
               {{"w1", weights_arg(wr.w)}, {"b1", wr.b}, {"w2", weights_arg(ws.w)}, {"b2", ws.b}}),
           msg("std.h_weights_note", {{"w", weights_arg(q.optimum().w)},
                                      {"b", q.optimum().b},
                                      {"mse", q.loss_at_optimum()}})));
  return headline;
}

json StandardizationRun::reading(const std::vector<Comparison>& cmp) const {
  const Variant& raw = *variants_[0];
  const Variant& scaled = *variants_[1];
  json reading = json::array();
  for (const auto& v : variants_) {
    if (v->diverged_at)
      reading.push_back(msg("std.r_diverged", {{"label", v->label},
                                               {"at", *v->diverged_at},
                                               {"lr", v->lr},
                                               {"max", v->quad->largest_stable_lr()}}));
    else if (!v->hit)
      reading.push_back(msg("std.r_not_reached",
                            {{"label", v->label}, {"n", v->iteration}, {"gap", v->last_gap}}));
  }
  json said = json::array();
  for (const Comparison& c : cmp)
    if (c.quantity != Quantity::Loss) said.push_back(c.message());
  const json measured = separated(said, "sep.semicolon");
  if (!measured.empty()) reading.push_back(msg("std.r_measured", {{"list", measured}}));
  if (raw.chunk_us.size() < 3 || scaled.chunk_us.size() < 3)
    reading.push_back(msg("std.r_short", {{"n", 3 * kChunk}}));
  reading.push_back(msg("std.r_why", {{"raw", theory_message(raw, true)},
                                      {"scaled", theory_message(scaled, false)}}));
  if (const Comparison* g = find_comparison(cmp, "final_gap"))
    reading.push_back(msg("std.r_end", {{"cmp", g->message()}}));
  return msg("seq", {{"items", reading}});
}

json StandardizationRun::summary() const {
  const Variant& raw = *variants_[0];
  const Variant& scaled = *variants_[1];
  const Quadratic& q = *raw.quad;
  const std::vector<Comparison> cmp = comparisons();
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
  s["theory"] = theory();
  s["comparisons"] = comparisons_json(cmp);
  summary_messages(s, headline(cmp), reading(cmp), answer(cmp), beside_quoted());
  return s;
}

}  // namespace

Experiment make_standardization_experiment() {
  Experiment e;
  e.id = "standardization";
  // NOTE: no number here may depend on the data: a widget can preset synthetic data or a CSV.
  // Every figure about this run (κ, ρ, iterations) is in its result.
  e.params = line_data_params();
  e.params.insert(e.params.end(),
                  {
                      number("lr_raw", 1e-4, 0.0, 10.0).exclusive_min().log_scale(),
                      number("lr_scaled", 0.1, 0.0, 10.0).exclusive_min().log_scale(),
                      choice("scaling", "standardize", scaling_names()),
                      number("tolerance", 1e-6, 1e-12, 1.0).log_scale(),
                      integer("max_iterations", 200000, 1, 10'000'000),
                      choice("mode", "eager", {"eager", "traced", "compiled", "reference"}),
                  });
  e.takes_csv = true;
  e.plots = json::array(
      {line_plot("gap", {"iteration", Scale::Log}, {"gap", Scale::Log}, {"raw", "scaled"}),
       contour_plot("valley", {"W"}, {"b"}, "gap",
                    {{"raw x", "raw_valley", "raw"}, {"scaled x", "scaled_valley", "scaled"}},
                    "valley_levels", "data", "line_w", "line_b")});
  e.quoted_sources = {"seed thread 004, question", "seed thread 004, question",
                      "seed thread 004, question", "seed thread 004, answer 2"};
  e.check = [](const Params& p) { check_line_data(p); };
  e.estimate = [](const Params& p) {
    const double n = p.choice("data") == "synthetic" ? static_cast<double>(p.integer("n")) : 1000.0;
    // x and y, each variant's own x, its trainer's buffers (eager allocates a few n-sized tensors
    // per step): a few dozen floats per point; the iterations of both variants.
    return Estimate{1e6 + n * 4.0 * 48.0,
                    2.0 * static_cast<double>(p.integer("max_iterations") + 1),
                    "n and max_iterations"};
  };
  e.small_config = {"data=synthetic", "n=300", "max_iterations=3000"};
  e.golden_configs = {{},
                      {"mode=traced", "scaling=minmax", "lr_scaled=0.05"},
                      {"mode=eager", "lr_raw=1e-3", "max_iterations=2000"},
                      {"degree=3", "scaling=whiten", "lr_scaled=0.5", "max_iterations=2000"}};
  e.start = start_run_of<StandardizationRun>;
  return e;
}

}  // namespace looplab
