// unroll.cpp — seed thread 000: how far should I unroll?
//
// The seed-000 network compiled with k training steps per program, k = 1, 2, 5, 10, 50 and all
// the batches of an epoch (the seed's fully unrolled Python list). Per k: what tracing and
// compiling cost, how big the program is, and the steady time per step. mode = compiled generates
// each program as code (C natively, WebAssembly in the browser): k steps of code to build. Every k
// is set up first (with its first call and the rest of its first epoch); then the k's take turns
// in paired rounds of whole epochs (rounds.hpp), so every step verdict comes from the per-round
// ratio's 95% interval (paired.hpp).
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

// The k's compiled for `batches` batches per epoch: 1, 2, 5, 10, 50 where they divide it, and all.
std::vector<int> factors_of(int batches) {
  std::vector<int> f;
  for (int k : {1, 2, 5, 10, 50})
    if (k < batches && batches % k == 0) f.push_back(k);
  f.push_back(batches);  // "all": one program per epoch
  return f;
}

// One k: its model, program and timings. All k's are set up first and then take turns.
struct Unrolled {
  int k = 1;
  std::unique_ptr<Mlp> model;
  std::unique_ptr<Adam> adam;
  std::unique_ptr<GraphTrainer> trainer;
  std::vector<const float*> xs, ys;  // sized at setup: the timed calls allocate nothing
  std::vector<float> losses;
  long long done_steps = 0, extra_steps = 0;  // configured steps; steps timed after them
  std::optional<long long> diverged_at;
  float last_finite_loss = 0.0f;
  double setup_ms = 0.0, first_call_ms = 0.0, total_ms = 0.0;
  std::optional<double> rest_us;  // µs per step over the rest of the first epoch (not paired)
  const std::vector<double>* rounds = nullptr;  // the run's paired rounds of whole epochs
  const std::vector<double>& rounds_us() const { return *rounds; }  // µs per step, a round each
  bool recorded = false;  // its compile and step points are in the series
};

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
    for (int k : factors_of(batches_)) {
      auto u = std::make_unique<Unrolled>();
      u->k = k;
      ks_.push_back(std::move(u));
    }
    std::vector<TimedSide> sides;
    for (const auto& u : ks_)
      sides.push_back({"k = " + std::to_string(u->k), [this, &u = *u] { return takes_turn(u); },
                       [this, &u = *u](long long steps) { return run_epochs(u, steps); }});
    // Turns of whole epochs, the same for every k (the configured epochs end together).
    rounds_ = &add_rounds(std::move(sides), {1.0, batches_, true});
    for (std::size_t i = 0; i < ks_.size(); ++i) ks_[i]->rounds = &rounds_->rounds_us(i);
    // Trace + compile again, k = 1 against k = all, in paired rounds of their own: fresh models
    // built before a turn (untimed), the turn builds each one's program.
    std::vector<TimedSide> compiles;
    for (const Unrolled* u : {ks_.front().get(), ks_.back().get()})
      compiles.push_back({u->k == 1 ? "k = 1" : "k = all", [] { return true; },
                          [this, k = u->k](long long n) { return compile(k, n); },
                          [this](long long n) { fresh_models(n); }});
    compiles_ = &add_rounds(std::move(compiles), {1.0, 1, false},
                            [](std::string_view id) { return id == "compile_all_vs_k1"; });
  }

  bool finished() const override {
    return compiles_done() &&
           std::all_of(ks_.begin(), ks_.end(), [&](const auto& u) { return !configured(*u); });
  }

 private:
  // First each k's setup (trace + compile) and first call: not a steady step, it pays one-time
  // costs (in the browser a new WebAssembly function is compiled when it is first called); then the
  // rest of its first epoch (k = all has none), timed but not paired: its length differs per k.
  // Then the paired rounds, one or more whole epochs per k a turn: the same work for every k (each
  // k divides the batches per epoch), so round i of two k's is a pair. After the configured epochs
  // the extra rounds go on with whole epochs, their losses not recorded.
  bool configured(const Unrolled& u) const { return !u.diverged_at && u.done_steps < steps_; }
  bool takes_turn(const Unrolled& u) const {
    return !u.diverged_at && (finished() || u.done_steps < steps_);
  }

  bool compiles_done() const {
    return ks_.size() < 2 || (compiles_->rounds() >= kMinDecidingRounds && !compiles_->mid_round());
  }

  void fresh_models(long long n) {
    fresh_.clear();
    for (long long i = 0; i < n; ++i) {
      auto model = new_model();
      auto adam = std::make_unique<Adam>(params().number("lr"), model->parameters());
      fresh_.emplace_back(std::move(model), std::move(adam));
    }
  }

  // The run's model: the same seed, the same initial weights for every k and every fresh one.
  std::unique_ptr<Mlp> new_model() const {
    Rng init(static_cast<std::uint64_t>(params().integer("seed")) + 1);
    return std::make_unique<Mlp>(1, std::vector<int>{static_cast<int>(params().integer("hidden"))},
                                 1, Activation::Tanh, init);
  }

  // n programs of k steps traced and compiled (compiled mode: generated, built or found built).
  long long compile(int k, long long n) {
    for (auto& [model, adam] : fresh_)
      GraphTrainer(mode_, *model, *adam, Shape{batch_, 1}, Shape{batch_, 1}, k);
    fresh_.clear();
    return n;
  }

  void work_one() override {
    if (set_up_ == ks_.size() && !compiles_done()) {
      compiles_->turn();
    } else if (set_up_ < ks_.size()) {
      Unrolled& u = *ks_[set_up_++];
      start(u);
      const Stopwatch first;
      call(u, false);
      u.first_call_ms = first.elapsed_ms();
      u.total_ms += u.first_call_ms;
      const Stopwatch rest;
      while (u.done_steps % batches_ != 0 && configured(u)) call(u, false);
      if (u.done_steps > u.k) u.rest_us = rest.elapsed_ms() * 1000.0 / (u.done_steps - u.k);
      u.total_ms += rest.elapsed_ms();
    } else {
      rounds_->turn();
    }
    if (finished()) record_series();
  }

  // Whole epochs, `steps` steps of them (fewer at the end of the configured ones); returns the
  // steps run. After the configured epochs their losses are not recorded.
  long long run_epochs(Unrolled& u, long long steps) {
    const bool extra = finished();
    long long& at = extra ? u.extra_steps : u.done_steps;
    const long long from = at;
    const Stopwatch w;
    const auto runs = [&] { return !u.diverged_at && (extra || u.done_steps < steps_); };
    for (long long e = 0; e < steps / batches_ && runs(); ++e) {
      const long long end = at + batches_;
      while (at < end && !u.diverged_at) call(u, extra);
    }
    if (!extra) u.total_ms += w.elapsed_ms();
    return at - from;
  }

  double fraction() const override {
    double done = 0.0;
    for (const auto& u : ks_) done += static_cast<double>(u->diverged_at ? steps_ : u->done_steps);
    return done / (static_cast<double>(ks_.size()) * static_cast<double>(steps_));
  }

  json progress_message() const override {
    return msg("unr.progress", {{"k", ks_[set_up_ < ks_.size() ? set_up_ : rounds_->side()]->k}});
  }

  json runs() const override {
    json runs = json::array();
    for (const auto& u : ks_) runs.push_back(run_json(*u));
    return runs;
  }

  // A k's steady step: its paired rounds; without any (one epoch, or a divergence before the
  // second), the rest of its first epoch, else its first call, one-time costs included.
  static double steady_us(const Unrolled& u) {
    if (!u.rounds_us().empty()) return median(u.rounds_us());
    if (u.rest_us) return *u.rest_us;
    return u.first_call_ms * 1000.0 / static_cast<double>(u.k);
  }
  static Measure step_of(const Unrolled& u) {
    return paired_side("k = " + std::to_string(u.k), u.rounds_us());
  }
  static bool paired(const Unrolled& u) { return !u.rounds_us().empty(); }
  // A k whose only timing is its first call (k = all over one epoch, or a divergence in the first
  // call): that call, one-time costs included.
  static bool one_call(const Unrolled& u) { return !paired(u) && !u.rest_us; }

  const Unrolled& first() const { return *ks_.front(); }
  const Unrolled& last() const { return *ks_.back(); }

  static std::string step_id(const Unrolled& u) {
    return "step_k" + std::to_string(u.k) + "_vs_k1";
  }

  // Each k > 1 with paired rounds against k = 1 (per step), and the compile of the largest k
  // against k = 1's.
  std::vector<Comparison> comparisons() const override {
    std::vector<Comparison> c;
    if (ks_.size() < 2) return c;  // one batch per epoch: k = 1 is already k = all
    for (std::size_t i = 1; i < ks_.size(); ++i)
      if (paired(*ks_[i]) && paired(first()))
        c.push_back(compare(step_id(*ks_[i]), step_of(*ks_[i]), step_of(first()), Quantity::Time,
                            "µs per step"));
    const auto ms = [&](std::size_t side) {
      return paired_side(compiles_->name(side), in_ms(compiles_->rounds_us(side)));
    };
    c.push_back(
        compare("compile_all_vs_k1", ms(1), ms(0), Quantity::Time, "ms to trace + compile"));
    return c;
  }

  // Where unrolling stopped paying on this run: the smallest k (with paired rounds) whose step is
  // not slower than the fastest k's. A k whose comparison with the fastest is inconclusive stops
  // the search undecided: a larger k may be needed or not. `against` is that comparison (the
  // fastest against itself when it is the one).
  struct Enough {
    const Unrolled* k = nullptr;  // nullptr: no k has paired rounds
    bool decided = false;
    std::optional<Comparison> against;
  };
  Enough enough_k() const {
    const Unrolled* best = nullptr;
    for (const auto& u : ks_)
      if (paired(*u) && (!best || median(u->rounds_us()) < median(best->rounds_us())))
        best = u.get();
    if (!best) return {};
    for (const auto& u : ks_) {
      if (!paired(*u)) continue;
      if (u.get() == best)  // against itself: a ratio of 1, so `c` has one shape on every run
        return {best, true,
                compare("", step_of(*best), step_of(*best), Quantity::Time, "µs per step")};
      Comparison c = compare("", step_of(*u), step_of(*best), Quantity::Time, "µs per step");
      if (c.verdict == Verdict::B) continue;  // measurably slower than the fastest
      return {u.get(), c.verdict != Verdict::Inconclusive, std::move(c)};
    }
    return {best, true, compare("", step_of(*best), step_of(*best), Quantity::Time, "µs per step")};
  }

  json answer() const {
    const Enough enough = enough_k();
    const json compile = msg("unr.a_compile", {{"a", first().setup_ms}, {"b", last().setup_ms}});
    const Unrolled& k = enough.k ? *enough.k : first();
    const char* key = !enough.k         ? "unr.a_no_rounds"
                      : !enough.decided ? "unr.a_unsure"
                      : &k == &first()  ? "unr.a_none"
                                        : "unr.a_enough";
    // The same arguments either way: the structure of a result never depends on a timing.
    return msg(key, {{"k", k.k},
                     {"us", steady_us(k)},
                     {"us1", steady_us(first())},
                     {"c", enough.against ? enough.against->message() : json("")},
                     {"compile", compile}});
  }

  // Compiled mode: how much of the trace + compile of k = 1 and of k = all went to generating and
  // building the code (codegen_ms, part of compile_ms); traced mode: nothing.
  json codegen_clause() const {
    if (mode_ != Mode::Compiled) return "";
    const json a_info = first().trainer->setup_info(), b_info = last().trainer->setup_info();
    const double a = a_info["codegen_ms"].get<double>(), b = b_info["codegen_ms"].get<double>();
    const double total = last().setup_ms;
    // Whether a compiler ran, from the engine (GraphTrainer::code_cached), never assumed.
    const bool ca = a_info.value("code_cached", false), cb = b_info.value("code_cached", false);
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
  double first_call_of_all_ms() const { return last().setup_ms + last().first_call_ms; }

  // Beside the quoted 7.4 s for 100 batches (74 ms a batch): compiled mode's cost per step of
  // code, from this run, against it.
  json why_quoted() const {
    if (mode_ != Mode::Compiled) return msg("unr.q_why");
    const double per = first_call_of_all_ms() / last().k;
    const bool cached = last().trainer->setup_info().value("code_cached", false);
    if (per > 74.0)
      return msg(cached ? "unr.q_why_compiled_more_cached" : "unr.q_why_compiled_more",
                 {{"per", per}});
    return msg("unr.q_why_compiled_less",
               {{"per", per}, {"built", msg(cached ? "unr.q_built_cached" : "unr.q_built_now")}});
  }

  json diverged() const {
    json d = json::array();
    for (const auto& u : ks_)
      if (u->diverged_at)
        d.push_back(msg("unr.diverged",
                        {{"k", u->k}, {"at", *u->diverged_at}, {"loss", u->last_finite_loss}}));
    return d;
  }

  // With one batch per epoch the only program is k = 1 = all: there is nothing to compare.
  json summary_of_one_k() const {
    const Unrolled& u = first();
    json s = object({{"comparisons", json::array()}});
    summary_messages(
        s,
        json::array(
            {card(msg("unr.h_one"), msg("unr.us", {{"us", steady_us(u)}}), msg("unr.h_one_note"))}),
        msg("unr.r_one", {{"us", steady_us(u)}, {"ms", u.setup_ms}, {"diverged", diverged()}}),
        msg("unr.a_one"));
    return s;
  }

  json step_headline_value(const std::vector<Comparison>& cmp) const {
    if (one_call(last())) return msg("unr.h_step_one_call");
    const Comparison* c = find_comparison(cmp, step_id(last()));
    return c ? c->short_message() : msg("unr.h_step_no_rounds");
  }

  json summary() const override {
    if (ks_.size() < 2) return summary_of_one_k();
    json s;
    const std::vector<Comparison> cmp = comparisons();
    s["comparisons"] = comparisons_json(cmp);
    const json f_info = first().trainer->setup_info(), l_info = last().trainer->setup_info();
    const json headline =
        json::array({card(msg("unr.h_compile"),
                          msg("unr.ms_to_ms", {{"a", first().setup_ms}, {"b", last().setup_ms}}),
                          msg("unr.h_compile_note", {{"k", last().k}})),
                     card(msg("unr.h_step"), step_headline_value(cmp),
                          msg(one_call(last()) ? "unr.us_to_us_one_call" : "unr.us_to_us",
                              object({{"a", steady_us(first())}, {"b", steady_us(last())}}))),
                     card(msg("unr.h_size"),
                          msg("unr.h_size_value",
                              {{"a", f_info["instructions"]}, {"b", l_info["instructions"]}}),
                          msg("unr.h_size_note", {{"a", f_info["arena_bytes"]},
                                                  {"b", l_info["arena_bytes"]},
                                                  {"ops", f_info["nodes_before_fusion"]},
                                                  {"ins", f_info["nodes_after_fusion"]}}))});
    json said = json::array();  // every step comparison (the paired ones: not compile time)
    for (const Comparison& c : paired_only(cmp)) said.push_back(c.message());
    for (const auto& u : ks_)
      if (one_call(*u))
        said.push_back(msg("unr.k_one_call", {{"k", u->k}, {"us", steady_us(*u)}}));
      else if (!paired(*u))
        said.push_back(msg("unr.k_no_rounds", {{"k", u->k}, {"us", steady_us(*u)}}));
    const json per_k = separated(said, "sep.semicolon");
    const json reading =
        msg("unr.reading",
            {{"k", last().k},
             {"f", l_info["instructions"].get<double>() / f_info["instructions"].get<double>()},
             {"ms", last().setup_ms},
             {"per_k", per_k},
             {"diverged", diverged()},
             {"codegen", codegen_clause()}});
    const json measured = msg("unr.q_measured", {{"ms", first_call_of_all_ms()},
                                                 {"n", last().k},
                                                 {"setup", last().setup_ms},
                                                 {"first", last().first_call_ms}});
    const json quoted = json::array({{{"label", msg("unr.q_label")},
                                      {"quoted", msg("unr.q_quoted")},
                                      {"measured", measured},
                                      {"why", why_quoted()}}});
    summary_messages(s, headline, reading, answer(), quoted);
    return s;
  }

  void start(Unrolled& u) {
    u.model = new_model();
    u.adam = std::make_unique<Adam>(params().number("lr"), u.model->parameters());
    const Stopwatch w;
    u.trainer = std::make_unique<GraphTrainer>(mode_, *u.model, *u.adam, Shape{batch_, 1},
                                               Shape{batch_, 1}, u.k);
    u.xs.assign(static_cast<std::size_t>(u.k), nullptr);
    u.ys.assign(u.xs.size(), nullptr);
    u.losses.assign(u.xs.size(), 0.0f);
    u.setup_ms = w.elapsed_ms();
  }

  // One call of k steps; while configured, its losses are checked (a NaN stops this k at its
  // first bad step); after them (extra) only timed.
  void call(Unrolled& u, bool extra) {
    long long& at = extra ? u.extra_steps : u.done_steps;
    const long long from = u.done_steps + u.extra_steps;
    for (int j = 0; j < u.k; ++j) {
      const long long b = (from + j) % batches_;
      u.xs[static_cast<std::size_t>(j)] = data_.x.data() + b * batch_;
      u.ys[static_cast<std::size_t>(j)] = data_.y.data() + b * batch_;
    }
    u.trainer->run(u.xs.data(), u.ys.data(), u.losses.data());
    if (!extra)
      for (int j = 0; j < u.k; ++j) {
        const float loss = u.losses[static_cast<std::size_t>(j)];
        if (!std::isfinite(loss)) {
          u.diverged_at = u.done_steps + j;
          break;
        }
        u.last_finite_loss = loss;
      }
    at += u.k;
  }

  // The configured epochs' compile and steady step per k, once they are done.
  void record_series() {
    for (const auto& u : ks_) {
      if (u->recorded) continue;
      u->recorded = true;
      compile_.add({static_cast<double>(u->k), u->setup_ms});
      step_.add({static_cast<double>(u->k), steady_us(*u), half_iqr(u->rounds_us())});
    }
  }

  json run_json(const Unrolled& u) const {
    json r = object({{"k", u.k},
                     {"setup_ms", u.setup_ms},
                     {"first_call_ms", u.first_call_ms},
                     {"steady_step_us", steady_us(u)},
                     {"steady_step_spread_us", half_iqr(u.rounds_us())},
                     {"steady_from_first_call", one_call(u)},
                     {"rounds", static_cast<long long>(u.rounds_us().size())},
                     {"total_ms", u.total_ms + u.setup_ms},
                     {"final_loss", u.diverged_at ? json(nullptr) : json(u.last_finite_loss)},
                     {"diverged_at", u.diverged_at ? json(*u.diverged_at) : json(nullptr)},
                     {"last_finite_loss", u.last_finite_loss}});
    json info = u.trainer->setup_info();
    // The code of k = 1 is one step's; a larger k's repeats it k times: shown once.
    if (u.k > 1) info.erase("generated_code");
    for (const auto& [key, value] : info.items()) r[key] = value;
    return r;
  }

  int n_, batch_, batches_;
  long long steps_;
  Mode mode_;        // traced or compiled
  LinearData data_;  // x and y ~ N(0, 1)
  std::vector<std::unique_ptr<Unrolled>> ks_;
  std::size_t set_up_ = 0;            // k's set up, with their first epoch
  PairedRounds* rounds_ = nullptr;    // the steady steps' paired rounds (a side per k)
  PairedRounds* compiles_ = nullptr;  // trace + compile, k = 1 against k = all
  std::vector<std::pair<std::unique_ptr<Mlp>, std::unique_ptr<Adam>>> fresh_;  // the next turn's
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
      integer("epochs", 20, 1, 1000),
      common::hidden(),
      common::adam_lr(),
      choice("mode", "traced", {"traced", "compiled"}),
      common::max_seconds(),
      common::band(),
      common::seed(),
  };
  e.plots = json::array({line_plot("compile", {"k", Scale::Log}, {"ms", Scale::Log}, {"compile"}),
                         line_plot("step", {"k", Scale::Log}, {"us"}, {"step"}, "", "us_spread")});
  e.quoted_sources = {"seed thread 000", "seed thread 000", "seed thread 000"};
  e.check = [](const Params& p) {
    common::check_batch_at_most_n(p.integer("batch"), p.integer("n"));
    const long long batches = p.integer("n") / p.integer("batch");
    if (batches > 5000) refuse("err.unroll_batches", {{"got", batches}});
    // NOTE: the C compiler's time grows with the code, k steps of it: on the 2-core development
    // machine cc -O3 took 0.7 s for k = 1 and 216 s for k = 100 (the default n and batch).
    if (p.choice("mode") == "compiled" && batches > kCompiledBatches)
      refuse("err.unroll_compiled_batches", {{"max", kCompiledBatches}, {"got", batches}});
  };
  e.estimate = [](const Params& p) {
    const double n = static_cast<double>(p.integer("n")),
                 batch = static_cast<double>(p.integer("batch"));
    const double hidden = static_cast<double>(p.integer("hidden")), batches = std::floor(n / batch);
    // Every k's program is alive at once (they take turns): one step's arena each (reused across
    // its steps) and, all k's together, sum(k) steps' instructions. Steps: every k trains `epochs`
    // epochs (at most 6 k's).
    const std::vector<int> ks = factors_of(static_cast<int>(batches));
    double unrolled_steps = 0.0;
    for (int k : ks) unrolled_steps += k + 1.0;
    const double step_bytes =
        batch * (hidden + 1.0) * 4.0 * kStepFloatsPerUnit + hidden * 4.0 * 64.0 + 64e3;
    return Estimate{
        2e6 + n * 4.0 * 3.0 + step_bytes * 2.0 * static_cast<double>(ks.size()) +
            unrolled_steps * (kBytesPerUnrolledStep + hidden * 32.0),
        static_cast<double>(ks.size()) * batches * static_cast<double>(p.integer("epochs")),
        "n, batch, hidden and epochs"};
  };
  e.small_config = {"n=1000", "batch=100", "epochs=2", "max_seconds=0"};
  e.golden_configs = {
      {}, {"n=2000", "batch=20", "epochs=2"}, {"n=1000", "batch=100", "hidden=4", "lr=0.9"}};
  e.start = start_run_of<UnrollRun>;
  return e;
}

}  // namespace looplab
