// call_granularity.cpp — seed thread 001: why is train_on_batch slower than fit?
//
// The same training (the seed-000 MLP, Adam, the same initial weights and the same batches in the
// same order) driven two ways in the core:
//   fit             the whole epoch loop inside the core; each step reads its batch in place;
//   train_on_batch  one call per batch through the session API, the batch copied in each call
//                   (as Keras turns a NumPy batch into a tensor on every train_on_batch).
// The page adds two more, measured in the browser worker (web/runtime/js-variants.js) with their
// epochs interleaved: js_train_on_batch, JavaScript calling the module once per batch and copying
// the batch into the wasm heap each time, and js_fit, JavaScript calling the core's fit once per
// epoch. Per variant: µs per step (median over chunks of whole epochs) and the overhead per call,
// the variant's step time minus fit's. The losses must be identical: the same steps in the same
// order.
#include <algorithm>
#include <cmath>

#include "looplab/experiments/common_params.hpp"
#include "looplab/experiments/experiment.hpp"
#include "looplab/experiments/plots.hpp"
#include "looplab/experiments/results.hpp"
#include "looplab/experiments/run.hpp"
#include "looplab/experiments/timing.hpp"
#include "looplab/train/session.hpp"

namespace looplab {
namespace {

constexpr double kMemoryLimitBytes = 128.0 * 1024 * 1024;

// Data (x, y) plus what a step touches: eager keeps about ten [batch x hidden] buffers alive.
double estimated_bytes(long long n, long long batch, long long hidden) {
  return 8.0 * static_cast<double>(n) +
         40.0 * static_cast<double>(batch) * static_cast<double>(hidden);
}

struct Variant {
  std::string name, where;
  std::unique_ptr<TrainerSession> session;
  int epochs_done = 0;
  double first_epoch_ms = 0.0, total_ms = 0.0;
  std::vector<double> chunk_us;  // µs per step, one per chunk of whole epochs
  double chunk_ms = 0.0;
  long long chunk_steps = 0;
  std::vector<float> losses;
  bool diverged = false;
  Series* series = nullptr;  // registered with the run as `name`
};

class CallGranularityRun final : public ChunkedRun {
 public:
  explicit CallGranularityRun(const Params& p)
      : ChunkedRun("call-granularity", p),
        data_(normal_data(static_cast<int>(p.integer("n")),
                          static_cast<std::uint64_t>(p.integer("seed")))),
        epochs_(static_cast<int>(p.integer("epochs"))),
        batches_(static_cast<int>(p.integer("n") / p.integer("batch"))),
        chunk_ms_(p.number("chunk_ms")) {
    warm_up_engines();
    const std::string where =
        environment()["build"] == "wasm" ? "C++ in WebAssembly" : "native C++";
    for (const char* name : {"fit", "train_on_batch"}) {
      variants_.push_back(std::make_unique<Variant>());
      variants_.back()->name = name;
      variants_.back()->where = where;
      variants_.back()->series = &add_series(name, {"step", "loss"});
    }
  }

  bool done() const override {
    return std::all_of(variants_.begin(), variants_.end(),
                       [&](const auto& v) { return v->epochs_done >= epochs_ || v->diverged; });
  }

 private:
  void work_one() override { run_epoch(current()); }

  double fraction() const override {
    double epochs_done = 0;
    for (auto& v : variants_) epochs_done += v->epochs_done;
    return epochs_done / (2.0 * epochs_);
  }

  std::string message() const override {
    return current().name + ": epoch " + std::to_string(current().epochs_done + 1) + " of " +
           std::to_string(epochs_);
  }

  json runs() const override {
    json runs = json::array();
    for (const auto& v : variants_) runs.push_back(run_json(*v));
    return runs;
  }

  // The variants take turns, one epoch each, so a change in machine load (another process, a
  // browser tab) hits both alike instead of biasing whichever ran during it.
  Variant& current() const {
    Variant* next = nullptr;  // the unfinished variant with the fewest epochs, the first on a tie
    for (auto& v : variants_)
      if (v->epochs_done < epochs_ && !v->diverged && (!next || v->epochs_done < next->epochs_done))
        next = v.get();
    return next ? *next : *variants_.back();
  }

  // One epoch of the variant; the first epoch (it includes the trace) is reported apart, the others
  // are timed in chunks of whole epochs lasting at least chunk_ms.
  void run_epoch(Variant& v) {
    if (!v.session) v.session = std::make_unique<TrainerSession>(session_config(params().values()));
    const int n = static_cast<int>(params().integer("n")),
              batch = static_cast<int>(params().integer("batch"));
    const Stopwatch w;
    std::vector<float> losses;
    if (v.name == "fit") {
      losses = v.session->fit(data_.x.data(), data_.y.data(), n, 1);
    } else {
      losses.reserve(static_cast<std::size_t>(batches_));
      for (int b = 0; b < batches_; ++b)
        losses.push_back(
            v.session->train_on_batch(data_.x.data() + static_cast<std::size_t>(b) * batch,
                                      data_.y.data() + static_cast<std::size_t>(b) * batch));
    }
    const double ms = w.elapsed_ms();
    v.total_ms += ms;
    if (v.epochs_done == 0) {
      v.first_epoch_ms = ms;
    } else {
      v.chunk_ms += ms;
      v.chunk_steps += batches_;
      if (v.chunk_ms >= chunk_ms_ || v.epochs_done + 1 == epochs_) {
        v.chunk_us.push_back(v.chunk_ms * 1000.0 / static_cast<double>(v.chunk_steps));
        v.chunk_ms = 0.0;
        v.chunk_steps = 0;
      }
    }
    record(v, losses);
    ++v.epochs_done;
  }

  void record(Variant& v, const std::vector<float>& losses) {
    const long long every =
        std::max<long long>(1, static_cast<long long>(batches_) * epochs_ / 500);
    for (float l : losses) {
      const long long step = static_cast<long long>(v.losses.size());
      if (!std::isfinite(l)) v.diverged = true;
      if (step % every == 0) v.series->add({static_cast<double>(step), std::isfinite(l) ? l : NAN});
      v.losses.push_back(l);
    }
  }

  double us_per_step(const Variant& v) const { return median(v.chunk_us); }

  json run_json(const Variant& v) const {
    const Variant& fit = *variants_[0];
    const bool same = v.losses == fit.losses;
    return {{"variant", v.name},
            {"measured_in", v.where},
            {"batch_copied_per_call", v.name != "fit"},
            {"steps", static_cast<long long>(v.losses.size())},
            {"us_per_step", us_per_step(v)},
            {"overhead_us_per_call", us_per_step(v) - us_per_step(fit)},
            {"spread_us", half_iqr(v.chunk_us)},
            {"chunks", static_cast<long long>(v.chunk_us.size())},
            {"first_epoch_ms", v.first_epoch_ms},
            {"total_ms", v.total_ms},
            {"final_loss", v.diverged || v.losses.empty() ? json(nullptr) : json(v.losses.back())},
            {"diverged", v.diverged},
            {"same_losses_as_fit", same}};
  }

  json summary() const override {
    const Variant& fit = *variants_[0];
    const Variant& tob = *variants_[1];
    const double f = us_per_step(fit), t = us_per_step(tob);
    json s;
    s["us_per_step"] = {{"fit", f}, {"train_on_batch", t}};
    s["overhead_us_per_call"] = {{"train_on_batch", t - f}};
    s["same_losses"] = tob.losses == fit.losses;
    s["diverged"] = fit.diverged || tob.diverged;
    s["measured_where"] =
        "fit and train_on_batch: " + fit.where +
        " (the core's own loop, and the core's session API called once per batch)";
    json headline = json::array();
    headline.push_back({{"label", "Step inside fit (median µs)"},
                        {"value", format_sig(f, 3)},
                        {"note", fit.where}});
    headline.push_back(
        {{"label", "train_on_batch, per call (median µs)"},
         {"value", format_sig(t, 3)},
         {"note", "overhead " + format_sig(t - f, 3) + " µs per call (" + tob.where + ")"}});
    headline.push_back(
        {{"label", "Same losses"},
         {"value", s["same_losses"].get<bool>() ? "yes, step for step" : "NO"},
         {"note", with_commas(static_cast<long long>(fit.losses.size())) + " steps per variant"}});
    s["headline"] = headline;
    const double noise = half_iqr(fit.chunk_us) + half_iqr(tob.chunk_us);
    s["noise_us"] = noise;
    s["reading"] =
        "One step cost " + format_sig(f, 3) + " µs inside fit and " + format_sig(t, 3) +
        " µs when called once per batch with a copy: " + format_sig(t - f, 3) +
        " µs of overhead per call" +
        (std::abs(t - f) <= noise ? ", within the chunk-to-chunk spread (±" + format_sig(noise, 2) +
                                        " µs): no overhead measurable on this run"
                                  : "") +
        ", for identical losses." +
        (fit.diverged || tob.diverged ? " Training diverged (a non-finite loss): lower lr." : "");
    return s;
  }

  LinearData data_;
  int epochs_, batches_;
  double chunk_ms_;
  std::vector<std::unique_ptr<Variant>> variants_;
};

}  // namespace

Experiment make_call_granularity_experiment() {
  Experiment e;
  e.id = "call-granularity";
  e.title = "Call granularity";
  e.question = "Why is train_on_batch slower than fit?";
  e.explanation = {{"intro",
                    "The same training — Dense(hidden, tanh) → Dense(1), Adam, mse on random N(0, "
                    "1) data, the same initial weights "
                    "and the same batches in the same order — driven two ways: fit runs the whole "
                    "loop inside the core, while "
                    "train_on_batch is called once per batch from outside and copies the batch in "
                    "each time, as Keras does. "
                    "In the browser two more variants are driven from JavaScript, their epochs "
                    "interleaved: js_train_on_batch "
                    "calls the WebAssembly module once per batch, copying the batch into the wasm "
                    "heap, and js_fit calls the "
                    "core's fit once per epoch."},
                   {"try",
                    "Shrink the batch (or hidden) so each step does less arithmetic and the "
                    "per-call cost stands out; grow it and "
                    "the overhead fades into the arithmetic. Switch mode to eager and compare how "
                    "much the call boundary matters "
                    "then."},
                   {"mechanism",
                    "t(per call) = t(step) + t(call boundary) + t(copy of the batch). fit pays the "
                    "boundary once per epoch; "
                    "train_on_batch pays it every step. The losses are identical: only where the "
                    "loop runs changes."}};
  e.params = {
      common::samples(10000, 1),
      common::batch(),
      integer("epochs", 50, 2, 10000,
              "passes over the data per variant (the first is reported apart)"),
      common::hidden(),
      choice("mode", "traced", {"eager", "traced", "reference"},
             "how each step executes inside the core"),
      common::adam_lr(),
      common::chunk_ms(5.0, "time whole epochs in chunks of at least this long"),
      common::seed(),
  };
  e.plots = json::array(
      {line_plot("loss", "Training loss per step: the variants coincide", {"step", "step"},
                 {"loss", "loss"}, {"fit", "train_on_batch", "js_fit", "js_train_on_batch"}),
       bars_plot("step", "Time per step (median over chunks)", "variant",
                 {"us_per_step", "µs per step"}),
       bars_plot("overhead", "Overhead per call: the variant's step minus fit's", "variant",
                 {"overhead_us_per_call", "µs per call"})});
  e.quoted = json::array({{{"label", "train_on_batch's execution function"},
                           {"value", "a plain Python function, not wrapped in tf.function: slower"},
                           {"source", "seed thread 001"}}});
  e.check = [](const Params& p) {
    const long long n = p.integer("n"), batch = p.integer("batch"), hidden = p.integer("hidden");
    if (batch > n)
      throw ConfigError("batch: must be at most n (" + with_commas(n) + "), got " +
                        with_commas(batch));
    const double bytes = estimated_bytes(n, batch, hidden);
    if (bytes > kMemoryLimitBytes)
      throw ConfigError("batch: batch x hidden needs about " + format_sig(bytes / 1048576.0, 3) +
                        " MB, over the 128 MB limit; lower batch or hidden");
  };
  e.estimate = [](const Params& p) {  // two variants (per call and fit), `epochs` epochs each
    const long long n = p.integer("n"), batch = p.integer("batch");
    return Estimate{estimated_bytes(n, batch, p.integer("hidden")),
                    2.0 * static_cast<double>(p.integer("epochs")) *
                        std::floor(static_cast<double>(n) / static_cast<double>(batch)),
                    "n, batch, hidden and epochs"};
  };
  e.start = start_run_of<CallGranularityRun>;
  return e;
}

}  // namespace looplab
