// overhead.cpp — seed thread 004, answer 1: when does per-step overhead dominate?
//
// One linear-regression gradient step over N points, for N log-spaced from n_min to n_max, in each
// mode (eager, traced, compiled, reference). Time per step is the median of timed chunks of many
// steps (timing.hpp). Per mode, t(N) = a + b·N is fitted by least squares weighted by 1/t²
// (relative error, so every decade counts alike): a is the fixed overhead per step, b the cost per
// point, and the crossover N = a/b is where the two are equal — below it the step is mostly
// overhead. The page adds js_per_call, measured in the browser worker: JavaScript copies the N
// points into the wasm heap and calls one reference step per call, as seed 004 fed its data per
// Session.run. The comparisons are made at the smallest and the largest N, where the four modes
// keep a trainer each and take turns in paired rounds of chunks (rounds.hpp, paired.hpp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string_view>

#include "looplab/base/i18n.hpp"
#include "looplab/experiments/browser_measurements.hpp"
#include "looplab/experiments/common_params.hpp"
#include "looplab/experiments/comparison.hpp"
#include "looplab/experiments/experiment.hpp"
#include "looplab/experiments/plots.hpp"
#include "looplab/experiments/results.hpp"
#include "looplab/experiments/run.hpp"
#include "looplab/experiments/timing.hpp"
#include "looplab/train/session.hpp"

namespace looplab {
namespace {

const char* const kOverheadModes[] = {"eager", "traced", "compiled", "reference"};
constexpr int kOverheadModeCount = sizeof(kOverheadModes) / sizeof(kOverheadModes[0]);
constexpr double kOverheadMemoryLimitBytes = 256.0 * 1024 * 1024;
// x and y, plus the few [N x 1] buffers an eager step allocates (prediction, residual, squares,
// grads), and as many in each of the traced and compiled programs' arenas: at the largest N the
// four modes' trainers are alive at once (they take turns).
constexpr double kBytesPerPoint = 8.0 + 3 * 6 * 4.0;

struct ModeFit {
  std::vector<double> n, us;  // per N: median µs per step
  bool diverged = false;
};

// The smallest or the largest N, where the modes are compared: its data and one trainer per mode
// stay alive, and the modes take turns. Every step of a mode is the same work, so a turn is that
// mode's chunk of at least chunk_ms (the same length of time, not the same steps: at N = 10⁶ the
// eager step is ~1000× the loop's, and as many eager steps as a loop's chunk would take seconds a
// round); round i of two modes is a pair.
struct PairedPoint {
  std::size_t index = 0;  // into the run's sizes
  LinearData data;
  std::unique_ptr<LinearTrainer> trainers[kOverheadModeCount];
  bool diverged[kOverheadModeCount] = {};
  bool recorded = false;           // its points are in the series
  PairedRounds* rounds = nullptr;  // a side per mode, each turn at least chunk_ms
};

class OverheadRun final : public ChunkedRun {
 public:
  explicit OverheadRun(const Params& p)
      : ChunkedRun("overhead", p),
        sizes_(log_spaced(p.integer("n_min"), p.integer("n_max"),
                          static_cast<int>(p.integer("points")))) {
    warm_up_engines();
    warm_up_linear();
    for (int m = 0; m < kOverheadModeCount; ++m) {
      series_[m] = &add_series(kOverheadModes[m], {"n", "us_per_step", "us_spread"});
      ModeFit& f = fits_[kOverheadModes[m]];
      f.n.assign(sizes_.begin(), sizes_.end());
      f.us.assign(sizes_.size(), 0.0);
    }
    points_ = json::array();
    for (std::size_t i = 0; i < sizes_.size() * kOverheadModeCount; ++i) points_.push_back(nullptr);
    for (int e = 0; e < 2; ++e) {
      ends_[e] = std::make_unique<PairedPoint>();
      ends_[e]->index = e == 0 ? 0 : sizes_.size() - 1;
      ends_[e]->rounds = &add_rounds(
          paired_sides(*ends_[e]), {p.number("chunk_ms"), 1, false},
          [at = e == 0 ? "n_min" : "n_max"](std::string_view id) { return id.ends_with(at); });
    }
  }

  bool finished() const override { return next_ >= sizes_.size() * kOverheadModeCount; }

 private:
  double fraction() const override {
    return static_cast<double>(next_) /
           (static_cast<double>(kOverheadModeCount) * static_cast<double>(sizes_.size()));
  }

  json progress_message() const override {
    const std::size_t i = std::min(next_ / kOverheadModeCount, sizes_.size() - 1);
    const PairedPoint* p = paired_at(i);
    return msg("ov.progress",
               {{"mode", kOverheadModes[p ? p->rounds->side() : next_ % kOverheadModeCount]},
                {"n", sizes_[i]}});
  }

  // The paired point at size index i, or nullptr for a size between the ends.
  PairedPoint* paired_at(std::size_t i) const {
    for (const auto& e : ends_)
      if (e->index == i) return e.get();
    return nullptr;
  }

  // What the browser worker measured (web/runtime/js-variants.js): js_per_call, JavaScript calling
  // one reference step with the N points copied in, at each N this run measured:
  // {"variants": [{"variant": "js_per_call", "points": [{"n", "chunk_us", "steps_per_chunk",
  // "steps", "diverged"}, ...]}]}. It joins the series, points, runs and sentences.
  void add_measurements(const json& measured) override { js_ = read_browser_per_call(measured); }

  // Each mode's measured points, then the fitted line at the same N.
  json series() const override {
    json series = json::object();
    for (int m = 0; m < kOverheadModeCount; ++m) {
      series[kOverheadModes[m]] = series_[m]->to_json();
      series[std::string(kOverheadModes[m]) + "_fit"] =
          fit_series(fit_cost_line_of(kOverheadModes[m]));
    }
    if (js_) {
      series["js_per_call"] = object({{"n", js_->n}, {"us_per_step", js_->us}});
      series["js_per_call_fit"] = fit_series(js_->line);
    }
    return series;
  }

  // One row per mode (and js_per_call, when measured): its fitted line and its ends.
  static json cost_row(const std::string& mode, const CostLine& c, const std::vector<double>& us,
                       const char* where, bool diverged) {
    return object({{"mode", mode},
                   {"a_us", c.a},
                   {"b_ns_per_point", c.b * 1000.0},
                   {"crossover_n", c.crossover ? json(*c.crossover) : json(nullptr)},
                   {"us_at_n_min", us.front()},
                   {"us_at_n_max", us.back()},
                   {"measured_in", msg(where)},
                   {"diverged", diverged}});
  }

  json runs() const override {
    json runs = json::array();
    const char* core = environment()["build"] == "wasm" ? "env.where_wasm" : "env.where_native";
    for (const char* m : kOverheadModes) {
      const ModeFit& f = fits_.at(m);
      runs.push_back(cost_row(m, fit_cost_line_of(m), f.us, core, f.diverged));
    }
    if (js_)
      runs.push_back(cost_row("js_per_call", js_->line, js_->us, "env.where_js", js_->diverged));
    return runs;
  }

  // Every (N, mode) measurement (result_contract.hpp: overhead's extra table "points").
  json tables() const override {
    json points = points_;
    if (js_)
      for (const json& p : js_->points) points.push_back(p);
    return object({{"points", points}});
  }

  CostLine fit_cost_line_of(const char* mode) const {
    const ModeFit& f = fits_.at(mode);
    return fit_cost_line(f.n, f.us);
  }

  // NOTE: a WebAssembly engine optimizes a function only once it runs hot; untimed steps of every
  // mode first, so the first point (the smallest N, eager) is not billed for the engine's tier-up.
  static void warm_up_linear() {
    static bool done = false;  // once per process, as warm_up_engines()
    if (done) return;
    done = true;
    const LinearData d = overhead_data(64);
    for (const char* m : kOverheadModes) {
      auto t = make_linear_trainer(parse_mode(m), d.x, d.y);
      const Stopwatch w;
      for (int i = 0; i < 5000 && w.elapsed_ms() < 10.0; ++i) t->step(1e-4f);
    }
  }

  // A paired point's sides: the four modes' trainers taking chunks of steps. Once its configured
  // rounds are stored, every extra round stores it again.
  std::vector<TimedSide> paired_sides(PairedPoint& p) {
    std::vector<TimedSide> sides;
    for (std::size_t m = 0; m < kOverheadModeCount; ++m)
      sides.push_back({kOverheadModes[m],
                       [&p, m] { return !p.diverged[m]; },
                       [this, &p, m](long long steps) { return run_steps(p, m, steps); },
                       {},
                       [this, &p](bool) {
                         if (p.recorded && !p.rounds->mid_round()) store(p);
                       }});
    return sides;
  }

  // A unit at a paired point: its setup (data and the four trainers), then one mode's turn of the
  // paired rounds; after `repeats` rounds (at least 9) the next size.
  void paired_turn(PairedPoint& p) {
    if (!p.trainers[0]) {
      p.data = overhead_data(static_cast<int>(sizes_[p.index]));
      for (int m = 0; m < kOverheadModeCount; ++m)
        p.trainers[m] = make_linear_trainer(parse_mode(kOverheadModes[m]), p.data.x, p.data.y);
      return;
    }
    const bool more = p.rounds->turn();
    // At least 9 rounds: the fewest whose 95% interval leaves out the most extreme round each way
    // (paired.hpp), so one round slowed by a load spike does not hold a verdict open; fewer would
    // leave it to extra rounds, which a slow or busy machine may not reach within max_seconds.
    constexpr long long kEndRounds = 9;
    const auto rounds = static_cast<std::size_t>(std::max(params().integer("repeats"), kEndRounds));
    if (!more || (p.rounds->rounds() >= rounds && !p.rounds->mid_round())) {
      store(p);
      next_ += kOverheadModeCount;
    }
  }

  long long run_steps(PairedPoint& p, std::size_t m, long long k) {
    const float lr = static_cast<float>(params().number("lr"));
    for (long long s = 0; s < k; ++s)
      if (!std::isfinite(p.trainers[m]->step(lr))) p.diverged[m] = true;
    return k;
  }

  // The point's medians into the fits and the points table (again after every extra round); into
  // the series once, after the configured rounds.
  void store(PairedPoint& p) {
    const long long n = sizes_[p.index];
    for (int m = 0; m < kOverheadModeCount; ++m) {
      const std::vector<double>& r = p.rounds->rounds_us(m);
      const double us = median(r), spread = half_iqr(r);
      ModeFit& f = fits_[kOverheadModes[m]];
      f.us[p.index] = us;
      f.diverged = f.diverged || p.diverged[m];
      if (!p.recorded) series_[m]->add({static_cast<double>(n), us, spread});
      points_[p.index * kOverheadModeCount + m] =
          object({{"n", n},
                  {"mode", kOverheadModes[m]},
                  {"us_per_step", us},
                  {"spread_us", spread},
                  {"steps_per_chunk", p.rounds->units(m)},
                  {"rounds", static_cast<long long>(r.size())},
                  {"steps", p.rounds->timed_units(m)},
                  {"diverged", p.diverged[m]}});
    }
    p.recorded = true;
  }

  // One (N, mode) point between the ends: a fresh trainer on the seed-004 curve sampled N times,
  // timed in chunks.
  void work_one() override {
    const std::size_t i = next_ / kOverheadModeCount;
    if (PairedPoint* p = paired_at(i)) return paired_turn(*p);
    const int n = static_cast<int>(sizes_[i]);
    const char* mode = kOverheadModes[next_ % kOverheadModeCount];
    if (data_n_ != n) {
      data_ = overhead_data(n);
      data_n_ = n;
    }
    auto trainer = make_linear_trainer(parse_mode(mode), data_.x, data_.y);
    const float lr = static_cast<float>(params().number("lr"));
    const ChunkTiming t = time_steps([&] { return trainer->step(lr); }, params().number("chunk_ms"),
                                     static_cast<int>(params().integer("repeats")));
    ModeFit& f = fits_[mode];
    f.us[i] = t.us_per_step;
    f.diverged = f.diverged || t.diverged;
    series_[next_ % kOverheadModeCount]->add({static_cast<double>(n), t.us_per_step, t.spread_us});
    points_[next_] = object({{"n", n},
                             {"mode", mode},
                             {"us_per_step", t.us_per_step},
                             {"spread_us", t.spread_us},
                             {"steps_per_chunk", t.steps_per_chunk},
                             {"steps", t.steps},
                             {"diverged", t.diverged}});
    ++next_;
  }

  // The fitted line at the measured N, for the log-log plot.
  json fit_series(const CostLine& c) const {
    json n = json::array(), us = json::array();
    for (long long s : sizes_) {
      n.push_back(s);
      us.push_back(c.a + c.b * static_cast<double>(s));
    }
    return object({{"n", n}, {"us_per_step", us}});
  }

  // A mode's step at the smallest or largest N: its paired rounds.
  Measure step_at(const char* mode, bool largest) const {
    const PairedPoint& p = *ends_[largest ? 1 : 0];
    const auto m = std::find_if(std::begin(kOverheadModes), std::end(kOverheadModes),
                                [&](const char* name) { return std::string_view(name) == mode; }) -
                   std::begin(kOverheadModes);
    return paired_side(mode, p.rounds->rounds_us(static_cast<std::size_t>(m)));
  }

  // traced vs eager and reference vs traced, then compiled vs traced, each at the smallest and the
  // largest N ("…_at_n_min", "…_at_n_max").
  std::vector<Comparison> comparisons() const override {
    std::vector<Comparison> c;
    const auto unit = [&](bool largest) {
      return "µs per step at N = " + with_commas(sizes_[largest ? sizes_.size() - 1 : 0]);
    };
    const auto add = [&](const char* a, const char* b, bool largest) {
      c.push_back(compare(std::string(a) + "_vs_" + b + "_at_" + (largest ? "n_max" : "n_min"),
                          step_at(a, largest), step_at(b, largest), Quantity::Time, unit(largest)));
    };
    for (const bool largest : {false, true}) {
      add("traced", "eager", largest);
      add("reference", "traced", largest);
    }
    for (const bool largest : {false, true}) add("compiled", "traced", largest);
    return c;
  }

  // The share of eager's step that is fixed overhead at N, from its fitted line.
  static double overhead_share(const CostLine& c, double n) {
    const double t = c.a + c.b * n;
    return t > 0.0 && c.a > 0.0 ? c.a / t : 0.0;
  }

  // Every branch takes the same arguments.
  json answer() const {
    const CostLine e = fit_cost_line_of("eager");
    const double lo = static_cast<double>(sizes_.front()), hi = static_cast<double>(sizes_.back());
    // "99%", "0.22%": whole percents from 10 on (format_sig(99.8, 2) would print "1e+02").
    const auto percent = [](double share) {
      const double p = 100.0 * share;
      return p >= 10.0 ? msg("ov.pct_whole", {{"p", std::llround(p)}}) : msg("ov.pct", {{"p", p}});
    };
    const bool fitted = e.a > 0.0 && e.b > 0.0;
    return msg(fitted ? "ov.a" : "ov.a_no_fit",
               {{"cross", fitted && e.crossover ? std::llround(*e.crossover) : 0LL},
                {"a", e.a},
                {"b", e.b * 1000.0},
                {"lo", percent(overhead_share(e, lo))},
                {"hi", percent(overhead_share(e, hi))},
                {"n_lo", sizes_.front()},
                {"n_hi", sizes_.back()}});
  }

  // Thread 004's 22 s vs 25 s: NumPy and TensorFlow at 10⁶ points per step, where the work per
  // point, not the overhead, sets the time; against 4 s vs 40 s at 1000 points. Whether this run
  // shows the same narrowing is read from its own ratios.
  json beside_quoted() const {
    const Measure ref_lo = step_at("reference", false), eager_lo = step_at("eager", false),
                  ref_hi = step_at("reference", true), eager_hi = step_at("eager", true);
    const double lo = eager_lo.value / std::max(ref_lo.value, 1e-12),
                 hi = eager_hi.value / std::max(ref_hi.value, 1e-12);
    const CostLine e = fit_cost_line_of("eager"), r = fit_cost_line_of("reference");
    return json::array(
        {{{"label", msg("ov.q_label")},
          {"quoted", msg("ov.q_quoted")},
          {"measured",
           msg("ov.q_measured",
               {{"lo", lo}, {"hi", hi}, {"n_lo", sizes_.front()}, {"n_hi", sizes_.back()}})},
          {"why", msg(hi < 0.8 * lo ? "ov.q_why_narrows" : "ov.q_why_not",
                      {{"lo", lo}, {"hi", hi}, {"be", e.b * 1000.0}, {"br", r.b * 1000.0}})}}});
  }

  json summary() const override {
    const json runs = this->runs();
    json s, a = json::object(), b = json::object(), cross = json::object();
    bool diverged = false;
    for (const auto& r : runs) {
      const std::string m = r["mode"];
      a[m] = r["a_us"];
      b[m] = r["b_ns_per_point"];
      cross[m] = r["crossover_n"];
      diverged = diverged || r["diverged"].get<bool>();
    }
    const std::vector<Comparison> cmp = comparisons();
    const auto said = [&](std::string_view id) { return comparison(cmp, id).message(); };
    s["a_fixed_us"] = a;
    s["b_ns_per_point"] = b;
    s["crossover_n"] = cross;
    s["fit"] = msg("ov.fit");
    s["measured_where"] =
        js_ ? msg("ov.where_js", {{"core", runs[0]["measured_in"]}, {"where", msg("env.where_js")}})
            : msg("ov.where", {{"where", runs[0]["measured_in"]}});
    s["diverged"] = diverged;
    s["comparisons"] = comparisons_json(cmp);
    const auto cross_message = [&](const std::string& m) {
      // The same arguments either way: a result's structure never depends on a timing.
      return cross[m].is_null() ? msg("ov.cross_none", {{"n", 0LL}})
                                : msg("ov.cross_n", {{"n", std::llround(cross[m].get<double>())}});
    };
    json headline = json::array();
    std::vector<std::string> shown(std::begin(kOverheadModes), std::end(kOverheadModes));
    if (js_) shown.push_back("js_per_call");
    for (const std::string& m : shown)
      headline.push_back(
          card(msg("ov.h_label", {{"mode", m}}),
               msg("ov.h_value", {{"a", a[m].get<double>()}, {"b", b[m].get<double>()}}),
               msg("ov.h_note", {{"cross", cross_message(m)}})));
    json reading =
        msg("ov.reading", {{"ae", a["eager"].get<double>()},
                           {"at", a["traced"].get<double>()},
                           {"ac", a["compiled"].get<double>()},
                           {"ar", a["reference"].get<double>()},
                           {"be", b["eager"].get<double>()},
                           {"bt", b["traced"].get<double>()},
                           {"bc", b["compiled"].get<double>()},
                           {"br", b["reference"].get<double>()},
                           {"traced_vs_eager_at_n_min", said("traced_vs_eager_at_n_min")},
                           {"traced_vs_eager_at_n_max", said("traced_vs_eager_at_n_max")},
                           {"compiled_vs_traced_at_n_min", said("compiled_vs_traced_at_n_min")},
                           {"compiled_vs_traced_at_n_max", said("compiled_vs_traced_at_n_max")},
                           {"div", diverged ? msg("ov.r_diverged") : json("")}});
    if (js_)  // called from JavaScript, the N points copied in each call
      reading =
          msg("seq",
              {{"items", json::array({reading, msg("ov.r_js", {{"a", js_->line.a},
                                                               {"b", js_->line.b * 1000.0}})})}});
    summary_messages(s, headline, reading, answer(), beside_quoted());
    return s;
  }

  std::vector<long long> sizes_;
  std::size_t next_ = 0;  // (size index) * kOverheadModeCount + mode index
  int data_n_ = -1;
  LinearData data_;
  Series* series_[kOverheadModeCount] = {};  // per mode, registered with the run as the mode's name
  std::map<std::string, ModeFit> fits_;
  json points_ = json::array();
  std::optional<BrowserPerCall> js_;      // set by add_measurements (the browser worker)
  std::unique_ptr<PairedPoint> ends_[2];  // the smallest and the largest N
};

}  // namespace

Experiment make_overhead_experiment() {
  Experiment e;
  e.id = "overhead";
  e.params = {
      integer("n_min", 10, 1, 1'000'000),
      integer("n_max", 1'000'000, 10, 10'000'000),
      integer("points", 11, 2, 40),
      number("lr", 1e-4, 0.0, 3e-4).exclusive_min().log_scale(),
      common::chunk_ms(3.0),
      common::repeats(5),
      common::max_seconds(),
      common::band(),
      common::seed(),
  };
  e.plots = json::array(
      {line_plot("time", {"n", Scale::Log}, {"us_per_step", Scale::Log},
                 {"eager", "traced", "compiled", "reference", "js_per_call", "eager_fit",
                  "traced_fit", "compiled_fit", "reference_fit", "js_per_call_fit"},
                 "", "us_spread"),
       bars_plot("a", "mode", {"a_us", Scale::Log})});
  e.quoted_sources = {"seed thread 004", "seed thread 004", "seed thread 004, answer 1"};
  e.check = [](const Params& p) {
    const long long lo = p.integer("n_min"), hi = p.integer("n_max");
    if (lo >= hi)
      refuse("err.larger_than",
             {{"name", "n_max"}, {"other", "n_min"}, {"limit", lo}, {"got", hi}});
    const double bytes = kBytesPerPoint * static_cast<double>(hi);
    if (bytes > kOverheadMemoryLimitBytes)
      refuse("err.points_memory",
             {{"n", hi},
              {"mb", bytes / 1048576.0},
              {"max", static_cast<long long>(kOverheadMemoryLimitBytes / kBytesPerPoint)}});
  };
  // Steps are adaptive (each timed chunk lasts chunk_ms), so the run is bounded by time, not steps:
  // points x 4 modes x (repeats + warm-up) chunks.
  e.estimate = [](const Params& p) {
    Estimate est{kBytesPerPoint * static_cast<double>(p.integer("n_max")) + 2e6, 0.0, "n_max"};
    // The least its timings take: each point between the ends times `repeats` chunks per mode
    // after about two of doubling; each end's rounds (at least 9) after a calibration round.
    const double chunk = p.number("chunk_ms"), repeats = static_cast<double>(p.integer("repeats"));
    est.timing_ms = kOverheadModeCount * chunk *
                    ((static_cast<double>(p.integer("points")) - 2.0) * (repeats + 2.0) +
                     2.0 * (std::max(repeats, 9.0) + 1.0));
    return est;
  };
  e.small_config = {"n_max=1000", "points=3", "repeats=1", "chunk_ms=0.2", "max_seconds=0"};
  e.golden_configs = {{"n_max=10000", "points=4", "repeats=2", "chunk_ms=1"},
                      {"n_max=100000", "points=3", "repeats=1", "chunk_ms=1"},
                      {}};
  e.start = start_run_of<OverheadRun>;
  return e;
}

}  // namespace looplab
