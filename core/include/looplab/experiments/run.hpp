// looplab/experiments/run.hpp — one experiment run, advanced in chunks, and the run protocol that
// every experiment shares.
//
// A caller (the CLI, the wasm worker) drives every run the same way, so it can show progress and
// cancel between chunks:
//
//   while (!run->advance(50.0)) show(run->progress_json());   // chunks of ~50 ms of work
//   std::string result = run->result_json();
//
// Cancel = stop calling advance() and drop the object.
//
// An experiment writes only what is its own by deriving from ChunkedRun:
//
//   class CountRun final : public ChunkedRun {
//    public:
//     explicit CountRun(const Params& p) : ChunkedRun("count", p), total_(p.integer("steps")) {}
//     bool finished() const override { return step_ == total_; }
//
//    private:
//     void work_one() override {  // one step
//       ++step_;
//       loss_.add({double(step_), 1.0 / double(step_)});
//     }
//     double fraction() const override { return double(step_) / double(total_); }
//     json progress_message() const override { return msg("count.step", {{"step", step_}}); }
//     json runs() const override { return json::array({{{"steps", step_}}}); }
//     json summary() const override {  // keyed messages with the run's numbers (i18n.hpp)
//       return {{"headline", {{{"label", "Steps"}, {"value", with_commas(step_)}}}},
//               {"reading", "It counted."},
//               {"answer", "Counting took as many steps as asked for."},
//               {"comparisons", json::array()}};  // what a conclusion is computed from
//     }
//     long long step_ = 0, total_;
//     Series& loss_ = add_series("loss", {"step", "loss"});
//   };
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "looplab/base/clock.hpp"
#include "looplab/base/i18n.hpp"
#include "looplab/base/json.hpp"
#include "looplab/experiments/comparison.hpp"
#include "looplab/experiments/paired.hpp"
#include "looplab/experiments/params.hpp"
#include "looplab/experiments/results.hpp"
#include "looplab/experiments/rounds.hpp"

namespace looplab {

class ExperimentRun {
 public:
  virtual ~ExperimentRun() = default;
  // Does about budget_ms of work; returns true when the run is complete.
  virtual bool advance(double budget_ms) = 0;
  virtual bool done() const = 0;
  // {"done": bool, "fraction": 0..1, "message": "...", "series": {name: {column: [new values]}}}
  // Series hold only the points added since the previous progress_json() call.
  virtual std::string progress_json() = 0;
  // The full results JSON (valid once done() is true), as result_contract.hpp declares it:
  // {"experiment", "config", "environment", "series", "runs", "summary"}.
  virtual std::string result_json() const = 0;
  // What only a browser can measure (JavaScript calling the module per batch or step:
  // web/runtime/js-variants.js), given once the run is done and before result_json() is read;
  // the experiment makes them part of its runs, series and sentences. Experiments without such
  // variants ignore it. Throws std::invalid_argument or json::exception for a measurement missing
  // a field.
  virtual void add_measurements(const json& measured) { (void)measured; }
  // "Run longer": once done, takes more paired timing rounds (paired.hpp), so advance() works
  // again until every timing verdict is decided or `seconds` more have passed; the result then
  // has the narrower intervals. Returns false (and changes nothing) for a run without paired
  // timings.
  virtual bool extend(double seconds) {
    (void)seconds;
    return false;
  }
};

// The run protocol, written once: the budget loop, progress and the result envelope. A derived
// run supplies its unit of work (work_one: a chunk of iterations, one call, one epoch, one timed
// point), done(), how far it is and what it is doing, its runs and its summary, and registers its
// named series with add_series().
class ChunkedRun : public ExperimentRun {
 public:
  // Calls work_one() until done() or until budget_ms have passed, checked between units (a unit
  // that times inner chunks of its own may read budget_left_ms()). Always does at least one unit
  // when not done, so every call makes progress, even advance(0).
  bool advance(double budget_ms) final;
  // finished() and no extra timing rounds wanted.
  bool done() const final;
  bool extend(double seconds) final;
  // {"done", "fraction", "message", "series"}: fraction is fraction() clamped to [0, 0.99] until
  // done, then 1; message is progress_message() in English until done, then "done"; series holds
  // the points every registered series gained since the previous call (Series::take_new).
  std::string progress_json() final;
  // {"experiment", "config", "environment", "series", "runs", <tables>, "summary"}
  // (result_contract.hpp): config() plus "experiment", environment(), series(), runs(), each
  // entry of tables() as a top-level key of its own, summary().
  std::string result_json() const final;

 protected:
  // `experiment` is the id the result names; `params` the validated config.
  ChunkedRun(std::string experiment, const Params& params);

  // The run's own work is complete (the configured epochs, steps or points).
  virtual bool finished() const = 0;
  // One unit of work; called only while !finished().
  virtual void work_one() = 0;
  // How much of the run is done, 0..1 (progress only; need not be exact).
  virtual double fraction() const = 0;
  // What the run is doing now as a message (base/i18n.hpp), e.g. {"key": "std.progress", "args":
  // {"name": "raw x", "i": 1200}}, the progress event's "i18n" (progress only).
  virtual json progress_message() const = 0;
  // The result's "runs": one object per mode, variant, k, traced call or cell.
  virtual json runs() const = 0;
  // The result's "summary": {"headline": [{label, value, note}], "reading": "...", ...}.
  virtual json summary() const = 0;

  // The result's "config" before "experiment" is added: by default the validated values.
  virtual json config() const;
  // The result's "series": by default every registered series, in registration order.
  virtual json series() const;
  // Extra top-level tables {key: [records]}; only keys result_contract.hpp declares for this
  // experiment (kResultTables). None by default.
  virtual json tables() const;

  // A new named series, sent in progress and kept for the result. The reference stays valid for
  // the life of the run.
  Series& add_series(std::string name, std::vector<std::string> columns);

  const Params& params() const { return params_; }

  // Every comparison the run states (comparison.hpp), as its summary makes them: the base finds
  // among them the paired ones that its rounds decide. None by default.
  virtual std::vector<Comparison> comparisons() const { return {}; }
  // Which comparisons a set of paired rounds decides, by id.
  using Decides = std::function<bool(std::string_view id)>;
  // New paired rounds (rounds.hpp) whose order is drawn from the run's "seed" parameter (every
  // timed experiment has one, so the result's config records it). The run's own work takes their
  // turns (PairedRounds::turn) until finished(); then the run takes more of them while a paired
  // comparison they decide is open, within max_seconds, and "Run longer" takes more again: taking
  // paired rounds is what makes a run extendable. `visit`: counted rounds in a row before the
  // extra rounds move on to other open rounds (matrix's cells free their sessions between visits).
  // The reference stays valid for the life of the run.
  PairedRounds& add_rounds(std::vector<TimedSide> sides, TurnRule rule, Decides decides = {},
                           std::size_t visit = 1);
  // What is left of the current advance()'s budget in ms (negative once overspent).
  double budget_left_ms() const { return budget_ms_ - budget_.elapsed_ms(); }

 private:
  struct NamedSeries {
    std::string name;
    std::unique_ptr<Series> series;
  };
  std::string experiment_;
  Params params_;
  std::vector<NamedSeries> series_;
  struct TimedRounds {
    std::unique_ptr<PairedRounds> rounds;
    Decides decides;
    std::size_t visit = 1;
    bool exhausted = false;  // no side takes a turn any more
    bool left_open(const Comparison& c) const;
  };
  std::vector<TimedRounds> rounds_;
  std::size_t visiting_ = 0, visit_from_ = 0;  // the rounds taking extra turns, since which round
  // One turn of the extra rounds: the round under way, else the visited rounds while open and
  // their visit lasts, else the next open ones; false when none is open.
  bool time_more();
  bool open(const TimedRounds& r, const std::vector<Comparison>& all) const;
  // Extra timing rounds: wanted while a verdict is open and cap_ms_ has not passed since the
  // configured work finished.
  bool extending() const;
  // The paired comparisons some rounds decide that are not decided yet.
  std::vector<const Comparison*> undecided(const std::vector<Comparison>& all) const;
  Stopwatch budget_;
  double budget_ms_ = 0.0;
  // Since the configured work finished: max_seconds caps the extra rounds from there, so a run
  // whose configured rounds took long (matrix's nine cells) still gets its extra rounds.
  std::optional<Stopwatch> extra_since_;
  double extra_ms() const;
  double cap_ms_ = 0.0;
  double band_;  // the "band" setting: what the paired verdicts count as the same (paired.hpp)
  double expected_ms_;  // the least its configured timing rounds take, by its estimate
  double shown_ = 0.0, configured_shown_ = 0.0;  // the last progress fraction; the configured's
  bool no_extra_rounds_ = false;                 // time_more() said there is nothing to time
};

}  // namespace looplab
