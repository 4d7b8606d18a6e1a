// retracing.cpp — seed thread 001: why did my traced function get slow?
//
// A scripted sequence of training calls through the trace cache: full batches, the last partial
// batch of each epoch (n not divisible by the batch size), an epoch with a new batch size, and an
// evaluation call (a new value of the static argument `training`). Each call is either replayed
// or traced, and every trace says why. Two fixes can be switched on: drop_remainder (no partial
// batch) and relaxed_batch (one program for every batch size).
#include <algorithm>
#include <cmath>
#include <optional>

#include "looplab/experiments/common_params.hpp"
#include "looplab/experiments/experiment.hpp"
#include "looplab/experiments/plots.hpp"
#include "looplab/experiments/results.hpp"
#include "looplab/experiments/run.hpp"
#include "looplab/train/linear.hpp"
#include "looplab/train/trace_cache.hpp"

namespace looplab {
namespace {

class RetracingRun final : public ChunkedRun {
 public:
  explicit RetracingRun(const Params& p)
      : ChunkedRun("retracing", p),
        n_(static_cast<int>(p.integer("n"))),
        data_(normal_data(n_, static_cast<std::uint64_t>(p.integer("seed")))) {
    warm_up_engines();  // untimed: see graph_trainer.hpp
    Rng init(static_cast<std::uint64_t>(p.integer("seed")) + 1);
    model_ = std::make_unique<Mlp>(1, std::vector<int>{static_cast<int>(p.integer("hidden"))}, 1,
                                   Activation::Tanh, init);
    adam_ = std::make_unique<Adam>(p.number("lr"), model_->parameters());
    const int batch = static_cast<int>(p.integer("batch")),
              second = static_cast<int>(p.integer("second_batch"));
    cache_ = std::make_unique<TraceCache>(
        *model_, *adam_, TraceCacheOptions{1, p.flag("relaxed_batch"), std::max(batch, second)});
    for (long long e = 0; e < p.integer("epochs"); ++e) plan_epoch(batch);
    if (second != batch) plan_epoch(second);
    if (p.flag("evaluate")) plan_.push_back({0, std::min(batch, n_), false});
  }

  bool done() const override { return next_ >= plan_.size() || diverged_at_; }

 private:
  // One call of the script, replayed or traced.
  void work_one() override {
    const Call& c = plan_[next_++];
    const float loss =
        cache_->call(data_.x.data() + c.offset, data_.y.data() + c.offset, c.rows, c.training);
    if (std::isfinite(loss))
      last_finite_loss_ = loss;
    else
      diverged_at_ = next_ - 1;  // the script stops at the first NaN/Inf loss
    const TraceEvent& e = cache_->events().back();
    (e.traced ? traced_ : replayed_).add({static_cast<double>(e.call), e.ms});
  }

  double fraction() const override {
    return static_cast<double>(next_) / static_cast<double>(plan_.size());
  }

  std::string message() const override {
    return "call " + std::to_string(next_) + " of " + std::to_string(plan_.size());
  }

  // The calls that traced, with their reasons.
  json runs() const override {
    json runs = json::array();
    for (const TraceEvent& e : cache_->events())
      if (e.traced)
        runs.push_back({{"call", e.call},
                        {"rows", e.rows},
                        {"training", e.training},
                        {"reason", e.reason},
                        {"ms", e.ms}});
    return runs;
  }

  // Every call (result_contract.hpp: retracing's extra table "calls").
  json tables() const override {
    json calls = json::array();
    for (const TraceEvent& e : cache_->events())
      calls.push_back({{"call", e.call},
                       {"rows", e.rows},
                       {"training", e.training},
                       {"traced", e.traced},
                       {"reason", e.traced ? json(e.reason) : json(nullptr)},
                       {"ms", e.ms}});
    return {{"calls", calls}};
  }

  json summary() const override {
    double trace_ms = 0.0, replay_ms = 0.0;
    int replays = 0;
    std::string reasons;
    for (const TraceEvent& e : cache_->events()) {
      if (e.traced) {
        trace_ms += e.ms;
        reasons += (reasons.empty() ? "" : "; ") + e.reason;
      } else {
        replay_ms += e.ms;
        ++replays;
      }
    }
    const double replay_each = replays ? replay_ms / replays : 0.0;
    json s;
    s["traces"] = cache_->traces();
    s["diverged_at"] = diverged_at_ ? json(*diverged_at_) : json(nullptr);
    s["last_finite_loss"] = last_finite_loss_;
    s["calls"] = cache_->events().size();
    s["trace_ms"] = trace_ms;
    s["replay_each_ms"] = replay_each;
    s["headline"] = json::array(
        {{{"label", "Traces"},
          {"value", std::to_string(cache_->traces()) + " of " +
                        std::to_string(cache_->events().size()) + " calls"},
          {"note", reasons}},
         {{"label", "Time in calls that traced"},
          {"value", format_sig(trace_ms, 3) + " ms"},
          {"note", "a replayed call took " + format_sig(replay_each * 1000.0, 3) + " µs"}}});
    s["reading"] = std::to_string(cache_->traces()) + " of " +
                   std::to_string(cache_->events().size()) + " calls traced a new program (" +
                   reasons + "); each cost " +
                   format_sig(trace_ms / std::max(1, cache_->traces()), 3) + " ms against " +
                   format_sig(replay_each * 1000.0, 3) + " µs for a replay." +
                   (params().flag("relaxed_batch") ? "" : " Try relaxed_batch or drop_remainder.") +
                   (diverged_at_ ? " The loss diverged at call " + std::to_string(*diverged_at_) +
                                       " (last finite loss " + format_sig(last_finite_loss_, 4) +
                                       "); the script stopped there."
                                 : "");
    return s;
  }

  struct Call {
    long long offset;  // first row
    int rows;
    bool training;
  };

  void plan_epoch(int batch) {
    for (int start = 0; start < n_; start += batch) {
      const int rows = std::min(batch, n_ - start);
      if (rows < batch && params().flag("drop_remainder")) break;
      plan_.push_back({start, rows, true});
    }
  }

  int n_;
  LinearData data_;  // x and y ~ N(0, 1)
  std::unique_ptr<Mlp> model_;
  std::unique_ptr<Adam> adam_;
  std::unique_ptr<TraceCache> cache_;
  std::vector<Call> plan_;
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
  e.title = "Retracing";
  e.question = "Why did my traced function get slow?";
  e.explanation = {{"intro",
                    "A traced program is only valid for the input shapes and static arguments it "
                    "was traced with. Here the seed-000 "
                    "network trains through a trace cache: full batches, the last partial batch of "
                    "every epoch (n = 1050 is not a "
                    "multiple of 100), an epoch with a new batch size, and one evaluation call "
                    "(training = false)."},
                   {"try",
                    "Turn on drop_remainder (the partial batch goes) or relaxed_batch (one program "
                    "for every batch size), set "
                    "second_batch equal to batch, or turn off evaluate, and count the traces."},
                   {"mechanism",
                    "A call costs a replay (microseconds) when its signature — batch shape and "
                    "static arguments — is in the cache, "
                    "and a trace + compile (far more) when it is not. Varying shapes or "
                    "Python-level arguments multiply the traces."}};
  e.params = {
      common::samples(1050, 2, "number of samples"),
      common::batch("batch size of the first epochs"),
      integer("epochs", 2, 1, 100, "epochs with that batch size"),
      integer("second_batch", 64, 1, 10000, "batch size of one more epoch (equal to batch: none)"),
      boolean("evaluate", true, "end with an evaluation call: the static argument training=false"),
      boolean("drop_remainder", false, "drop the last partial batch of each epoch"),
      boolean("relaxed_batch", false,
              "one program for any batch size (shapes derived at run time)"),
      common::hidden(),
      common::adam_lr(),
      common::seed(),
  };
  e.plots =
      json::array({line_plot("calls", "Time of each call; traced calls stand out", {"call", "call"},
                             {"ms", "ms", Scale::Log}, {"replayed", "traced"}, "points")});
  e.quoted = json::array(
      {{{"label", "A traced function builds a new graph for every new input shape and dtype"},
        {"value", "retracing"},
        {"source", "seed thread 001"}}});
  e.check = [](const Params& p) {
    if (p.integer("batch") > p.integer("n"))
      throw ConfigError("batch: must be at most n (" + with_commas(p.integer("n")) + "), got " +
                        with_commas(p.integer("batch")));
    if (static_cast<double>(p.integer("n")) /
            static_cast<double>(std::min(p.integer("batch"), p.integer("second_batch"))) *
            static_cast<double>(p.integer("epochs") + 1) >
        200000.0)
      throw ConfigError(
          "epochs: the script would make more than 200,000 calls; use fewer epochs or larger "
          "batches");
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
    return Estimate{2e6 + n * 4.0 * 3.0 + 4.0 * step_bytes + calls * 256.0, calls,
                    "n, batch, second_batch, hidden and epochs"};
  };
  e.start = start_run_of<RetracingRun>;
  return e;
}

}  // namespace looplab
