// unroll.cpp — seed thread 000: how far should I unroll?
//
// The seed-000 network compiled with k training steps per program, k = 1, 2, 5, 10, 50 and all
// the batches of an epoch (the seed's fully unrolled Python list). Per k: what tracing and
// compiling cost, how big the program is, and the steady time per step. mode = compiled generates
// each program as code (C natively, WebAssembly in the browser): k steps of code to build.
#include <algorithm>
#include <cmath>
#include <optional>

#include "looplab/base/i18n.hpp"
#include "looplab/experiments/common_params.hpp"
#include "looplab/experiments/comparison.hpp"
#include "looplab/experiments/experiment.hpp"
#include "looplab/experiments/plots.hpp"
#include "looplab/experiments/results.hpp"
#include "looplab/experiments/run.hpp"
#include "looplab/experiments/timing.hpp"
#include "looplab/train/graph_trainer.hpp"
#include "looplab/train/linear.hpp"

namespace looplab {
namespace {

// Compiled mode: at most this many batches per epoch, so k = all is at most this many steps of
// generated code to build.
constexpr long long kCompiledBatches = 20;

class UnrollRun final : public ChunkedRun {
 public:
  explicit UnrollRun(const Params& p)
      : ChunkedRun("unroll", p),
        n_(static_cast<int>(p.integer("n"))),
        batch_(static_cast<int>(p.integer("batch"))),
        batches_(n_ / batch_),
        steps_(static_cast<long long>(batches_) * p.integer("epochs")),
        mode_(parse_mode(p.choice("mode"))),
        data_(normal_data(n_, static_cast<std::uint64_t>(p.integer("seed")))) {
    warm_up_engines();  // untimed: see graph_trainer.hpp
    for (int k : {1, 2, 5, 10, 50})
      if (k < batches_ && batches_ % k == 0) factors_.push_back(k);
    factors_.push_back(batches_);  // "all": one program per epoch
  }

  bool finished() const override { return current_ >= factors_.size(); }

 private:
  // A k's first call alone, then timed chunks of calls (at least 2 ms or one call). The first call
  // is not a steady step: it pays one-time costs (in the browser a new WebAssembly function is
  // compiled when it is first called), and with a few calls per k it would weigh on the median.
  void work_one() override {
    if (!trainer_) start_factor();
    if (done_steps_ == 0) {
      const Stopwatch first;
      call();
      first_call_ms_ = first.elapsed_ms();
      total_ms_ += first_call_ms_;
      if (done_steps_ >= steps_ || diverged_at_) finish_factor();
      return;
    }
    const Stopwatch chunk;
    long long steps = 0;
    while (done_steps_ < steps_ && !diverged_at_ && (steps == 0 || chunk.elapsed_ms() < 2.0)) {
      call();
      steps += k();
    }
    const double ms = chunk.elapsed_ms();
    total_ms_ += ms;
    chunk_us_.push_back(ms * 1000.0 / static_cast<double>(steps));
    if (done_steps_ >= steps_ || diverged_at_) finish_factor();
  }

  double fraction() const override {
    return static_cast<double>(current_) / static_cast<double>(factors_.size());
  }

  json progress_message() const override { return msg("unr.progress", {{"k", k()}}); }

  json runs() const override { return runs_; }

  // A k's steady step: median and spread (half-IQR) of its chunks.
  static Measure step_of(const json& r) {
    return {"k = " + std::to_string(r["k"].get<int>()), r["steady_step_us"].get<double>(),
            r["steady_step_spread_us"].get<double>()};
  }

  // A k that made one call only (k = all over one epoch, or a divergence in the first call) has
  // no steady step: its time per step is that first call's, one-time costs included.
  static bool one_call(const json& r) { return r.value("steady_from_first_call", false); }

  // Each k > 1 that has a steady step against k = 1 (per step), and the compile of the largest k
  // against k = 1's.
  // The comparison of k's step time with k = 1's.
  static std::string step_id(const json& run) {
    return "step_k" + std::to_string(run["k"].get<int>()) + "_vs_k1";
  }

  std::vector<Comparison> comparisons() const {
    std::vector<Comparison> c;
    if (runs_.size() < 2) return c;  // one batch per epoch: k = 1 is already k = all
    const json& first = runs_.front();
    for (std::size_t i = 1; i < runs_.size(); ++i)
      if (!one_call(runs_[i]) && !one_call(first))
        c.push_back(compare(step_id(runs_[i]), step_of(runs_[i]), step_of(first), Quantity::Time,
                            "µs per step"));
    const json& last = runs_.back();
    c.push_back(compare("compile_all_vs_k1", {"k = all", last["setup_ms"].get<double>(), 0.0},
                        {"k = 1", first["setup_ms"].get<double>(), 0.0}, Quantity::Time,
                        "ms to trace + compile"));
    return c;
  }

  // The smallest k whose step is not measurably slower than the fastest k's: where unrolling
  // stopped paying on this run.
  const json& enough_k() const {
    std::size_t best = 0;
    for (std::size_t i = 1; i < runs_.size(); ++i)
      if (!one_call(runs_[i]) && runs_[i]["steady_step_us"] < runs_[best]["steady_step_us"])
        best = i;
    for (const json& r : runs_)
      if (!one_call(r) &&
          compare("", step_of(r), step_of(runs_[best]), Quantity::Time, "").verdict != Verdict::B)
        return r;
    return runs_[best];
  }

  json answer() const {
    const json& enough = enough_k();
    const json& first = runs_.front();
    const json& last = runs_.back();
    const json compile = msg("unr.a_compile", {{"a", first["setup_ms"]}, {"b", last["setup_ms"]}});
    // The same arguments either way: the structure of a result never depends on a timing.
    return msg(enough["k"] == first["k"] ? "unr.a_none" : "unr.a_enough",
               {{"k", enough["k"]},
                {"us", enough["steady_step_us"]},
                {"us1", first["steady_step_us"]},
                {"compile", compile}});
  }

  // Compiled mode: how much of the trace + compile of k = 1 and of k = all went to generating and
  // building the code (codegen_ms, part of compile_ms); traced mode: nothing.
  json codegen_clause() const {
    if (mode_ != Mode::Compiled) return "";
    const json& first = runs_.front();
    const json& last = runs_.back();
    const double a = first["codegen_ms"].get<double>(), b = last["codegen_ms"].get<double>();
    const double total = last["setup_ms"].get<double>();
    // Whether a compiler ran, from the engine (GraphTrainer::code_cached), never assumed.
    const bool ca = first.value("code_cached", false), cb = last.value("code_cached", false);
    const json cache = ca && cb ? msg("unr.r_cached_both")
                       : ca     ? msg("unr.r_cached_first")
                       : cb     ? msg("unr.r_cached_last")
                                : msg("unr.r_built_both");
    return msg(
        "unr.r_codegen",
        {{"a", a}, {"b", b}, {"pct", total > 0.0 ? 100.0 * b / total : 0.0}, {"cache", cache}});
  }

  // What the seed's "first call" of the fully unrolled list is here: trace + compile of k = all,
  // then its first call (which in the browser also compiles the new WebAssembly function).
  double first_call_of_all_ms() const {
    return runs_.back()["setup_ms"].get<double>() + runs_.back()["first_call_ms"].get<double>();
  }

  // Beside the quoted 7.4 s for 100 batches (74 ms a batch): compiled mode's cost per step of
  // code, from this run, against it.
  json why_quoted() const {
    if (mode_ != Mode::Compiled) return msg("unr.q_why");
    const double per = first_call_of_all_ms() / factors_.back();
    const bool cached = runs_.back().value("code_cached", false);
    if (per > 74.0)
      return msg(cached ? "unr.q_why_compiled_more_cached" : "unr.q_why_compiled_more",
                 {{"per", per}});
    return msg("unr.q_why_compiled_less",
               {{"per", per}, {"built", msg(cached ? "unr.q_built_cached" : "unr.q_built_now")}});
  }

  // With one batch per epoch the only program is k = 1 = all: there is nothing to compare.
  json summary_of_one_k() const {
    const json& r = runs_.front();
    json s = {{"comparisons", json::array()}};
    summary_messages(
        s,
        json::array({{{"label", msg("unr.h_one")},
                      {"value", msg("unr.us", {{"us", r["steady_step_us"]}})},
                      {"note", msg("unr.h_one_note")}}}),
        msg("unr.r_one",
            {{"us", r["steady_step_us"]}, {"ms", r["setup_ms"]}, {"diverged", diverged_}}),
        msg("unr.a_one"));
    return s;
  }

  json summary() const override {
    if (runs_.size() < 2) return summary_of_one_k();
    json s;
    const json& first = runs_.front();
    const json& last = runs_.back();
    const std::vector<Comparison> cmp = comparisons();
    s["comparisons"] = comparisons_json(cmp);
    const json headline = json::array(
        {{{"label", msg("unr.h_compile")},
          {"value", msg("unr.ms_to_ms", {{"a", first["setup_ms"]}, {"b", last["setup_ms"]}})},
          {"note", msg("unr.h_compile_note", {{"k", factors_.back()}})}},
         {{"label", msg("unr.h_step")},
          {"value", one_call(last) || one_call(first)
                        ? msg("unr.h_step_one_call")
                        : comparison_short_message(find_comparison(cmp, step_id(last))->to_json())},
          {"note", msg(one_call(last) ? "unr.us_to_us_one_call" : "unr.us_to_us",
                       {{"a", first["steady_step_us"]}, {"b", last["steady_step_us"]}})}},
         {{"label", msg("unr.h_size")},
          {"value",
           msg("unr.h_size_value", {{"a", first["instructions"]}, {"b", last["instructions"]}})},
          {"note", msg("unr.h_size_note", {{"a", first["arena_bytes"]},
                                           {"b", last["arena_bytes"]},
                                           {"ops", first["nodes_before_fusion"]},
                                           {"ins", first["nodes_after_fusion"]}})}}});
    json said = json::array();  // every step comparison (all but the last: compile time)
    for (std::size_t i = 0; i + 1 < cmp.size(); ++i)
      said.push_back(comparison_message(cmp[i].to_json()));
    for (const json& r : runs_)
      if (one_call(r))
        said.push_back(msg("unr.k_one_call", {{"k", r["k"]}, {"us", r["steady_step_us"]}}));
    const json per_k = separated(said, "sep.semicolon");
    const json reading =
        msg("unr.reading",
            {{"k", factors_.back()},
             {"f", last["instructions"].get<double>() / first["instructions"].get<double>()},
             {"ms", last["setup_ms"]},
             {"per_k", per_k},
             {"diverged", diverged_},
             {"codegen", codegen_clause()}});
    const json measured = msg("unr.q_measured", {{"ms", first_call_of_all_ms()},
                                                 {"n", factors_.back()},
                                                 {"setup", last["setup_ms"]},
                                                 {"first", last["first_call_ms"]}});
    const json quoted = json::array({{{"label", msg("unr.q_label")},
                                      {"quoted", msg("unr.q_quoted")},
                                      {"measured", measured},
                                      {"why", why_quoted()}}});
    summary_messages(s, headline, reading, answer(), quoted);
    return s;
  }

  int k() const { return factors_.at(current_); }

  void start_factor() {
    Rng init(static_cast<std::uint64_t>(params().integer("seed")) + 1);
    model_ =
        std::make_unique<Mlp>(1, std::vector<int>{static_cast<int>(params().integer("hidden"))}, 1,
                              Activation::Tanh, init);
    adam_ = std::make_unique<Adam>(params().number("lr"), model_->parameters());
    const Stopwatch w;
    trainer_ = std::make_unique<GraphTrainer>(mode_, *model_, *adam_, Shape{batch_, 1},
                                              Shape{batch_, 1}, k());
    xs_.assign(static_cast<std::size_t>(k()),
               nullptr);  // sized here: the timed calls allocate nothing
    ys_.assign(xs_.size(), nullptr);
    losses_.assign(xs_.size(), 0.0f);
    setup_ms_ = w.elapsed_ms();
    done_steps_ = 0;
    last_finite_loss_ = 0.0f;
    total_ms_ = 0.0;
    chunk_us_.clear();
  }

  void call() {
    for (int j = 0; j < k(); ++j) {
      const long long b = (done_steps_ + j) % batches_;
      xs_[static_cast<std::size_t>(j)] = data_.x.data() + b * batch_;
      ys_[static_cast<std::size_t>(j)] = data_.y.data() + b * batch_;
    }
    trainer_->run(xs_.data(), ys_.data(), losses_.data());
    for (int j = 0; j < k(); ++j) {  // checked per call: a NaN stops this k at its first bad step
      const float loss = losses_[static_cast<std::size_t>(j)];
      if (!std::isfinite(loss)) {
        diverged_at_ = done_steps_ + j;
        break;
      }
      last_finite_loss_ = loss;
    }
    done_steps_ += k();
  }

  void finish_factor() {
    // One call in all (k = all and one epoch): that call is all there is to time, and it is
    // flagged, since it is no steady step (comparisons leave it out).
    const bool one_call = chunk_us_.empty();
    if (one_call) chunk_us_.push_back(first_call_ms_ * 1000.0 / static_cast<double>(k()));
    const double steady = median(chunk_us_), spread = half_iqr(chunk_us_);
    json r = {{"k", k()},
              {"setup_ms", setup_ms_},
              {"first_call_ms", first_call_ms_},
              {"steady_step_us", steady},
              {"steady_step_spread_us", spread},
              {"steady_from_first_call", one_call},
              {"total_ms", total_ms_ + setup_ms_},
              {"final_loss", diverged_at_ ? json(nullptr) : json(last_finite_loss_)},
              {"diverged_at", diverged_at_ ? json(*diverged_at_) : json(nullptr)},
              {"last_finite_loss", last_finite_loss_}};
    if (diverged_at_)
      diverged_.push_back(
          msg("unr.diverged", {{"k", k()}, {"at", *diverged_at_}, {"loss", last_finite_loss_}}));
    json info = trainer_->setup_info();
    // The code of k = 1 is one step's; a larger k's repeats it k times: shown once.
    if (k() > 1) info.erase("generated_code");
    for (const auto& [key, value] : info.items()) r[key] = value;
    runs_.push_back(r);
    compile_.add({static_cast<double>(k()), setup_ms_});
    step_.add({static_cast<double>(k()), steady, spread});
    trainer_.reset();
    diverged_at_.reset();
    ++current_;
  }

  int n_, batch_, batches_;
  long long steps_;
  Mode mode_;        // traced or compiled
  LinearData data_;  // x and y ~ N(0, 1)
  std::vector<int> factors_;
  std::size_t current_ = 0;
  std::unique_ptr<Mlp> model_;
  std::unique_ptr<Adam> adam_;
  std::unique_ptr<GraphTrainer> trainer_;
  long long done_steps_ = 0;
  std::optional<long long> diverged_at_;  // of the current k
  float last_finite_loss_ = 0.0f;
  json diverged_ = json::array();  // a message per k that diverged, for the reading
  double setup_ms_ = 0.0, first_call_ms_ = 0.0, total_ms_ = 0.0;
  std::vector<double> chunk_us_;
  std::vector<const float*> xs_, ys_;
  std::vector<float> losses_;
  json runs_ = json::array();
  Series& compile_ = add_series("compile", {"k", "ms"});
  Series& step_ = add_series("step", {"k", "us", "us_spread"});
};

}  // namespace

Experiment make_unroll_experiment() {
  Experiment e;
  e.id = "unroll";
  e.params = {
      common::samples(10000, 100),
      common::batch(),
      integer("epochs", 5, 1, 1000),
      common::hidden(),
      common::adam_lr(),
      choice("mode", "traced", {"traced", "compiled"}),
      common::seed(),
  };
  e.plots = json::array({line_plot("compile", {"k", Scale::Log}, {"ms", Scale::Log}, {"compile"}),
                         line_plot("step", {"k", Scale::Log}, {"us"}, {"step"}, "", "us_spread")});
  e.quoted_sources = {"seed thread 000", "seed thread 000", "seed thread 000"};
  e.check = [](const Params& p) {
    common::check_batch_at_most_n(p.integer("batch"), p.integer("n"));
    if (p.integer("n") / p.integer("batch") > 5000)
      throw ConfigError(msg("err.unroll_batches", {{"got", p.integer("n") / p.integer("batch")}}));
    // NOTE: the C compiler's time grows with the code, k steps of it: on the 2-core development
    // machine cc -O3 took 0.7 s for k = 1 and 216 s for k = 100 (the default n and batch).
    if (p.choice("mode") == "compiled" && p.integer("n") / p.integer("batch") > kCompiledBatches)
      throw ConfigError(
          msg("err.unroll_compiled_batches",
              {{"max", kCompiledBatches}, {"got", p.integer("n") / p.integer("batch")}}));
  };
  e.estimate = [](const Params& p) {
    const double n = static_cast<double>(p.integer("n")),
                 batch = static_cast<double>(p.integer("batch"));
    const double hidden = static_cast<double>(p.integer("hidden")), batches = std::floor(n / batch);
    // One program at a time; the largest is k = all batches: one step's arena (reused across the
    // steps) and every step's instructions. Steps: every k trains `epochs` epochs (at most 6 k's).
    const double step_bytes =
        batch * (hidden + 1.0) * 4.0 * kStepFloatsPerUnit + hidden * 4.0 * 64.0 + 64e3;
    return Estimate{2e6 + n * 4.0 * 3.0 + step_bytes * 2.0 +
                        (batches + 1.0) * (kBytesPerUnrolledStep + hidden * 32.0),
                    6.0 * batches * static_cast<double>(p.integer("epochs")),
                    "n, batch, hidden and epochs"};
  };
  e.small_config = {"n=1000", "batch=100", "epochs=1"};
  e.golden_configs = {
      {}, {"n=2000", "batch=20", "epochs=2"}, {"n=1000", "batch=100", "hidden=4", "lr=0.9"}};
  e.start = start_run_of<UnrollRun>;
  return e;
}

}  // namespace looplab
