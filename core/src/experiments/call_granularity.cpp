// call_granularity.cpp — seed thread 001: why is train_on_batch slower than fit?
//
// Thread 001's cause: Keras (TF 2.0) ran train_on_batch's step as a plain Python function, op by
// op, while fit ran a tf.function. So the same training (the seed-000 MLP, Adam, the same initial
// weights and the same batches in the same order) is driven four ways in the core, each variant
// with its own execution mode:
//   fit                    a traced step, the whole epoch loop inside the core; each step reads
//                          its batch in place;
//   train_on_batch         an EAGER step, one call per batch through the session API, the batch
//                          copied in each call (as Keras turns a NumPy batch into a tensor);
//   train_on_batch_traced  the same per-call path with a traced step: against train_on_batch it
//                          isolates the execution mode (the seed's cause), against fit the call
//                          boundary and the copy (the second, smaller effect);
//   train_on_batch_compiled the same per-call path with the step generated as code (compiled
//                          mode): against train_on_batch_traced, what generating code changes.
// The page adds two more, measured in the browser worker (web/runtime/js-variants.js) with their
// epochs interleaved, both with fit's traced step: js_train_on_batch, JavaScript calling the
// module once per batch and copying the batch into the wasm heap each time, and js_fit, JavaScript
// calling the core's fit once per epoch. The variants take turns in paired rounds of whole epochs
// (rounds.hpp, paired.hpp). The losses must agree: the same steps in the same order; eager and
// traced may differ in the last bits, so they are compared with a stated tolerance
// (kLossAgreement). model=seed001_small trains seed 001's own small Conv1D model instead, at the
// seed's size, on n sequences of 140 steps × 30 channels with 0/1 targets (session.hpp).
#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

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

constexpr double kSessionMemoryLimitBytes = 128.0 * 1024 * 1024;

// Data (x, y) plus what a step touches: eager keeps about ten [batch x hidden] buffers alive.
double estimated_bytes(long long n, long long batch, long long hidden) {
  return 8.0 * static_cast<double>(n) +
         40.0 * static_cast<double>(batch) * static_cast<double>(hidden);
}
// seed 001's small model: the sequences, and per variant (four alive) a step's activations,
// windows and gradients (step_floats_per_sequence).
bool seed_model(const Params& p) { return session_model(p.choice("model")).has_value(); }
double seed_estimated_bytes(long long n, long long batch) {
  const ConvNetSpec spec = *session_model("seed001_small");
  return 4.0 * (static_cast<double>(n) * (spec.length * spec.channels + 1) +
                4.0 * static_cast<double>(batch) * step_floats_per_sequence(spec));
}

struct GranularityVariant {
  std::string name;
  Mode mode = Mode::Traced;
  bool per_call =
      false;   // one call per batch with a copy (train_on_batch), or the loop in the core (fit)
  json where;  // a message: env.where_native or env.where_wasm
  std::unique_ptr<TrainerSession> session;
  int epochs_done = 0;
  double first_epoch_ms = 0.0, total_ms = 0.0;
  const std::vector<double>* rounds = nullptr;  // the run's paired rounds, the first epoch apart
  const std::vector<double>& rounds_us() const { return *rounds; }  // µs per step, a round each
  std::vector<float> losses;
  bool diverged = false;
  Series* series = nullptr;  // registered with the run as `name`
};

// Largest |a_i − b_i| / |b_i| over the steps both have; infinite when a loss is not finite.
double max_relative_gap(const std::vector<float>& a, const std::vector<float>& b) {
  double gap = 0.0;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    const double d = std::abs(static_cast<double>(a[i]) - b[i]);
    gap = std::max(gap, b[i] != 0.0f ? d / std::abs(static_cast<double>(b[i])) : d);
  }
  return std::isfinite(gap) ? gap : INFINITY;
}

// ---- the variants only a browser can measure (web/runtime/js-variants.js): js_fit and
// js_train_on_batch, both with fit's traced step, their epochs interleaved, given to the run by
// add_measurements() before its result is read (browser_measurements.hpp reads and checks them).

// Where they ran, as a message ("JavaScript → WebAssembly (browser worker)").
json where_js() { return msg("env.where_js"); }

// Chunk i of js_fit and js_train_on_batch covers the same epochs, timed alternately: a pair.
Measure js_step(const json& v) {
  return paired_side(v.at("variant").get<std::string>(),
                     v.at("chunk_us").get<std::vector<double>>());
}

class CallGranularityRun final : public ChunkedRun {
 public:
  explicit CallGranularityRun(const Params& p)
      : ChunkedRun("call-granularity", p),
        data_(session_data(session_config(p.values()), static_cast<int>(p.integer("n")),
                           static_cast<std::uint64_t>(p.integer("seed")))),
        example_floats_(session_config(p.values()).example_floats()),
        epochs_(static_cast<int>(p.integer("epochs"))),
        batches_(static_cast<int>(p.integer("n") / p.integer("batch"))) {
    warm_up_engines();
    const json where =
        msg(environment()["build"] == "wasm" ? "env.where_wasm" : "env.where_native");
    const struct {
      const char* name;
      Mode mode;
      bool per_call;
    } kVariants[] = {{"fit", Mode::Traced, false},
                     {"train_on_batch", Mode::Eager, true},
                     {"train_on_batch_traced", Mode::Traced, true},
                     {"train_on_batch_compiled", Mode::Compiled, true}};
    for (const auto& k : kVariants) {
      auto v = std::make_unique<GranularityVariant>();
      v->name = k.name;
      v->mode = k.mode;
      v->per_call = k.per_call;
      v->where = where;
      v->series = &add_series(k.name, {"step", "loss"});
      variants_.push_back(std::move(v));
    }
    std::vector<TimedSide> sides;
    for (const auto& v : variants_)
      sides.push_back({v->name, [this, &v = *v] { return running(v); },
                       [this, &v = *v](long long steps) { return run_epochs(v, steps); }});
    // Turns of whole epochs, as many for every variant, lasting at least chunk_ms.
    rounds_ = &add_rounds(std::move(sides), {p.number("chunk_ms"), batches_, true});
    for (std::size_t i = 0; i < variants_.size(); ++i)
      variants_[i]->rounds = &rounds_->rounds_us(i);
  }

  bool finished() const override {
    return std::all_of(variants_.begin(), variants_.end(),
                       [&](const auto& v) { return v->epochs_done >= epochs_ || v->diverged; });
  }

  // What the browser worker measured: {"same_losses", "variants": [js_fit, js_train_on_batch]}
  // (browser-variants.test.mjs has the fields). They join the runs, series, comparisons and
  // sentences of this run's result.
  void add_measurements(const json& measured) override {
    js_ = read_browser_step_variants(measured);
  }

 private:
  const GranularityVariant& fit() const { return *variants_[0]; }
  const GranularityVariant& eager_calls() const { return *variants_[1]; }
  const GranularityVariant& traced_calls() const { return *variants_[2]; }
  const GranularityVariant& compiled_calls() const { return *variants_[3]; }

  double fraction() const override {
    double epochs_done = 0;
    for (auto& v : variants_) epochs_done += v->epochs_done;
    return epochs_done / (static_cast<double>(variants_.size()) * epochs_);
  }

  json progress_message() const override {
    const GranularityVariant& v =
        *variants_[set_up_ < variants_.size() ? set_up_ : rounds_->side()];
    return msg("run.epoch_of", {{"name", v.name}, {"e", v.epochs_done + 1}, {"n", epochs_}});
  }

  json runs() const override {
    json runs = json::array();
    for (const auto& v : variants_) runs.push_back(run_json(*v));
    if (js_)
      for (const json* v : {&js_->fit, &js_->train_on_batch}) runs.push_back(js_run_json(*v));
    return runs;
  }

  json series() const override {
    json out = ChunkedRun::series();
    if (js_)
      for (const json* v : {&js_->fit, &js_->train_on_batch})
        out[v->at("variant").get<std::string>()] = v->at("series");
    return out;
  }

  // js_train_on_batch against js_fit: both run fit's traced step, so their difference is the
  // JavaScript → WebAssembly call boundary and the copy into the wasm heap, per batch.
  Comparison js_boundary() const {
    return compare("js_train_on_batch_vs_js_fit", js_step(js_->train_on_batch), js_step(js_->fit),
                   Quantity::Time, "µs per step");
  }

  // Equal losses at every step and the same last loss as the core's fit (a non-finite one never
  // is).
  bool js_same_as_fit(const json& v) const {
    const json& last = v.at("final_loss");
    return js_->same_losses && !fit().diverged && !fit().losses.empty() && last.is_number() &&
           last.get<double>() == static_cast<double>(fit().losses.back());
  }

  json js_run_json(const json& v) const {
    const std::vector<double> chunk_us = v.at("chunk_us").get<std::vector<double>>();
    const double us = median(chunk_us), fit_us = js_step(js_->fit).value;
    const bool diverged = v.at("diverged").get<bool>();
    return object({{"variant", v.at("variant")},
                   {"mode", "traced"},
                   {"measured_in", where_js()},
                   {"batch_copied_per_call", v.at("variant") != "js_fit"},
                   {"steps", v.at("steps")},
                   {"us_per_step", us},
                   {"overhead_us_per_call", us - fit_us},
                   {"spread_us", half_iqr(chunk_us)},
                   {"ci_us", interval_json(chunk_us)},
                   {"chunks", chunk_us.size()},
                   {"first_epoch_ms", v.at("first_epoch_ms")},
                   {"total_ms", v.at("total_ms")},
                   {"final_loss", diverged ? json(nullptr) : v.at("final_loss")},
                   {"diverged", diverged},
                   {"same_losses_as_fit", js_same_as_fit(v)}});
  }

  // The browser variants' part of the summary: their numbers, comparison, headline and sentence.
  void add_js_summary(json& s, json& headline, json& reading) const {
    const Comparison c = js_boundary();
    const bool same = js_->same_losses;
    s["us_per_step"]["js_fit"] = c.b.value;
    s["us_per_step"]["js_train_on_batch"] = c.a.value;
    s["overhead_us_per_call"]["js_train_on_batch"] = c.a.value - c.b.value;
    s["same_losses"] = s.at("same_losses").get<bool>() && same;
    s["diverged"] = s.at("diverged").get<bool>() || js_->fit.at("diverged").get<bool>() ||
                    js_->train_on_batch.at("diverged").get<bool>();
    s["comparisons"].push_back(c.to_json());
    s["measured_where"] =
        msg("cg.where_js", {{"before", s.at("measured_where")}, {"where", where_js()}});
    headline.push_back(
        card(msg("cg.h_js"), c.short_message(),
             msg("cg.h_js_note",
                 {{"c", c.message()}, {"same", msg(same ? "cg.identical" : "cg.differ")}})));
    reading = msg(
        "seq",
        {{"items",
          json::array({reading, msg("cg.r_js",
                                    {{"c", c.message()},
                                     {"end", msg(same ? "cg.r_js_same" : "cg.r_js_differ")}})})}});
  }

  // First every variant's first epoch (it includes the trace), reported apart. Then the paired
  // rounds (rounds.hpp): each variant runs as many whole epochs in its turn, lasting at least
  // chunk_ms, the order drawn afresh every round, so a change in machine load (another process, a
  // browser tab) hits all alike; round i of two variants is a pair. After the configured epochs
  // the extra rounds go on, their losses not recorded.
  bool running(const GranularityVariant& v) const {
    return !v.diverged && (finished() || v.epochs_done < epochs_);
  }

  void work_one() override {
    if (set_up_ < variants_.size())
      run_epoch(*variants_[set_up_++], false);
    else
      rounds_->turn();
  }

  // Whole epochs, `steps` steps of them (fewer at the end of the configured ones); the steps run.
  long long run_epochs(GranularityVariant& v, long long steps) {
    const bool extra = finished();
    long long ran = 0;
    for (; ran < steps && !v.diverged && (extra || v.epochs_done < epochs_); ran += batches_)
      run_epoch(v, extra);
    return ran;
  }

  // One epoch of the variant, timed; the first epoch (it includes the trace) is reported apart.
  // After the configured epochs (extra) its losses are not recorded.
  void run_epoch(GranularityVariant& v, bool extra) {
    if (!v.session)
      v.session = std::make_unique<TrainerSession>(session_config(params().values(), v.mode));
    const int n = static_cast<int>(params().integer("n")),
              batch = static_cast<int>(params().integer("batch"));
    const Stopwatch w;
    std::vector<float> losses;
    if (!v.per_call) {
      losses = v.session->fit(data_.x.data(), data_.y.data(), n, 1);
    } else {
      losses.reserve(static_cast<std::size_t>(batches_));
      for (int b = 0; b < batches_; ++b)
        losses.push_back(v.session->train_on_batch(
            data_.x.data() +
                static_cast<std::size_t>(b) * batch * static_cast<std::size_t>(example_floats_),
            data_.y.data() + static_cast<std::size_t>(b) * batch));
    }
    const double ms = w.elapsed_ms();
    v.total_ms += ms;
    if (v.epochs_done == 0) v.first_epoch_ms = ms;
    if (!extra) record(v, losses);
    ++v.epochs_done;
  }

  void record(GranularityVariant& v, const std::vector<float>& losses) {
    const long long every =
        std::max<long long>(1, static_cast<long long>(batches_) * epochs_ / 500);
    for (float l : losses) {
      const long long step = static_cast<long long>(v.losses.size());
      if (!std::isfinite(l)) v.diverged = true;
      if (step % every == 0) v.series->add({static_cast<double>(step), std::isfinite(l) ? l : NAN});
      v.losses.push_back(l);
    }
  }

  static Measure step_of(const GranularityVariant& v) { return paired_side(v.name, v.rounds_us()); }
  static Measure loss_of(const GranularityVariant& v) {
    const double l = v.losses.empty() ? 0.0 : static_cast<double>(v.losses.back());
    return loss_measure(v.name, l);
  }
  // The same training: every step's loss within kLossAgreement of fit's.
  bool same_losses(const GranularityVariant& v) const {
    return !v.diverged && !fit().diverged && v.losses.size() == fit().losses.size() &&
           max_relative_gap(v.losses, fit().losses) <= kLossAgreement;
  }

  // [0] the headline: eager per call against traced fit; [1] the execution mode alone (both per
  // call); [2] the call boundary + copy alone (both traced); [3] compiled against traced, both per
  // call; then the final losses against fit's.
  std::vector<Comparison> comparisons() const override {
    std::vector<Comparison> c = {compare("train_on_batch_vs_fit", step_of(eager_calls()),
                                         step_of(fit()), Quantity::Time, "µs per step"),
                                 compare("eager_vs_traced_per_call", step_of(eager_calls()),
                                         step_of(traced_calls()), Quantity::Time, "µs per step"),
                                 compare("per_call_vs_fit", step_of(traced_calls()), step_of(fit()),
                                         Quantity::Time, "µs per step"),
                                 compare("compiled_vs_traced_per_call", step_of(compiled_calls()),
                                         step_of(traced_calls()), Quantity::Time, "µs per step")};
    for (const GranularityVariant* v : {&eager_calls(), &traced_calls(), &compiled_calls()})
      if (!v->diverged && !fit().diverged)
        c.push_back(compare("final_loss_" + v->name + "_vs_fit", loss_of(*v), loss_of(fit()),
                            Quantity::Loss, ""));
    return c;
  }

  // "Why is train_on_batch slower than fit?", answered from this run's three variants. Every
  // branch takes the same arguments.
  static json answer(const std::vector<Comparison>& c) {
    const Comparison &total = comparison(c, "train_on_batch_vs_fit"),
                     &mode = comparison(c, "eager_vs_traced_per_call"),
                     &boundary = comparison(c, "per_call_vs_fit");
    const double gap = total.a.value - total.b.value;    // train_on_batch − fit, µs
    const double by_mode = mode.a.value - mode.b.value;  // eager − traced, both per call
    const double by_boundary = boundary.a.value - boundary.b.value;  // per call − fit, both traced
    const json boundary_clause =
        msg(boundary.verdict == Verdict::B              ? "cg.b_cost"  // fit, the b side, faster
            : boundary.verdict == Verdict::Inconclusive ? "cg.b_unsure"
                                                        : "cg.b_none",
            object({{"us", by_boundary}, {"c", boundary.message()}}));
    const char* key = total.verdict == Verdict::Inconclusive  ? "cg.a_unsure"
                      : total.verdict != Verdict::B           ? "cg.a_not_slower"
                      : mode.verdict == Verdict::Inconclusive ? "cg.a_mode_unsure"
                      : mode.verdict != Verdict::B            ? "cg.a_not_mode"  // not faster
                                                              : "cg.a_mode";
    const double share = gap != 0.0 ? by_mode / gap * 100.0 : 0.0;
    return msg(key, {{"train_on_batch_vs_fit", total.message()},
                     {"eager_vs_traced_per_call", mode.message()},
                     {"factor", total.factor()},
                     {"by_mode", by_mode},
                     {"gap", gap},
                     {"pct", std::lround(std::min(share, 100.0))},
                     {"boundary", boundary_clause}});
  }

  json run_json(const GranularityVariant& v) const {
    const double us = median(v.rounds_us());
    return object(
        {{"variant", v.name},
         {"mode", mode_name(v.mode)},
         {"measured_in", v.where},
         {"batch_copied_per_call", v.per_call},
         {"steps", static_cast<long long>(v.losses.size())},
         {"us_per_step", us},
         {"overhead_us_per_call", us - median(fit().rounds_us())},
         {"spread_us", half_iqr(v.rounds_us())},
         {"ci_us", interval_json(v.rounds_us())},
         {"rounds", static_cast<long long>(v.rounds_us().size())},
         {"epochs_per_round", rounds_->units(0) / batches_},
         {"first_epoch_ms", v.first_epoch_ms},
         {"total_ms", v.total_ms},
         {"final_loss", v.diverged || v.losses.empty() ? json(nullptr) : json(v.losses.back())},
         {"diverged", v.diverged},
         {"max_loss_gap_to_fit", max_relative_gap(v.losses, fit().losses)},
         {"same_losses_as_fit", &v == &fit() || same_losses(v)}});
  }

  json summary() const override {
    const std::vector<Comparison> cmp = comparisons();
    const Comparison &total = comparison(cmp, "train_on_batch_vs_fit"),
                     &mode = comparison(cmp, "eager_vs_traced_per_call"),
                     &boundary = comparison(cmp, "per_call_vs_fit"),
                     &compiled = comparison(cmp, "compiled_vs_traced_per_call");
    const double f = total.b.value, t = total.a.value, tt = mode.b.value;
    const double tc = compiled.a.value;
    const bool same =
        same_losses(eager_calls()) && same_losses(traced_calls()) && same_losses(compiled_calls());
    const bool diverged = fit().diverged || eager_calls().diverged || traced_calls().diverged ||
                          compiled_calls().diverged;
    json s;
    s["us_per_step"] = object({{"fit", f},
                               {"train_on_batch", t},
                               {"train_on_batch_traced", tt},
                               {"train_on_batch_compiled", tc}});
    s["overhead_us_per_call"] = object({{"train_on_batch", t - f},
                                        {"train_on_batch_traced", tt - f},
                                        {"train_on_batch_compiled", tc - f}});
    s["same_losses"] = same;
    s["loss_tolerance"] = kLossAgreement;
    s["diverged"] = diverged;
    s["measured_where"] = msg("cg.where", {{"where", fit().where}});
    s["comparisons"] = comparisons_json(cmp);
    json headline = json::array();
    headline.push_back(card(msg("cg.h_total"), total.short_message(), total.message()));
    headline.push_back(card(msg("cg.h_mode"), mode.short_message(),
                            msg("cg.h_mode_note", {{"c", mode.message()}})));
    headline.push_back(card(msg("cg.h_boundary"), boundary.short_message(),
                            msg("cg.h_boundary_note", {{"c", boundary.message()}})));
    headline.push_back(card(msg("cg.h_compiled"), compiled.short_message(),
                            msg("cg.h_compiled_note", {{"c", compiled.message()}})));
    // Eager and traced may differ in the last bits; say "bit for bit" only when they did not.
    double gap = 0.0;
    for (const GranularityVariant* v : {&eager_calls(), &traced_calls(), &compiled_calls()})
      gap = std::max(gap, max_relative_gap(v->losses, fit().losses));
    headline.push_back(
        card(msg("cg.h_same"),
             msg(diverged     ? "cg.v_diverged"
                 : !same      ? "cg.v_no"
                 : gap == 0.0 ? "cg.v_bits"
                              : "cg.v_rounding"),
             msg("cg.h_same_note", {{"steps", static_cast<long long>(fit().losses.size())},
                                    {"gap", gap},
                                    {"tol", kLossAgreement}})));
    // Fewer rounds than a 95% interval needs decide nothing: say how to get them.
    std::size_t fewest = fit().rounds_us().size();
    for (const GranularityVariant* v : {&eager_calls(), &traced_calls(), &compiled_calls()})
      fewest = std::min(fewest, v->rounds_us().size());
    const json few_chunks =
        msg(static_cast<int>(fewest) < kMinDecidingRounds ? "cg.few" : "cg.few_none",
            {{"chunks", plural("cmp.rounds", static_cast<long long>(fewest))},
             {"min", kMinDecidingRounds}});
    const json end = msg(diverged     ? "cg.r_diverged"
                         : !same      ? "cg.r_differ"
                         : gap == 0.0 ? "cg.r_bits"
                                      : "cg.r_rounding",
                         object({{"gap", gap}, {"tol", kLossAgreement}}));
    json reading = msg("cg.reading", {{"train_on_batch_vs_fit", total.message()},
                                      {"eager_vs_traced_per_call", mode.message()},
                                      {"per_call_vs_fit", boundary.message()},
                                      {"compiled_vs_traced_per_call", compiled.message()},
                                      {"end", end},
                                      {"few", few_chunks}});
    const json quoted =
        json::array({{{"label", msg("cg.q_label")},
                      {"quoted", msg("cg.q_quoted")},
                      {"measured", mode.message()},
                      {"why", seed_model(params())
                                  ? msg("cg.q_why_seed")
                                  : msg("cg.q_why", {{"hidden", params().integer("hidden")}})}}});
    if (js_) add_js_summary(s, headline, reading);
    summary_messages(s, headline, reading,
                     msg("seq", {{"items", json::array({answer(cmp), few_chunks})}}), quoted);
    return s;
  }

  LinearData data_;
  int example_floats_;  // x's floats per example: 1, or a sequence's 140 × 30
  int epochs_, batches_;
  std::vector<std::unique_ptr<GranularityVariant>> variants_;
  std::size_t set_up_ = 0;                 // variants that ran their first epoch
  PairedRounds* rounds_ = nullptr;         // the steady steps' paired rounds (a side per variant)
  std::optional<BrowserStepVariants> js_;  // set by add_measurements (the browser worker)
};

}  // namespace

Experiment make_call_granularity_experiment() {
  Experiment e;
  e.id = "call-granularity";
  e.params = {
      choice("model", "mlp", {"mlp", "seed001_small"}),
      common::samples(10000, 1),
      common::batch(),
      integer("epochs", 50, 2, 10000),
      common::hidden().only_when("model", "mlp"),
      common::adam_lr(),
      common::chunk_ms(5.0),
      common::max_seconds(),
      common::band(),
      common::seed(),
  };
  e.plots = json::array({line_plot("loss", {"step"}, {"loss"},
                                   {"fit", "train_on_batch", "train_on_batch_traced",
                                    "train_on_batch_compiled", "js_fit", "js_train_on_batch"}),
                         bars_plot_with_interval("step", "variant", {"us_per_step"}, "ci_us"),
                         bars_plot("overhead", "variant", {"overhead_us_per_call"})});
  e.quoted_sources = {"seed thread 001"};
  e.check = [](const Params& p) {
    const long long n = p.integer("n"), batch = p.integer("batch"), hidden = p.integer("hidden");
    common::check_batch_at_most_n(batch, n);
    if (seed_model(p)) {
      const double bytes = seed_estimated_bytes(n, batch);
      if (bytes > kSessionMemoryLimitBytes)
        refuse("err.cg_seed_memory", {{"mb", bytes / 1048576.0}});
      return;
    }
    const double bytes = estimated_bytes(n, batch, hidden);
    if (bytes > kSessionMemoryLimitBytes) refuse("err.cg_memory", {{"mb", bytes / 1048576.0}});
  };
  e.estimate = [](const Params& p) {  // four variants, `epochs` epochs each
    const long long n = p.integer("n"), batch = p.integer("batch");
    Estimate est{seed_model(p) ? seed_estimated_bytes(n, batch)
                               : estimated_bytes(n, batch, p.integer("hidden")),
                 4.0 * static_cast<double>(p.integer("epochs")) *
                     std::floor(static_cast<double>(n) / static_cast<double>(batch)),
                 "n, batch, hidden and epochs"};
    est.timing_ms = 4.0 * p.number("chunk_ms");  // a counted round: four turns of chunk_ms
    return est;
  };
  e.small_config = {"n=1000", "epochs=3", "chunk_ms=0.5", "max_seconds=0"};
  e.golden_configs = {{}, {"n=1000", "epochs=4"}, {"n=2000", "batch=50", "epochs=2"}};
  e.start = start_run_of<CallGranularityRun>;
  return e;
}

}  // namespace looplab
