// retracing.cpp — seed thread 001: why did my traced function get slow?
//
// A scripted sequence of training calls through the trace cache: full batches, the last partial
// batch of each epoch (n not divisible by the batch size), an epoch with a new batch size, and an
// evaluation call (a new value of the static argument `training`). Each call is either replayed
// or traced, and every trace says why. Two fixes can be switched on: drop_remainder (no partial
// batch) and relaxed_batch (one program for every batch size). mode = compiled generates every
// traced program as code and builds it: a retrace recompiles. Generated code has fixed loop
// lengths, so relaxed_batch is for traced mode only (as XLA compiles per concrete shape).
//
// Timing: a call that traces takes milliseconds and is timed alone. A replay takes microseconds,
// a few ticks of a browser clock (5 µs), so replays are never timed one by one: consecutive
// replays are timed together in chunks of at least chunk_ms (a chunk ends early where the next
// call would trace), and each chunk gives one time per replay. A replay with no replayed neighbour
// is run but not timed. After the script a trace and replays take turns in paired rounds
// (rounds.hpp): a trace on a fresh cache against replays of the full batch on a cache of their
// own, so the verdict "a trace costs N× a replay" has its interval
// (paired.hpp); the hints name only fixes that are off and whose cause was seen.
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
#include "looplab/train/linear.hpp"
#include "looplab/train/trace_cache.hpp"

namespace looplab {
namespace {

class RetracingRun final : public ChunkedRun {
 public:
  explicit RetracingRun(const Params& p)
      : ChunkedRun("retracing", p),
        n_(static_cast<int>(p.integer("n"))),
        batch_(static_cast<int>(p.integer("batch"))),
        second_(static_cast<int>(p.integer("second_batch"))),
        chunk_ms_(p.number("chunk_ms")),
        mode_(parse_mode(p.choice("mode"))),
        data_(normal_data(n_, static_cast<std::uint64_t>(p.integer("seed")))) {
    warm_up_engines();  // untimed: see graph_trainer.hpp
    Rng init(static_cast<std::uint64_t>(p.integer("seed")) + 1);
    model_ = std::make_unique<Mlp>(1, std::vector<int>{static_cast<int>(p.integer("hidden"))}, 1,
                                   Activation::Tanh, init);
    adam_ = std::make_unique<Adam>(p.number("lr"), model_->parameters());
    options_ = TraceCacheOptions{1, p.flag("relaxed_batch"), std::max(batch_, second_), mode_};
    cache_ = std::make_unique<TraceCache>(*model_, *adam_, options_);
    for (long long e = 0; e < p.integer("epochs"); ++e) plan_epoch(batch_);
    if (second_ != batch_) plan_epoch(second_);
    if (p.flag("evaluate")) plan_.push_back({0, std::min(batch_, n_), false, false});
    ms_.assign(plan_.size(), std::nullopt);
    const auto running = [this] { return !diverged_at_; };
    rounds_ =
        &add_rounds({{"a replay", running, [this](long long n) { return replays(n); },
                      [this](long long) { replay_cache(); }},
                     {"a training trace", running, [this](long long n) { return traces(n); }}},
                    {chunk_ms_, 1, false});
  }

  // The script, then kMinDecidingRounds paired rounds of a trace against replays.
  bool finished() const override {
    return diverged_at_ || (next_ >= plan_.size() && !rounds_->mid_round() &&
                            rounds_->rounds() >= static_cast<std::size_t>(kMinDecidingRounds));
  }

 private:
  struct Call {
    long long offset;  // first row
    int rows;
    bool training;
    bool partial;  // the short last batch of an epoch
  };
  struct Chunk {  // consecutive replays timed together
    std::size_t first = 0, calls = 0;
    double ms = 0.0;
    double ms_per_replay() const { return ms / static_cast<double>(calls); }
  };

  bool next_traces() const {
    const Call& c = plan_[next_];
    return cache_->would_trace(c.rows, c.training);
  }

  // Runs the next call; false when its loss is not finite (the script stops there).
  bool call_next() {
    const Call& c = plan_[next_];
    const float loss =
        cache_->call(data_.x.data() + c.offset, data_.y.data() + c.offset, c.rows, c.training);
    ++next_;
    if (std::isfinite(loss)) {
      last_finite_loss_ = loss;
      return true;
    }
    diverged_at_ = next_ - 1;
    return false;
  }

  // A call that traces, timed alone; or a chunk of consecutive replays; after the script, a turn
  // of the paired rounds.
  void work_one() override {
    if (next_ >= plan_.size()) {
      rounds_->turn();
      return;
    }
    const std::size_t first = next_;
    if (next_traces()) {
      const Stopwatch w;
      call_next();
      ms_[first] = w.elapsed_ms();
      traced_total_ms_ += *ms_[first];
      traced_.add({static_cast<double>(first), *ms_[first]});
      return;
    }
    // Up to the next trace, at least two replays, until chunk_ms has passed; a last replay before
    // the next trace joins the chunk rather than stay alone. Which calls are timed alone thus
    // depends on the script only, never on the clock.
    const Stopwatch w;
    while (next_ < plan_.size() && !next_traces() &&
           (next_ - first < 2 || w.elapsed_ms() < chunk_ms_ || replays_ahead(next_) < 2))
      if (!call_next()) break;
    const double ms = w.elapsed_ms();
    replay_total_ms_ += ms;
    const std::size_t calls = next_ - first;
    if (calls < 2) {  // one call alone would read a few clock ticks, or 0
      untimed_replays_ += static_cast<long long>(calls);
      return;
    }
    chunks_.push_back({first, calls, ms});
    for (std::size_t i = first; i < next_; ++i) {
      ms_[i] = chunks_.back().ms_per_replay();
      replayed_.add({static_cast<double>(i), *ms_[i]});  // each replay at its chunk's time
    }
  }

  // The paired rounds' sides: replays of the full training batch on a cache of their own (traced
  // once, before the first turn, untimed; the script's cache keeps the script's calls alone), and
  // traces of it on fresh caches, one per trace (made and dropped in the turn: a cache is two
  // references until it traces, and one at a time bounds the memory), each trace then running its
  // step. The model trains on: these steps' losses are not recorded.
  void replay_cache() {
    if (replaying_) return;
    replaying_ = std::make_unique<TraceCache>(*model_, *adam_, options_);
    replays(1);
  }
  long long replays(long long n) {
    const int rows = std::min(batch_, n_);
    for (long long i = 0; i < n; ++i) replaying_->call(data_.x.data(), data_.y.data(), rows, true);
    return n;
  }
  long long traces(long long n) {
    const int rows = std::min(batch_, n_);
    for (long long i = 0; i < n; ++i)
      TraceCache(*model_, *adam_, options_).call(data_.x.data(), data_.y.data(), rows, true);
    return n;
  }

  // Consecutive replays from call i on, counted up to 2 (no trace can happen among replays, so
  // the cache as it is now decides).
  std::size_t replays_ahead(std::size_t i) const {
    std::size_t k = 0;
    for (; k < 2 && i + k < plan_.size(); ++k) {
      const Call& c = plan_[i + k];
      if (cache_->would_trace(c.rows, c.training)) break;
    }
    return k;
  }

  double fraction() const override {
    return static_cast<double>(next_) / static_cast<double>(plan_.size());
  }

  json progress_message() const override {
    return msg("rt.progress", {{"i", next_}, {"n", plan_.size()}});
  }

  // The calls that traced, with their reasons (compiled mode: and what generating the code took).
  json runs() const override {
    json runs = json::array();
    for (const TraceEvent& e : cache_->events())
      if (e.traced) {
        runs.push_back(object({{"call", e.call},
                               {"rows", e.rows},
                               {"training", e.training},
                               {"reason", reason_message(e)},
                               {"ms", ms_at(e.call)}}));
        if (mode_ == Mode::Compiled) {
          runs.back()["codegen_ms"] = e.codegen_ms;
          runs.back()["code_cached"] = e.code_cached;
        }
      }
    return runs;
  }

  json ms_at(long long call) const {
    const auto& ms = ms_[static_cast<std::size_t>(call)];
    return ms ? json(*ms) : json(nullptr);
  }

  // Every call (result_contract.hpp: retracing's extra table "calls").
  json tables() const override {
    json calls = json::array();
    for (const TraceEvent& e : cache_->events())
      calls.push_back(object({{"call", e.call},
                              {"rows", e.rows},
                              {"training", e.training},
                              {"traced", e.traced},
                              {"reason", e.traced ? reason_message(e) : json(nullptr)},
                              {"ms", ms_at(e.call)}}));
    return object({{"calls", calls}});
  }

  // What this run saw, for the answer and the hints.
  struct Seen {
    int traces = 0, shape = 0, partial = 0, second = 0, static_arg = 0;
    json reasons = json::array(), partial_shapes = json::array();  // messages
  };
  // The trace cache's reason as a message (its English is reason_text()'s, trace_cache.cpp).
  static json reason_message(const TraceEvent& e) {
    json parts = json::array();
    if (e.reason == TraceReason::FirstCall)
      parts.push_back(msg("rt.reason_first"));
    else if (e.reason == TraceReason::NewBatchShape)
      parts.push_back(msg("rt.reason_shape", {{"rows", e.rows}}));
    else
      parts.push_back(msg("rt.reason_static", {{"v", e.training ? "true" : "false"}}));
    if (e.relaxed_rows > 0) parts.push_back(msg("rt.reason_relaxed", {{"rows", e.relaxed_rows}}));
    return msg("seq", {{"items", parts}});
  }
  Seen seen() const {
    Seen s;
    for (const TraceEvent& e : cache_->events()) {
      if (!e.traced) continue;
      ++s.traces;
      s.reasons.push_back(reason_message(e));
      if (e.reason == TraceReason::NewStaticArgument) ++s.static_arg;
      if (e.reason != TraceReason::NewBatchShape) continue;
      ++s.shape;
      if (plan_[static_cast<std::size_t>(e.call)].partial) {
        ++s.partial;
        s.partial_shapes.push_back(msg("rt.shape", {{"rows", e.rows}}));
      } else if (e.rows == second_ && second_ != batch_) {
        ++s.second;
      }
    }
    return s;
  }

  // Only fixes that are off and whose cause this run saw.
  json hints(const Seen& s) const {
    json h = json::array();
    if (s.partial > 0 && !params().flag("drop_remainder"))
      h.push_back(msg(
          "rt.hint_drop",
          {{"what", msg(s.partial == 1 ? "rt.the_trace" : "rt.the_k_traces", {{"k", s.partial}})},
           {"shapes", joined(s.partial_shapes, "sep.comma")}}));
    if (s.shape > 0 && !params().flag("relaxed_batch"))
      h.push_back(msg(mode_ == Mode::Compiled ? "rt.hint_relaxed_compiled" : "rt.hint_relaxed",
                      {{"traces", plural("rt.traces", s.shape)}}));
    if (s.second > 0) h.push_back(msg("rt.hint_second", {{"rows", second_}}));
    if (s.static_arg > 0) h.push_back(msg("rt.hint_static"));
    if (s.shape == 0) h.push_back(msg("rt.hint_none"));
    return msg("seq", {{"items", h}});
  }

  // The calls that traced; training_only: not the evaluation step, a smaller forward-only program
  // that no replay here runs.
  std::vector<double> traced_ms(bool training_only = false) const {
    std::vector<double> v;
    for (const TraceEvent& e : cache_->events())
      if (e.traced && (e.training || !training_only) && ms_at(e.call).is_number())
        v.push_back(ms_at(e.call).get<double>());
    return v;
  }
  std::vector<double> replay_ms() const {
    std::vector<double> v;
    for (const Chunk& c : chunks_) v.push_back(c.ms_per_replay());
    return v;
  }

  // A replay of the full training batch against a trace of it, from the paired rounds (ms per
  // call); unset when the script diverged before any round.
  std::optional<Comparison> trace_vs_replay() const {
    if (rounds_->rounds() == 0) return std::nullopt;
    const auto ms = [&](std::size_t side) {
      return paired_side(rounds_->name(side), in_ms(rounds_->rounds_us(side)));
    };
    return compare("trace_vs_replay", ms(0), ms(1), Quantity::Time, "ms per call");
  }
  std::vector<Comparison> comparisons() const override {
    std::optional<Comparison> c = trace_vs_replay();
    return c ? std::vector<Comparison>{*c} : std::vector<Comparison>{};
  }

  // What traced is counted (the same on every run of a config); what it cost is measured. Every
  // branch takes the same arguments.
  json answer(const Seen& s, const std::optional<Comparison>& c, double share) const {
    const long long calls = static_cast<long long>(cache_->events().size());
    const json reasons = joined(s.reasons, "sep.semicolon");
    const json what = msg(s.traces <= 1  ? "rt.what_once"
                          : s.shape == 0 ? "rt.what_needed"
                                         : "rt.what_slow",
                          {{"others", calls - 1},
                           {"reasons", reasons},
                           {"traces", s.traces},
                           {"calls", calls},
                           {"shape", s.shape}});
    const char* key = !c                         ? "rt.a_no_replay"
                      : c->verdict != Verdict::A ? "rt.a_not_slower"
                                                 : "rt.a_slower";
    return msg(key, {{"what", what},
                     {"c", c ? c->message() : json("")},
                     {"factor", c ? c->factor() : 0.0},
                     {"b", c ? c->b.value : 0.0},
                     {"a_us", c ? c->a.value * 1000.0 : 0.0},
                     {"share", share},
                     {"end", msg(s.traces <= 1 ? "rt.a_paid_once" : "rt.a_end")}});
  }

  // Compiled mode: the part of the calls that traced spent generating and building code.
  json codegen_clause() const {
    if (mode_ != Mode::Compiled) return "";
    double codegen = 0.0;
    long long programs = 0, cached = 0;
    for (const TraceEvent& e : cache_->events())
      if (e.traced) codegen += e.codegen_ms, ++programs, cached += e.code_cached ? 1 : 0;
    // Whether a compiler ran, per program, from the engine (TraceEvent::code_cached).
    const json cache = cached == 0 ? msg("rt.r_built_all")
                       : cached == programs
                           ? msg("rt.r_cached_all")
                           : msg("rt.r_cached_some",
                                 {{"built", programs - cached}, {"n", cached}, {"of", programs}});
    return msg("rt.r_codegen",
               {{"codegen", codegen},
                {"ms", traced_total_ms_},
                {"pct", traced_total_ms_ > 0.0 ? 100.0 * codegen / traced_total_ms_ : 0.0},
                {"cache", cache}});
  }

  json summary() const override {
    const std::vector<double> t = traced_ms();
    const Seen s = seen();
    const std::optional<Comparison> c = trace_vs_replay();
    const std::vector<double> r = replay_ms();
    const double total = traced_total_ms_ + replay_total_ms_;
    const double share = total > 0.0 ? 100.0 * traced_total_ms_ / total : 0.0;
    const long long calls = static_cast<long long>(cache_->events().size());
    json out;
    out["traces"] = cache_->traces();
    out["diverged_at"] = diverged_at_ ? json(*diverged_at_) : json(nullptr);
    out["last_finite_loss"] = last_finite_loss_;
    out["calls"] = calls;
    out["trace_ms"] = traced_total_ms_;
    out["replay_ms"] = replay_total_ms_;
    out["tracing_share_pct"] = share;
    out["replay_each_ms"] = r.empty() ? json(nullptr) : json(median(r));
    out["replay_spread_ms"] = r.empty() ? json(nullptr) : json(half_iqr(r));
    out["chunks"] = chunks_.size();  // of replays
    out["untimed_replays"] = untimed_replays_;
    out["comparisons"] = c ? comparisons_json({*c}) : json::array();
    const json reasons = joined(s.reasons, "sep.semicolon");
    const json chunks = plural("rt.chunks", static_cast<long long>(chunks_.size()));
    json headline = json::array({card(
        msg("rt.h_traces"),
        msg("rt.h_traces_value", {{"traces", cache_->traces()}, {"calls", calls}}), reasons)});
    if (c)
      headline.push_back(card(msg("rt.h_cmp"), c->short_message(),
                              msg("rt.h_cmp_note", {{"c", c->message()}, {"chunks", chunks}})));
    headline.push_back(card(msg("rt.h_time"), msg("rt.h_time_value", {{"ms", traced_total_ms_}}),
                            msg("rt.h_time_note", {{"share", share}, {"total", total}})));
    const json per_call =
        c ? msg("rt.r_per_call",
                {{"c", c->message()},
                 {"chunks", chunks},
                 {"untimed",
                  untimed_replays_ > 0
                      ? msg("rt.r_untimed", {{"replays", plural("rt.replays", untimed_replays_)}})
                      : json("")}})
          : msg("rt.r_no_replay");
    const json range = t.empty()
                           ? json("")
                           : msg("rt.r_range", {{"lo", *std::min_element(t.begin(), t.end())},
                                                {"hi", *std::max_element(t.begin(), t.end())}});
    const json diverged =
        diverged_at_ ? msg("rt.r_diverged", {{"at", *diverged_at_}, {"loss", last_finite_loss_}})
                     : json("");
    const json reading = msg("rt.reading", {{"traces", cache_->traces()},
                                            {"calls", calls},
                                            {"reasons", reasons},
                                            {"per_call", per_call},
                                            {"range", range},
                                            {"share", share},
                                            {"hints", hints(s)},
                                            {"diverged", diverged},
                                            {"codegen", codegen_clause()}});
    json quoted = json::array();
    if (!t.empty())
      quoted.push_back(
          object({{"label", msg("rt.q_label")},
                  {"quoted", msg("rt.q_quoted")},
                  {"measured", msg("rt.q_measured", {{"traces", s.traces},
                                                     {"calls", calls},
                                                     {"shape", s.shape},
                                                     {"static", s.static_arg},
                                                     {"ms", median(t)}})},
                  {"why", msg("rt.q_why", {{"hidden", params().integer("hidden")}})}}));
    summary_messages(out, headline, reading, answer(s, c, share), quoted);
    return out;
  }

  void plan_epoch(int batch) {
    for (int start = 0; start < n_; start += batch) {
      const int rows = std::min(batch, n_ - start);
      if (rows < batch && params().flag("drop_remainder")) break;
      plan_.push_back({start, rows, true, rows < batch});
    }
  }

  int n_, batch_, second_;
  double chunk_ms_;
  Mode mode_;        // traced or compiled
  LinearData data_;  // x and y ~ N(0, 1)
  std::unique_ptr<Mlp> model_;
  std::unique_ptr<Adam> adam_;
  TraceCacheOptions options_;
  std::unique_ptr<TraceCache> cache_;
  std::unique_ptr<TraceCache> replaying_;  // the replays' own
  PairedRounds* rounds_ = nullptr;         // a trace against replays, after the script
  std::vector<Call> plan_;
  // Per call: a trace timed alone, a replay its chunk's ms per replay, unset for a lone replay.
  std::vector<std::optional<double>> ms_;
  std::vector<Chunk> chunks_;
  double traced_total_ms_ = 0.0, replay_total_ms_ = 0.0;
  long long untimed_replays_ = 0;
  std::size_t next_ = 0;
  std::optional<std::size_t> diverged_at_;  // index of the first call whose loss was NaN or Inf
  float last_finite_loss_ = 0.0f;
  Series& replayed_ = add_series("replayed", {"call", "ms"});
  Series& traced_ = add_series("traced", {"call", "ms"});
};

}  // namespace

Experiment make_retracing_experiment() {
  Experiment e;
  e.id = "retracing";
  e.params = {
      common::samples(1050, 2),
      common::batch(),
      integer("epochs", 2, 1, 100),
      integer("second_batch", 64, 1, 10000),
      boolean("evaluate", true),
      boolean("drop_remainder", false),
      boolean("relaxed_batch", false),
      choice("mode", "traced", {"traced", "compiled"}),
      common::hidden(),
      common::adam_lr(),
      common::chunk_ms(0.2),
      common::max_seconds(),
      common::band(),
      common::seed(),
  };
  e.plots = json::array(
      {line_plot("calls", {"call"}, {"ms", Scale::Log}, {"replayed", "traced"}, "points")});
  e.quoted_sources = {"seed thread 001"};
  e.check = [](const Params& p) {
    common::check_batch_at_most_n(p.integer("batch"), p.integer("n"));
    if (static_cast<double>(p.integer("n")) /
            static_cast<double>(std::min(p.integer("batch"), p.integer("second_batch"))) *
            static_cast<double>(p.integer("epochs") + 1) >
        200000.0)
      refuse("err.calls_limit");
    if (p.flag("relaxed_batch") && p.choice("mode") == "compiled") refuse("err.relaxed_compiled");
  };
  e.estimate = [](const Params& p) {
    const double n = static_cast<double>(p.integer("n")),
                 hidden = static_cast<double>(p.integer("hidden"));
    const double batch = static_cast<double>(p.integer("batch")),
                 second = static_cast<double>(p.integer("second_batch"));
    const double calls = std::ceil(n / batch) * static_cast<double>(p.integer("epochs")) +
                         std::ceil(n / second) + 1.0;
    // Up to four cached programs (full and partial batch, second batch, evaluation), each with one
    // step's buffers for the largest batch; one event per call.
    const double step_bytes =
        std::max(batch, second) * (hidden + 1.0) * 4.0 * 8.0 + hidden * 4.0 * 64.0 + 64e3;
    // Then kMinDecidingRounds paired rounds of a trace against replays, two caches more (the
    // replays' and the trace's), each turn at least chunk_ms.
    Estimate est{2e6 + n * 4.0 * 3.0 + 6.0 * step_bytes + calls * 256.0, calls,
                 "n, batch, second_batch, hidden and epochs"};
    est.timing_ms = 2.0 * kMinDecidingRounds * p.number("chunk_ms");
    return est;
  };
  e.small_config = {"n=300"};
  e.golden_configs = {{}, {"n=1000", "batch=64"}, {"n=300", "batch=100", "drop_remainder=true"}};
  e.start = start_run_of<RetracingRun>;
  return e;
}

}  // namespace looplab
