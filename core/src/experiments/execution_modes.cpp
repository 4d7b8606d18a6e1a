// execution_modes.cpp — seed threads 000 and 001: eager, traced or unrolled — what do
// I pay, and when?
//
// The seed-000 model, Dense(20, tanh) → Dense(1) with Adam and mse on N(0, 1) data, trained from
// the same initial weights by every mode over the same pre-batched data. Per mode: the first call
// (trace + compile + first step), the steady per-step time, the total, and the loss curve — which
// must coincide, since every mode computes the same numbers. After every mode's first call the
// modes take turns in paired rounds of the same number of steps (rounds.hpp), so every steady-step
// verdict comes from the per-round ratio's 95% interval (paired.hpp).
#include <algorithm>
#include <cmath>
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
#include "looplab/train/conv_net.hpp"
#include "looplab/train/conv_reference.hpp"
#include "looplab/train/graph_trainer.hpp"
#include "looplab/train/linear.hpp"
#include "looplab/train/mlp_reference.hpp"
#include "looplab/train/session.hpp"

namespace looplab {
namespace {

const char* const kModes[] = {"eager", "traced", "unrolled", "compiled", "reference"};
// The modes whose first calls are compared (as in tf.function, where the trace is the first
// call's), in paired rounds of their own.
const char* const kFirstCallModes[] = {"eager", "traced", "compiled"};
constexpr double kModeCount = sizeof(kModes) / sizeof(kModes[0]);

// The rules between sizes, for the n of the parameters or of the user's CSV.
// n_name: "n", or msg("err.csv_rows_name") ("the CSV's rows").
void check_sizes(long long n, long long batch, long long unroll, long long hidden,
                 const json& n_name) {
  common::check_batch_at_most_n(batch, n, n_name);
  const long long batches = n / batch;
  if (batches % unroll != 0) refuse("err.divide_batches", {{"k", batches}, {"got", unroll}});
  if (static_cast<double>(n) * static_cast<double>(hidden) > 64e6)
    refuse("err.hidden_memory", {{"n", n_name}, {"got", n * hidden}});
}

// model=seed001_small: seed 001's small Conv1D model at its size, on n sequences of 140 × 30 with
// 0/1 targets (session.hpp), binary cross-entropy from the logits; its reference is the
// hand-written Conv1D loop (conv_reference.hpp).
bool trains_seed_model(const Params& p) { return session_model(p.choice("model")).has_value(); }
SessionConfig model_config(const Params& p) {  // the model's sizes only (example_floats, conv)
  SessionConfig c;
  c.conv = session_model(p.choice("model"));
  return c;
}
constexpr double kSeedModelMemoryLimitBytes = 256.0 * 1024 * 1024;
// The sequences, and a step's activations, windows and gradients per sequence of the batch for
// each graph mode and for each of the unrolled program's k steps, and the hand-written loop's.
double seed_model_bytes(long long n, long long batch, long long unroll) {
  const ConvNetSpec spec = *session_model("seed001_small");
  return 4.0 *
         (static_cast<double>(n) * (spec.length * spec.channels + 1) +
          static_cast<double>(batch) *
              (static_cast<double>(3 + unroll) * step_floats_per_sequence(spec) +
               reference_floats_per_sequence(spec)) +
          5.0 * kParameterCopiesPerMode * static_cast<double>(parameter_count(spec)));  // 5 modes
}

// The user's CSV (its rows give n), checked against the sizes it must fit. One x column: the MLP
// takes one input (several would be read as one, interleaved).
std::optional<CsvData> checked_csv(const Params& p) {
  std::optional<CsvData> csv = csv_data(p);
  if (csv && csv->data.x.shape().cols != 1)
    refuse("err.em_one_x", {{"n", static_cast<long long>(csv->data.x.shape().cols)}});
  if (csv)
    check_sizes(static_cast<long long>(csv->rows), p.integer("batch"), p.integer("unroll"),
                p.integer("hidden"), msg("err.csv_rows_name"));
  return csv;
}

struct ModeRun {
  std::string name;
  std::unique_ptr<Model> model;
  std::unique_ptr<Optimizer> optimizer;
  std::unique_ptr<GraphTrainer> graph;
  std::unique_ptr<ReferenceMlp> reference;
  std::unique_ptr<ReferenceConvNet> reference_conv;  // seed 001's model's
  int steps_per_call = 1;
  long long steps = 0;
  std::optional<long long> diverged_at;  // the first step whose loss was NaN or Inf
  bool finished = false;
  double setup_ms = 0.0, first_call_ms = 0.0, total_ms = 0.0;
  long long extra_steps = 0;                    // timed after the configured steps (extra rounds)
  const std::vector<double>* rounds = nullptr;  // µs per step, a paired round each
  // First calls again, in paired rounds: fresh models built before each turn, untimed; the turn
  // builds the trainer (trace, compile) and calls it once.
  std::vector<std::pair<std::unique_ptr<Model>, std::unique_ptr<Adam>>> fresh;
  float last_loss = 0.0f;
  double epoch_loss_sum = 0.0;  // of the epoch under way
  Series* series = nullptr;     // registered with the run as `name`: {epoch, loss} (epoch mean)
};

class ExecutionModesRun final : public ChunkedRun {
 public:
  explicit ExecutionModesRun(const Params& p)
      : ChunkedRun("execution-modes", p),
        csv_(checked_csv(p)),
        n_(csv_ ? static_cast<int>(csv_->rows) : static_cast<int>(p.integer("n"))),
        batch_(static_cast<int>(p.integer("batch"))),
        batches_(n_ / batch_),
        total_steps_(static_cast<long long>(batches_) * p.integer("epochs")),
        model_(model_config(p)),
        seed_(model_.conv.has_value()),
        loss_(seed_ ? Loss::BceLogits : parse_loss(p.choice("loss"))),
        data_(csv_    ? std::move(csv_->data)
              : seed_ ? session_data(model_, n_, static_cast<std::uint64_t>(p.integer("seed")))
                      : normal_data(n_, static_cast<std::uint64_t>(p.integer("seed")))),
        example_floats_(model_.example_floats()) {
    warm_up_engines();       // untimed: see graph_trainer.hpp
    if (loss_ == Loss::Bce)  // 0/1 targets for the cross-entropy
      for (int i = 0; i < n_; ++i)
        data_.y[static_cast<std::size_t>(i)] =
            data_.y[static_cast<std::size_t>(i)] > 0.0f ? 1.0f : 0.0f;
    for (const char* m : kModes) {
      runs_.push_back(std::make_unique<ModeRun>());
      runs_.back()->name = m;
      runs_.back()->series = &add_series(m, {"epoch", "loss"});
    }
    std::vector<TimedSide> sides;
    for (const auto& r : runs_)
      sides.push_back({r->name, [this, &r = *r] { return takes_turn(r); },
                       [this, &r = *r](long long steps) { return run_steps(r, steps); }});
    // Turns of whole unrolled calls, at least 1 ms (browser clocks tick in 5-100 µs).
    rounds_ = &add_rounds(std::move(sides), {1.0, p.integer("unroll"), true},
                          [](std::string_view id) { return !id.starts_with("first_call_"); });
    for (std::size_t i = 0; i < runs_.size(); ++i) runs_[i]->rounds = &rounds_->rounds_us(i);
    std::vector<TimedSide> firsts;
    for (const char* m : kFirstCallModes) {
      ModeRun& r =
          **std::find_if(runs_.begin(), runs_.end(), [&](auto& x) { return x->name == m; });
      firsts.push_back({m, [] { return true; },
                        [this, &r](long long calls) { return first_calls(r, calls); },
                        [this, &r](long long calls) { fresh_models(r, calls); }});
    }
    // Each side its own number of first calls a turn (eager's is ~100x cheaper than compiled's).
    first_calls_ = &add_rounds(std::move(firsts), {1.0, 1, false},
                               [](std::string_view id) { return id.starts_with("first_call_"); });
  }

  bool finished() const override {
    return std::all_of(runs_.begin(), runs_.end(),
                       [](const auto& r) { return r->finished || r->diverged_at; });
  }

 private:
  // First every mode's setup and first call, with the rest of its first unrolled call's steps
  // (so every mode starts the rounds at the same step); then the first calls again, in paired
  // rounds (kMinDecidingRounds of them); then the steady steps' paired rounds.
  void work_one() override {
    if (set_up_ < runs_.size()) {
      ModeRun& r = *runs_[set_up_++];
      setup(r);
      run_first_call(r);
    } else if (first_calls_->rounds() < kMinDecidingRounds || first_calls_->mid_round()) {
      first_calls_->turn();
    } else {
      rounds_->turn();
    }
  }

  // The run's model (the same seed, the same initial weights for every mode).
  std::unique_ptr<Model> new_model() const {
    Rng init(static_cast<std::uint64_t>(params().integer("seed")) + 1);
    if (seed_) return std::make_unique<ConvNet>(*model_.conv, init);
    return std::make_unique<Mlp>(1, std::vector<int>{static_cast<int>(params().integer("hidden"))},
                                 1, parse_activation(params().choice("activation")), init);
  }
  // A batch of x: batch rows, or batch sequences of 140 × 30 (seed 001's model).
  Shape x_batch() const {
    return seed_ ? Shape{batch_ * model_.conv->length, model_.conv->channels} : Shape{batch_, 1};
  }

  void fresh_models(ModeRun& r, long long calls) {
    r.fresh.clear();
    for (long long i = 0; i < calls; ++i) {
      auto model = new_model();
      auto adam = std::make_unique<Adam>(params().number("lr"), model->parameters());
      r.fresh.emplace_back(std::move(model), std::move(adam));
    }
  }

  // A first call of each fresh model: the trainer built (trace, compile), one step on batch 0.
  long long first_calls(ModeRun& r, long long calls) {
    const float* x = data_.x.data();
    const float* y = data_.y.data();
    float loss = 0.0f;
    for (auto& [model, adam] : r.fresh)
      GraphTrainer(parse_mode(r.name), *model, *adam, x_batch(), Shape{batch_, 1}, 1, true, loss_)
          .run(&x, &y, &loss);
    r.fresh.clear();
    return calls;
  }

  // After the configured steps the extra rounds go on (nothing recorded).
  bool takes_turn(const ModeRun& r) const { return !r.diverged_at && (finished() || !r.finished); }

  double fraction() const override {
    long long done_steps = 0;
    for (auto& r : runs_) done_steps += r->steps;
    return static_cast<double>(done_steps) /
           (static_cast<double>(runs_.size()) * static_cast<double>(total_steps_));
  }

  json progress_message() const override {
    const ModeRun& r = set_up_ < runs_.size() ? *runs_[set_up_] : *runs_[rounds_->side()];
    return msg("em.progress", {{"name", r.name}, {"s", r.steps}, {"n", total_steps_}});
  }

  json config() const override {
    json config = config_without_text(params(), csv_);
    if (csv_) config["n"] = n_;
    return config;
  }

  json runs() const override {
    json runs = json::array();
    for (const auto& r : runs_) runs.push_back(run_json(*r));
    return runs;
  }

  // Same seed, same initial weights for every mode; the first call is timed from here.
  void setup(ModeRun& r) {
    const Stopwatch watch;
    r.model = new_model();
    const double lr = params().number("lr");
    if (r.name == "reference" && seed_) {
      r.reference_conv =
          std::make_unique<ReferenceConvNet>(static_cast<ConvNet&>(*r.model), batch_, lr);
    } else if (r.name == "reference") {
      r.reference =
          std::make_unique<ReferenceMlp>(static_cast<const Mlp&>(*r.model), batch_, lr, loss_);
    } else {
      r.optimizer = std::make_unique<Adam>(lr, r.model->parameters());
      const Mode mode = r.name == "unrolled" ? Mode::Traced : parse_mode(r.name);
      r.steps_per_call = r.name == "unrolled" ? static_cast<int>(params().integer("unroll")) : 1;
      r.graph = std::make_unique<GraphTrainer>(mode, *r.model, *r.optimizer, x_batch(),
                                               Shape{batch_, 1}, r.steps_per_call, true, loss_);
    }
    r.setup_ms = watch.elapsed_ms();
  }

  // One call = steps_per_call steps on consecutive batches (batch index wraps each epoch).
  void call(ModeRun& r, float* losses) {
    const float* xs[1024];
    const float* ys[1024];
    for (int j = 0; j < r.steps_per_call; ++j) {
      const long long b = (r.steps + r.extra_steps + j) % batches_;
      xs[j] = data_.x.data() + b * batch_ * example_floats_;
      ys[j] = data_.y.data() + b * batch_;
    }
    if (r.reference)
      losses[0] = r.reference->step(xs[0], ys[0]);
    else if (r.reference_conv)
      losses[0] = r.reference_conv->step(xs[0], ys[0]);
    else
      r.graph->run(xs, ys, losses);
  }

  // The loss on N(0, 1) noise jumps from batch to batch: the plot shows each epoch's mean loss,
  // a readable curve, rather than every step's.
  void record(ModeRun& r, const float* losses) {
    for (int j = 0; j < r.steps_per_call; ++j) {
      const long long step = r.steps + j;
      if (!std::isfinite(losses[j])) {  // stop this mode; last_loss keeps the last finite value
        r.diverged_at = step;
        r.finished = true;
        return;
      }
      r.epoch_loss_sum += losses[j];
      if ((step + 1) % batches_ == 0) {
        r.series->add({static_cast<double>((step + 1) / batches_), r.epoch_loss_sum / batches_});
        r.epoch_loss_sum = 0.0;
      }
      r.last_loss = losses[j];
    }
    r.steps += r.steps_per_call;
    if (r.steps >= total_steps_) r.finished = true;
  }

  // The first call, apart: it includes tracing and compiling. The rest of the steps of an unrolled
  // call follow, timed into the total: every mode then has run one unrolled call's steps.
  void run_first_call(ModeRun& r) {
    float losses[1024];
    const Stopwatch w;
    call(r, losses);
    r.first_call_ms = r.setup_ms + w.elapsed_ms();
    r.total_ms += r.first_call_ms;
    record(r, losses);
    const Stopwatch rest;
    while (r.steps % params().integer("unroll") != 0 && !r.finished) {
      call(r, losses);
      record(r, losses);
    }
    r.total_ms += rest.elapsed_ms();
  }

  // A mode's turn in the rounds: up to `want` steps (fewer at the end of the configured ones);
  // after the configured steps they are timed and not recorded.
  long long run_steps(ModeRun& r, long long want) {
    float losses[1024];
    const bool extra = finished();
    const Stopwatch w;
    long long steps = 0;
    while (steps < want && (extra || !r.finished)) {
      call(r, losses);
      if (extra)
        r.extra_steps += r.steps_per_call;
      else
        record(r, losses);
      steps += r.steps_per_call;
    }
    if (!extra) r.total_ms += w.elapsed_ms();
    return steps;
  }

  json run_json(const ModeRun& r) const {
    json j = object({{"mode", r.name},
                     {"steps_per_call", r.steps_per_call},
                     {"first_call_ms", r.first_call_ms},
                     {"steady_step_us", median(*r.rounds)},
                     {"steady_step_spread_us", half_iqr(*r.rounds)},
                     {"rounds", static_cast<long long>(r.rounds->size())},
                     {"steady_step_ci_us", interval_json(*r.rounds)},
                     {"total_ms", r.total_ms},
                     {"steps", r.steps},
                     {"final_loss", r.diverged_at ? json(nullptr) : json(r.last_loss)},
                     {"diverged", r.diverged_at.has_value()},
                     {"diverged_at", r.diverged_at ? json(*r.diverged_at) : json(nullptr)},
                     {"last_finite_loss", r.last_loss}});
    if (r.graph) {
      const json info = r.graph->setup_info();
      for (const auto& [k, v] : info.items()) j[k] = v;
    }
    return j;
  }

  // A mode's steady step: its rounds.
  Measure step_of(const ModeRun& r, std::string label) const {
    return paired_side(std::move(label), *r.rounds);
  }
  static Measure loss_of(const ModeRun& r) { return loss_measure(r.name, r.last_loss); }

  const ModeRun& run(const std::string& name) const {
    for (const auto& r : runs_)
      if (r->name == name) return *r;
    throw std::logic_error("execution-modes: no mode " + name);
  }

  // A mode's first calls in the paired rounds, in ms.
  Measure first_call_of(const std::string& name) const {
    const auto m = std::find(std::begin(kFirstCallModes), std::end(kFirstCallModes), name);
    return paired_side(
        name,
        in_ms(first_calls_->rounds_us(static_cast<std::size_t>(m - std::begin(kFirstCallModes)))));
  }

  std::vector<Comparison> comparisons() const override {
    const ModeRun &eager = run("eager"), &traced = run("traced"), &unrolled = run("unrolled"),
                  &compiled = run("compiled"), &ref = run("reference");
    const std::string unrolled_label = "unrolled(" + std::to_string(unrolled.steps_per_call) + ")";
    const auto time = [](std::string id, Measure a, Measure b, const char* unit) {
      return compare(std::move(id), std::move(a), std::move(b), Quantity::Time, unit);
    };
    std::vector<Comparison> c;
    c.push_back(
        time("traced_vs_eager", step_of(traced, "traced"), step_of(eager, "eager"), "µs per step"));
    c.push_back(time("unrolled_vs_traced", step_of(unrolled, unrolled_label),
                     step_of(traced, "traced"), "µs per step"));
    c.push_back(time("traced_vs_reference", step_of(traced, "traced"),
                     step_of(ref, "the hand-written loop"), "µs per step"));
    c.push_back(time("first_call_traced_vs_eager", first_call_of("traced"), first_call_of("eager"),
                     "ms on the first call"));
    c.push_back(time("compiled_vs_traced", step_of(compiled, "compiled"), step_of(traced, "traced"),
                     "µs per step"));
    c.push_back(time("compiled_vs_reference", step_of(compiled, "compiled"),
                     step_of(ref, "the hand-written loop"), "µs per step"));
    c.push_back(time("first_call_compiled_vs_traced", first_call_of("compiled"),
                     first_call_of("traced"), "ms on the first call"));
    for (const auto& r : runs_)
      if (r.get() != &ref && !r->diverged_at && !ref.diverged_at)
        c.push_back(compare("final_loss_" + r->name + "_vs_" + ref.name, loss_of(*r), loss_of(ref),
                            Quantity::Loss, ""));
    return c;
  }

  // The question, answered from this run: does tracing pay, and after how many steps? From the
  // paired verdicts of the step and of the first call. Every branch takes the same arguments, so
  // the result's structure never depends on a timing.
  json answer(const Comparison& step, const Comparison& first, const ModeRun& traced) const {
    const double once = first.a.value - first.b.value;    // what tracing costs extra, ms
    const double saved_us = step.b.value - step.a.value;  // per step, eager − traced
    const double steps = saved_us > 0.0 ? once * 1000.0 / saved_us : 0.0;
    const long long total = traced.steps,
                    k = static_cast<long long>(std::ceil(std::max(steps, 0.0)));
    const char* key = step.verdict == Verdict::Inconclusive    ? "em.a_unsure"
                      : step.verdict != Verdict::A             ? "em.a_no_gain"
                      : first.verdict == Verdict::Inconclusive ? "em.a_unsure_first"
                      : first.verdict != Verdict::B            ? "em.a_free"
                                                               : "em.a_paid";
    return msg(key, {{"first_ms", first.a.value},
                     {"eager_ms", first.b.value},
                     {"saved", saved_us},
                     {"once", once},
                     {"after", msg(k <= 1 ? "em.after_first" : "em.after_k", {{"k", k}})},
                     {"tail",
                      msg(steps <= static_cast<double>(total) ? "em.tail_took" : "em.tail_not_paid",
                          {{"total", total}})}});
  }

  // Compiled mode's first call in parts, from the engine's own clocks (CompileStats): what
  // tf.function's trace plus XLA's compile cost in TensorFlow. Natively a C compiler builds the
  // code, in WebAssembly the engine compiles the module; either may find it built already.
  json first_call_split(const ModeRun& compiled) const {
    if (!compiled.graph) return "";
    const json info = compiled.graph->setup_info();
    const double trace = info["trace_ms"], compile = info["compile_ms"],
                 codegen = info["codegen_ms"], build = info["build_ms"], load = info["load_ms"];
    const char* builder = info["code_cached"].get<bool>()    ? "em.first_build_cached"
                          : environment()["build"] == "wasm" ? "em.first_build_wasm"
                                                             : "em.first_build_cc";
    return msg("em.first_split",
               {{"c", compiled.first_call_ms},
                {"trace", trace},
                {"passes", std::max(compile - codegen, 0.0)},
                {"gen", std::max(codegen - build - load, 0.0)},
                {"build", msg(builder, {{"ms", build}})},
                {"load", load},
                {"rest", std::max(compiled.first_call_ms - trace - compile, 0.0)}});
  }

  json summary() const override {
    const ModeRun &eager = run("eager"), &traced = run("traced"), &unrolled = run("unrolled"),
                  &compiled = run("compiled"), &ref = run("reference");
    const double e = median(*eager.rounds), t = median(*traced.rounds),
                 u = median(*unrolled.rounds), c = median(*compiled.rounds);
    const double f = median(*ref.rounds);
    const std::vector<Comparison> cmp = comparisons();
    const auto said = [&](std::string_view id) { return comparison(cmp, id).message(); };
    double max_gap = 0.0;  // how far the final losses are apart, relative
    for (const auto& r : runs_)
      max_gap = std::max(max_gap, static_cast<double>(std::abs(r->last_loss - ref.last_loss) /
                                                      std::abs(ref.last_loss)));
    bool same_loss = true;
    for (const Comparison& c : cmp)
      if (c.quantity == Quantity::Loss) same_loss = same_loss && c.verdict == Verdict::Same;
    json s;
    s["steady_step_us"] = {
        {"eager", e}, {"traced", t}, {"unrolled", u}, {"compiled", c}, {"reference", f}};
    s["final_loss_spread"] = max_gap;
    s["comparisons"] = comparisons_json(cmp);
    json headline = json::array();
    headline.push_back(
        card(msg("em.h_step"),
             msg("em.h_step_value", {{"e", e}, {"t", t}, {"u", u}, {"c", c}, {"f", f}}),
             msg("em.h_step_note", {{"k", unrolled.steps_per_call}})));
    headline.push_back(card(msg("em.h_first"),
                            msg("em.h_first_value", {{"e", eager.first_call_ms},
                                                     {"t", traced.first_call_ms},
                                                     {"u", unrolled.first_call_ms},
                                                     {"c", compiled.first_call_ms}}),
                            msg("em.h_first_note")));
    headline.push_back(card(msg("em.h_traced"), comparison(cmp, "traced_vs_eager").short_message(),
                            said("traced_vs_reference")));
    headline.push_back(
        card(msg("em.h_loss"), msg("em.h_loss_value", {{"v", ref.last_loss}}),
             msg(same_loss ? "em.h_loss_same" : "em.h_loss_differ", {{"gap", max_gap}})));
    json diverged = json::array();
    for (const auto& r : runs_)
      if (r->diverged_at)
        diverged.push_back(msg(
            "em.diverged", {{"mode", r->name}, {"at", *r->diverged_at}, {"loss", r->last_loss}}));
    const json end = msg(!diverged.empty() ? "em.r_diverged"
                         : same_loss       ? "em.r_same"
                                           : "em.r_differ",
                         {{"list", diverged}, {"gap", max_gap}});
    const json reading =
        msg("em.reading", {{"traced_vs_eager", said("traced_vs_eager")},
                           {"unrolled_vs_traced", said("unrolled_vs_traced")},
                           {"traced_vs_reference", said("traced_vs_reference")},
                           {"compiled_vs_traced", said("compiled_vs_traced")},
                           {"compiled_vs_reference", said("compiled_vs_reference")},
                           {"t", traced.first_call_ms},
                           {"u", unrolled.first_call_ms},
                           {"c", compiled.first_call_ms},
                           {"split", first_call_split(compiled)},
                           {"end", end}});
    const json quoted =
        json::array({{{"label", msg("em.q_label")},
                      {"quoted", msg("em.q_quoted")},
                      {"measured", msg("em.q_measured", {{"t", traced.first_call_ms},
                                                         {"u", unrolled.first_call_ms},
                                                         {"k", unrolled.steps_per_call}})},
                      {"why", msg("em.q_why", {{"u", unrolled.first_call_ms}})}}});
    summary_messages(s, headline, reading,
                     answer(comparison(cmp, "traced_vs_eager"),
                            comparison(cmp, "first_call_traced_vs_eager"), traced),
                     quoted);
    return s;
  }

  std::optional<CsvData>
      csv_;  // the user's own data (x and y columns), when a CSV came with the config
  int n_, batch_, batches_;
  long long total_steps_;
  SessionConfig model_;  // its conv: seed 001's model (model=seed001_small), else none (the MLP)
  bool seed_;            // model=seed001_small
  Loss loss_;
  LinearData data_;     // x and y ~ N(0, 1), or seed 001's sequences and 0/1 targets
  int example_floats_;  // x's floats per example: 1, or a sequence's 140 × 30
  std::vector<std::unique_ptr<ModeRun>> runs_;
  std::size_t set_up_ = 0;               // modes set up, with their first call
  PairedRounds* rounds_ = nullptr;       // the steady steps' paired rounds
  PairedRounds* first_calls_ = nullptr;  // the first calls' paired rounds
};

}  // namespace

Experiment make_execution_modes_experiment() {
  Experiment e;
  e.id = "execution-modes";
  const json mlp = "mlp";
  e.params = {
      choice("model", "mlp", {"mlp", "seed001_small"}),
      common::samples(10000, 100),
      common::batch(),
      integer("epochs", 10, 1, 1000),
      common::hidden().only_when("model", mlp),
      choice("activation", "tanh", {"tanh", "relu", "sigmoid", "linear"}).only_when("model", mlp),
      choice("loss", "mse", {"mse", "bce"}).only_when("model", mlp),
      common::adam_lr(),
      integer("unroll", 5, 1, 1000),
      common::max_seconds(),
      common::band(),
      common::seed(),
  };
  e.plots = json::array(
      {line_plot("loss", {"epoch"}, {"loss"},
                 {"eager", "traced", "unrolled", "compiled", "reference"}),
       bars_plot("first_call", "mode", {"first_call_ms", Scale::Log}),
       bars_plot_with_interval("steady", "mode", {"steady_step_us"}, "steady_step_ci_us")});
  e.quoted_sources = {"seed thread 000", "seed thread 000", "seed thread 000"};
  e.takes_csv = true;
  e.check = [](const Params& p) {  // with a CSV its rows are n (parsed here too, so validation
                                   // reports a bad file)
    if (trains_seed_model(p)) {
      if (csv_data(p)) refuse("err.em_seed_csv");
      const long long n = p.integer("n"), batch = p.integer("batch"), unroll = p.integer("unroll");
      check_sizes(n, batch, unroll, 1, "n");
      const double bytes = seed_model_bytes(n, batch, unroll);
      if (bytes > kSeedModelMemoryLimitBytes)
        refuse("err.em_seed_memory", {{"mb", bytes / 1048576.0}});
      return;
    }
    if (!checked_csv(p))
      check_sizes(p.integer("n"), p.integer("batch"), p.integer("unroll"), p.integer("hidden"),
                  "n");
  };
  e.estimate = [](const Params& p) {
    const double n = static_cast<double>(p.integer("n")),
                 batch = static_cast<double>(p.integer("batch"));
    const double hidden = static_cast<double>(p.integer("hidden")),
                 unroll = static_cast<double>(p.integer("unroll"));
    // All five modes stay alive to the end, each with one step's buffers; the unrolled program
    // also grows with k.
    const double step_bytes =
        batch * (hidden + 1.0) * 4.0 * kStepFloatsPerUnit + hidden * 4.0 * 64.0 + 64e3;
    if (trains_seed_model(p))
      return Estimate{seed_model_bytes(p.integer("n"), p.integer("batch"), p.integer("unroll")),
                      4.0 * std::floor(n / batch) * static_cast<double>(p.integer("epochs")),
                      "n, batch, epochs and unroll"};
    return Estimate{
        2e6 + n * 4.0 * 3.0 + step_bytes * 5.0 + unroll * (kBytesPerUnrolledStep + hidden * 32.0),
        kModeCount * std::floor(n / batch) * static_cast<double>(p.integer("epochs")),
        "n, batch, hidden, epochs and unroll"};
  };
  e.small_config = {"n=1000", "batch=50", "epochs=2", "max_seconds=0"};
  e.golden_configs = {{},
                      {"n=2000", "batch=50", "unroll=4", "epochs=3", "hidden=8"},
                      {"n=500", "batch=50", "epochs=2", "lr=0.5"}};
  e.start = start_run_of<ExecutionModesRun>;
  return e;
}

}  // namespace looplab
