// pipelines.cpp — seed thread 000: why is my tf.data pipeline slower than a list of
// tensors, and which stages pay for themselves?
//
// The seed-000 model, Dense(20, tanh) → Dense(1) with Adam(1e-3) and mse on N(0, 1) data, trained
// from the same initial weights on the same batches in the same order by nine input pipelines
// (dataset.hpp). Every call is split by the clock into the time spent pulling its batches from
// the pipeline and the time spent in the training step, so the pipeline's share is measured, not
// inferred. Since the batches are the same, the losses must be too: a check on every variant.
// After every variant's first epoch (it traces and fills the cache) the variants take turns in
// paired rounds of whole epochs (rounds.hpp, paired.hpp): whatever changes during a run (a
// WebAssembly engine optimizing hot code, another process taking the CPU) falls on all alike.
#include <algorithm>
#include <cmath>
#include <optional>

#include "looplab/base/clock.hpp"
#include "looplab/base/i18n.hpp"
#include "looplab/data/dataset.hpp"
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

// Variants a run trains, each for `epochs` epochs (the step estimate counts them all).
constexpr double kPipelineVariants = 9.0;

enum class Source { Slices, Batches };
enum class Transform { None, MapPerBatch, Once };

struct VariantSpec {
  const char* id;  // what it is, in tf.data's words, is pl.pipeline_<id> in the catalogs
  Source source;
  bool cache, prefetch, repeat_inside;
  Transform transform;
};

// NOTE: our traced step is a straight-line program and cannot hold a loop over a dataset, so
// "repeat inside the traced function" is the nearest thing we can build: one repeated stream (no
// per-epoch reset) feeding an unrolled program that takes k batches per call. Its "outside" twin is
// slice_batch_cache_prefetch: a C++ epoch loop, a reset per epoch, one step per call.
const VariantSpec kVariants[] = {
    {"slice_batch", Source::Slices, false, false, false, Transform::None},
    {"slice_batch_cache", Source::Slices, true, false, false, Transform::None},
    {"slice_batch_cache_prefetch", Source::Slices, true, true, false, Transform::None},
    {"prebatched", Source::Batches, false, false, false, Transform::None},
    {"prebatched_cache", Source::Batches, true, false, false, Transform::None},
    {"prebatched_cache_prefetch", Source::Batches, true, true, false, Transform::None},
    {"repeat_inside", Source::Slices, true, true, true, Transform::None},
    {"map_per_batch", Source::Batches, false, false, false, Transform::MapPerBatch},
    {"transform_once", Source::Batches, false, false, false, Transform::Once},
};

// Single-threaded WebAssembly has no producer thread: prefetch pulls synchronously (dataset.hpp).
#ifdef __EMSCRIPTEN__
constexpr bool kPrefetchOverlaps = false;
#else
constexpr bool kPrefetchOverlaps = true;
#endif

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// Per epoch: the time of its calls (wall = pipeline + step: the clock is read before the pull,
// between pull and step, and after the step); the one-off setup (weights, trace, a one-off
// transform) is added to the first epoch's wall time only.
struct EpochTimes {
  double wall_ms = 0.0, pipeline_ms = 0.0, step_ms = 0.0, setup_ms = 0.0;
  long long batches = 0;
  double loss_sum = 0.0;
};

struct VariantRun {
  const VariantSpec* spec = nullptr;
  std::unique_ptr<Mlp> model;
  std::unique_ptr<Adam> optimizer;
  std::unique_ptr<GraphTrainer> trainer;
  Tensor x_once;  // transform_once: the standardized copy of x the pipeline views
  DatasetPtr ds;
  int steps_per_call = 1;
  std::vector<float> stage_x, stage_y;  // k batches side by side for an unrolled call
  int epoch = 0;
  bool finished = false, diverged = false;
  float last_loss = 0.0f;
  EpochTimes current;
  std::vector<EpochTimes> epochs;  // the trained epochs, then any extra timed ones
  std::size_t trained_epochs = 0;
  Series* series = nullptr;                        // registered with the run as the variant's id
  const std::vector<double>* rounds_us = nullptr;  // µs per epoch, a paired round each
  std::vector<double> pipeline_rounds_us;          // µs per batch in the pipeline, the same rounds
  double turn_pipeline_ms = 0.0;                   // of the turn under way
  long long turn_batches = 0;
};

// x → (x − mean) / std with mean and std of the whole x, in float so that mapping per batch and
// transforming once give the same bits.
struct Standardize {
  float mean = 0.0f, inv_std = 1.0f;
  explicit Standardize(const Tensor& x) {
    const Scaler s = Scaler::fit(x, ScalingKind::Standardize);
    mean = static_cast<float>(s.offset[0]);
    inv_std = static_cast<float>(1.0 / s.scale[0]);
  }
  void apply(float* x, std::size_t n) const {
    for (std::size_t i = 0; i < n; ++i) x[i] = (x[i] - mean) * inv_std;
  }
};

class PipelinesRun final : public ChunkedRun {
 public:
  explicit PipelinesRun(const Params& p)
      : ChunkedRun("pipelines", p),
        mode_(parse_mode(p.choice("mode"))),
        n_(static_cast<int>(p.integer("n"))),
        batch_(static_cast<int>(p.integer("batch"))),
        batches_(n_ / batch_),
        epochs_(static_cast<int>(p.integer("epochs"))),
        data_(normal_data(n_, static_cast<std::uint64_t>(p.integer("seed")))),
        standardize_(data_.x) {
    warm_up_engines();  // untimed: see graph_trainer.hpp
    for (const auto& spec : kVariants) {
      runs_.push_back(std::make_unique<VariantRun>());
      runs_.back()->spec = &spec;
      runs_.back()->series = &add_series(spec.id, {"epoch", "loss", "ms"});
    }
    std::vector<TimedSide> sides;
    for (const auto& r : runs_)
      sides.push_back({r->spec->id,
                       [this, &r = *r] { return takes_turn(r); },
                       [this, &r = *r](long long epochs) { return run_epochs(r, epochs); },
                       {},
                       [&r = *r](bool counted) { close_turn(r, counted); }});
    // Turns of whole epochs, as many for every variant, grown only for the clock's resolution:
    // repeat_inside's one stream ends with its epochs (no extra rounds decide it against its
    // twin), so every configured epoch is wanted as a round.
    rounds_ = &add_rounds(std::move(sides), {0.0, 1, true},
                          [](std::string_view id) { return id != "repeat_inside_vs_outside"; });
    for (std::size_t i = 0; i < runs_.size(); ++i) runs_[i]->rounds_us = &rounds_->rounds_us(i);
  }

  bool finished() const override {
    return std::all_of(runs_.begin(), runs_.end(), [](const auto& r) { return r->finished; });
  }

 private:
  // First every variant's setup and first epoch (it traces, compiles and fills the cache); then
  // the paired rounds.
  void work_one() override {
    if (set_up_ < runs_.size()) {
      VariantRun& r = *runs_[set_up_++];
      setup(r);
      for (const int epoch = r.epoch; r.epoch == epoch && !r.finished;) call(r);
      r.turn_pipeline_ms = 0.0;
      r.turn_batches = 0;
    } else {
      rounds_->turn();
    }
  }

  // Whole epochs; the epochs run. After the configured epochs (extra_) losses are not recorded.
  long long run_epochs(VariantRun& r, long long epochs) {
    extra_ = finished();
    const auto runs = [&] { return extra_ ? r.ds != nullptr : !r.finished; };
    long long ran = 0;
    for (; ran < epochs && runs(); ++ran)
      for (const int epoch = r.epoch; r.epoch == epoch && runs();) call(r);
    return ran;
  }

  // A counted turn's time in the pipeline per batch joins the variant's rounds.
  static void close_turn(VariantRun& r, bool counted) {
    if (counted)
      r.pipeline_rounds_us.push_back(r.turn_pipeline_ms * 1000.0 /
                                     static_cast<double>(std::max<long long>(1, r.turn_batches)));
    r.turn_pipeline_ms = 0.0;
    r.turn_batches = 0;
  }

  double fraction() const override {
    long long epochs_done = 0;
    for (auto& r : runs_) epochs_done += r->epoch;
    return static_cast<double>(epochs_done) /
           (static_cast<double>(epochs_) * static_cast<double>(runs_.size()));
  }

  json progress_message() const override {
    const VariantRun& r = *runs_[set_up_ < runs_.size() ? set_up_ : rounds_->side()];
    return msg("run.epoch_of", {{"name", r.spec->id}, {"e", r.epoch + 1}, {"n", epochs_}});
  }

  json runs() const override {
    json runs = json::array();
    for (const auto& r : runs_) runs.push_back(run_json(*r));
    return runs;
  }

  // The pipeline of one variant over data_ (or over its own standardized copy of x).
  DatasetPtr build_pipeline(VariantRun& r) const {
    const VariantSpec& s = *r.spec;
    const Tensor& x = s.transform == Transform::Once ? r.x_once : data_.x;
    DatasetPtr ds = s.source == Source::Slices
                        ? batch(from_tensor_slices(x, data_.y), batch_, false)
                        : from_batches(x, data_.y, batch_);
    if (s.transform == Transform::MapPerBatch) {
      const Standardize st = standardize_;
      ds = map(std::move(ds), [st](MutableBatch& b) {
        st.apply(b.x, static_cast<std::size_t>(b.rows) * b.x_cols);
      });
    }
    if (s.cache) ds = cache(std::move(ds));
    if (s.prefetch) ds = prefetch(std::move(ds), 1);
    if (s.repeat_inside) ds = repeat(std::move(ds), epochs_);
    return ds;
  }

  // Same seed, same initial weights for every variant; timed as part of the first epoch.
  void setup(VariantRun& r) {
    const Stopwatch watch;
    if (r.spec->transform == Transform::Once) {  // the one-off transform is the pipeline's work
      r.x_once = data_.x;
      standardize_.apply(r.x_once.data(), r.x_once.size());
    }
    r.ds = build_pipeline(r);
    Rng init(static_cast<std::uint64_t>(params().integer("seed")) + 1);
    r.model = std::make_unique<Mlp>(1, std::vector<int>{20}, 1, Activation::Tanh, init);
    r.optimizer = std::make_unique<Adam>(1e-3, r.model->parameters());
    r.steps_per_call = r.spec->repeat_inside && is_program(mode_)
                           ? static_cast<int>(params().integer("unroll"))
                           : 1;
    r.stage_x.resize(static_cast<std::size_t>(r.steps_per_call) * batch_);
    r.stage_y.resize(r.stage_x.size());
    r.trainer = std::make_unique<GraphTrainer>(mode_, *r.model, *r.optimizer, Shape{batch_, 1},
                                               Shape{batch_, 1}, r.steps_per_call, true, Loss::Mse);
    r.current.setup_ms = watch.elapsed_ms();
  }

  // Pulls the batches of one call; false at the end of the stream. An unrolled call needs all
  // k batches at once, but a Batch is valid only until the next pull: those are copied.
  bool pull(VariantRun& r, const float** xs, const float** ys) {
    Batch b;
    for (int j = 0; j < r.steps_per_call; ++j) {
      if (!r.ds->next(b)) return false;
      if (r.steps_per_call == 1) {
        xs[0] = b.x;
        ys[0] = b.y;
        return true;
      }
      const std::size_t off = static_cast<std::size_t>(j) * batch_;
      std::copy(b.x, b.x + batch_, r.stage_x.data() + off);
      std::copy(b.y, b.y + batch_, r.stage_y.data() + off);
      xs[j] = r.stage_x.data() + off;
      ys[j] = r.stage_y.data() + off;
    }
    return true;
  }

  // One call: pull its batches (timed as pipeline), run the step(s) (timed as step).
  void call(VariantRun& r) {
    const float* xs[128];
    const float* ys[128];
    float losses[128];
    const Clock::time_point t0 = Clock::now();
    const bool got = pull(r, xs, ys);
    const Clock::time_point t1 = Clock::now();
    r.current.pipeline_ms += ms_between(t0, t1);
    r.turn_pipeline_ms += ms_between(t0, t1);
    r.current.wall_ms += ms_between(t0, t1);
    if (!got) return end_epoch(r);
    r.trainer->run(xs, ys, losses);
    const Clock::time_point t2 = Clock::now();
    r.current.step_ms += ms_between(t1, t2);
    r.current.wall_ms += ms_between(t1, t2);
    for (int j = 0; j < r.steps_per_call && !extra_; ++j) {
      if (!std::isfinite(losses[j])) r.diverged = true;
      r.current.loss_sum += losses[j];
      r.last_loss = losses[j];
    }
    r.current.batches += r.steps_per_call;
    r.turn_batches += r.steps_per_call;
    // The repeated stream has no end per epoch: its epochs end by count (batches_ % k == 0).
    if (r.spec->repeat_inside && r.current.batches == batches_) end_epoch(r);
  }

  void end_epoch(VariantRun& r) {
    EpochTimes& e = r.current;
    e.wall_ms += e.setup_ms;
    if (!extra_)
      r.series->add({static_cast<double>(r.epoch + 1),
                     e.batches ? e.loss_sum / static_cast<double>(e.batches) : 0.0, e.wall_ms});
    r.epochs.push_back(e);
    r.current = EpochTimes{};
    ++r.epoch;
    if (!extra_) r.trained_epochs = r.epochs.size();
    if (r.diverged || (r.spec->repeat_inside && r.epoch >= epochs_)) {
      r.finished = true;
      r.ds.reset();  // stops a prefetch thread for good
    } else {
      r.finished = r.epoch >= epochs_;
      if (!r.spec->repeat_inside) r.ds->reset();  // kept after the last epoch for extra rounds
    }
  }

  // Whether the variant runs in this round: its configured epochs, then (extra rounds) every
  // variant but repeat_inside, whose one stream ends with its epochs.
  bool takes_turn(const VariantRun& r) const { return finished() ? r.ds != nullptr : !r.finished; }

  json run_json(const VariantRun& r) const;
  std::vector<Comparison> comparisons() const override;
  json answer(const std::vector<Comparison>& c) const;
  json summary() const override;

  Mode mode_;
  int n_, batch_, batches_, epochs_;
  LinearData data_;  // x and y ~ N(0, 1)
  Standardize standardize_;
  std::vector<std::unique_ptr<VariantRun>> runs_;
  std::size_t set_up_ = 0;          // variants set up, with their first epoch
  PairedRounds* rounds_ = nullptr;  // the steady epochs' paired rounds (a side per variant)
  bool extra_ = false;              // the turn under way is after the configured epochs
};

// One timing over the steady epochs (all but the first, which traces, compiles and fills the
// cache, when there are more), per epoch in ms or per batch in µs.
std::vector<double> steady_values(const VariantRun& r, double EpochTimes::*field, bool per_batch) {
  std::vector<double> v;
  for (std::size_t i = r.epochs.size() > 1 ? 1 : 0; i < r.epochs.size(); ++i) {
    const EpochTimes& e = r.epochs[i];
    v.push_back(per_batch
                    ? e.*field * 1000.0 / static_cast<double>(std::max<long long>(1, e.batches))
                    : e.*field);
  }
  return v;
}

// Their median (a scheduler on a busy machine can stretch any one epoch)...
double steady_median(const VariantRun& r, double EpochTimes::*field, bool per_batch) {
  return median(steady_values(r, field, per_batch));
}

// A variant's paired rounds in ms per epoch.
std::vector<double> ms_per_epoch(const VariantRun& r) { return in_ms(*r.rounds_us); }

json PipelinesRun::run_json(const VariantRun& r) const {
  json counts = json::array();
  for (std::size_t i = 0; i < r.trained_epochs; ++i) counts.push_back(r.epochs[i].batches);
  return object({{"variant", r.spec->id},
                 {"pipeline", msg(std::string("pl.pipeline_") + r.spec->id)},
                 {"steps_per_call", r.steps_per_call},
                 {"epochs", r.trained_epochs},
                 {"rounds", r.rounds_us->size()},
                 {"batches_per_epoch", counts},
                 {"first_epoch_ms", r.epochs.empty() ? 0.0 : r.epochs.front().wall_ms},
                 {"ms_per_epoch", median(ms_per_epoch(r))},
                 {"spread_ms_per_epoch", half_iqr(ms_per_epoch(r))},
                 {"ci_ms_per_epoch", interval_json(ms_per_epoch(r))},
                 {"pipeline_us_per_batch", steady_median(r, &EpochTimes::pipeline_ms, true)},
                 {"step_us_per_batch", steady_median(r, &EpochTimes::step_ms, true)},
                 {"final_loss", r.diverged ? json(nullptr) : json(r.last_loss)},
                 {"prefetch_overlap", r.spec->prefetch ? json(kPrefetchOverlaps) : json(nullptr)}});
}

// The comparisons this run states: each stage against the pipeline without it, per epoch, and
// the pipeline's own time per batch for slices against pre-batched; the losses that must agree.
std::vector<Comparison> PipelinesRun::comparisons() const {
  const auto epoch = [&](int i) {
    const VariantRun& r = *runs_[static_cast<std::size_t>(i)];
    return paired_side(r.spec->id, ms_per_epoch(r));
  };
  const auto pipe = [&](int i) {
    const VariantRun& r = *runs_[static_cast<std::size_t>(i)];
    return paired_side(r.spec->id, r.pipeline_rounds_us);
  };
  const auto loss = [&](int i) {
    const VariantRun& r = *runs_[static_cast<std::size_t>(i)];
    return loss_measure(r.spec->id, r.last_loss);
  };
  const std::string per_epoch = "ms per epoch", per_batch = "µs per batch in the pipeline";
  return {compare("prebatched_vs_slices", epoch(3), epoch(0), Quantity::Time, per_epoch),
          compare("pipeline_prebatched_vs_slices", pipe(3), pipe(0), Quantity::Time, per_batch),
          compare("cache_on_slices", epoch(1), epoch(0), Quantity::Time, per_epoch),
          compare("cache_on_prebatched", epoch(4), epoch(3), Quantity::Time, per_epoch),
          compare("prefetch_on_cached_slices", epoch(2), epoch(1), Quantity::Time, per_epoch),
          compare("repeat_inside_vs_outside", epoch(6), epoch(2), Quantity::Time, per_epoch),
          compare("transform_once_vs_map", epoch(8), epoch(7), Quantity::Time, per_epoch),
          compare("final_loss_prebatched_vs_slices", loss(3), loss(0), Quantity::Loss, ""),
          compare("final_loss_transform_once_vs_map", loss(8), loss(7), Quantity::Loss, "")};
}

// "cache paid for itself", "prefetch(1) cost more than it saved", "... made no measurable
// difference": a stage judged by its comparison against the pipeline without it.
json stage_verdict(const char* stage, const Comparison& c) {
  return msg(c.verdict == Verdict::Same           ? "pl.stage_same"
             : c.verdict == Verdict::A            ? "pl.stage_paid"
             : c.verdict == Verdict::Inconclusive ? "pl.stage_unsure"
                                                  : "pl.stage_cost",
             object({{"stage", msg(stage)}, {"short", c.short_message()}}));
}

// Every branch takes the same arguments.
json PipelinesRun::answer(const std::vector<Comparison>& c) const {
  const Comparison& pipeline = comparison(c, "pipeline_prebatched_vs_slices");
  const json why = msg(pipeline.verdict == Verdict::A ? "pl.why_pipeline" : "pl.why_step",
                       {{"b", pipeline.b.value},
                        {"a", pipeline.a.value},
                        {"batch", batch_},
                        {"c", pipeline.message()}});
  return msg(
      "pl.answer",
      {{"why", why},
       {"cache", stage_verdict("pl.stage_cache", comparison(c, "cache_on_slices"))},
       {"prefetch", stage_verdict("pl.stage_prefetch", comparison(c, "prefetch_on_cached_slices"))},
       {"transform", stage_verdict("pl.stage_transform", comparison(c, "transform_once_vs_map"))}});
}

json PipelinesRun::summary() const {
  auto ms = [&](int i) { return median(ms_per_epoch(*runs_[static_cast<std::size_t>(i)])); };
  double spread = 0.0;  // variants 0..6 see the same batches, 7 and 8 the same standardized ones
  for (int i = 1; i < 9; ++i) {
    const double ref = runs_[i < 7 ? 0 : 7]->last_loss;
    spread = std::max(spread, std::abs(runs_[static_cast<std::size_t>(i)]->last_loss - ref) /
                                  std::max(std::abs(ref), 1e-30));
  }
  const std::vector<Comparison> c = comparisons();
  const json overlap = msg(kPrefetchOverlaps ? "pl.overlap_yes" : "pl.overlap_no");
  json s;
  s["ms_per_epoch"] = json::object();
  for (int i = 0; i < 9; ++i) s["ms_per_epoch"][kVariants[i].id] = ms(i);
  s["prebatched_speedup"] = ms(0) / std::max(ms(3), 1e-9);
  s["prefetch_overlap"] = kPrefetchOverlaps;
  s["final_loss_spread"] = spread;
  s["comparisons"] = comparisons_json(c);
  const auto short_of = [&](std::string_view id) { return comparison(c, id).short_message(); };
  const auto sentence = [&](std::string_view id) { return comparison(c, id).message(); };
  json h = json::array();
  h.push_back(card(msg("pl.h_prebatched"), short_of("prebatched_vs_slices"),
                   msg("pl.h_prebatched_note", {{"a", ms(0)}, {"b", ms(3)}})));
  h.push_back(card(msg("pl.h_cache"),
                   msg("pl.h_cache_value", {{"s", short_of("cache_on_slices")},
                                            {"p", short_of("cache_on_prebatched")}}),
                   msg("pl.h_cache_note")));
  h.push_back(card(msg("pl.h_prefetch"), short_of("prefetch_on_cached_slices"), overlap));
  h.push_back(card(msg("pl.h_repeat"), short_of("repeat_inside_vs_outside"),
                   msg("pl.h_repeat_note", {{"k", runs_[6]->steps_per_call}})));
  h.push_back(
      card(msg("pl.h_transform"), short_of("transform_once_vs_map"), msg("pl.h_transform_note")));
  const bool same_loss =
      comparison(c, "final_loss_prebatched_vs_slices").verdict == Verdict::Same &&
      comparison(c, "final_loss_transform_once_vs_map").verdict == Verdict::Same;
  h.push_back(
      card(msg("pl.h_loss"),
           msg("pl.h_loss_value", {{"raw", runs_[0]->last_loss}, {"std", runs_[7]->last_loss}}),
           msg(same_loss ? "pl.h_loss_same" : "pl.h_loss_differ", {{"gap", spread}})));
  const json reading = msg(
      "pl.reading", {{"batches", batches_},
                     {"prebatched_vs_slices", sentence("prebatched_vs_slices")},
                     {"pipeline_prebatched_vs_slices", sentence("pipeline_prebatched_vs_slices")},
                     {"cache_on_slices", sentence("cache_on_slices")},
                     {"overlap", overlap},
                     {"prefetch_on_cached_slices", sentence("prefetch_on_cached_slices")},
                     {"repeat_inside_vs_outside", sentence("repeat_inside_vs_outside")},
                     {"transform_once_vs_map", sentence("transform_once_vs_map")}});
  summary_messages(s, h, reading, answer(c));
  return s;
}

}  // namespace

Experiment make_pipelines_experiment() {
  Experiment e;
  e.id = "pipelines";
  e.params = {
      common::samples(10000, 100),
      common::batch(),
      integer("epochs", 20, 1, 1000),
      choice("mode", "traced", {"traced", "eager", "compiled"}),
      integer("unroll", 5, 1, 100),
      common::max_seconds(),
      common::band(),
      common::seed(),
  };
  e.plots =
      json::array({bars_plot_with_interval("epoch", "variant", {"ms_per_epoch"}, "ci_ms_per_epoch"),
                   bars_plot("split", "variant", {"pipeline_us_per_batch"},
                             {"pipeline_us_per_batch", "step_us_per_batch"}, {"pipeline", "step"}),
                   line_plot("loss", {"epoch"}, {"loss"},
                             {"slice_batch", "slice_batch_cache", "slice_batch_cache_prefetch",
                              "prebatched", "prebatched_cache", "prebatched_cache_prefetch",
                              "repeat_inside", "map_per_batch", "transform_once"})});
  e.quoted_sources = {"seed thread 000", "seed thread 000", "seed thread 000"};
  e.check = [](const Params& p) {
    const long long n = p.integer("n"), batch = p.integer("batch"), unroll = p.integer("unroll");
    common::check_batch_at_most_n(batch, n);
    if (n % batch != 0) refuse("err.divide_n", {{"n", n}, {"got", batch}});
    if (p.choice("mode") != "eager" && (n / batch) % unroll != 0)
      refuse("err.divide_batches", {{"k", n / batch}, {"got", unroll}});
  };
  e.estimate = [](const Params& p) {
    const double n = static_cast<double>(p.integer("n")),
                 batch = static_cast<double>(p.integer("batch"));
    const double epochs = static_cast<double>(p.integer("epochs"));
    // x and y (8 bytes a row) held about six times over: the data, the pre-stacked batches, two
    // caches, the transformed copy and the batches in flight; plus the models and their programs.
    return Estimate{4e6 + 6.0 * 8.0 * n, kPipelineVariants * epochs * std::floor(n / batch),
                    "n, batch and epochs"};
  };
  e.small_config = {"n=1000", "epochs=2", "max_seconds=0"};
  e.golden_configs = {{}, {"n=1000", "epochs=2"}, {"n=2000", "batch=50", "epochs=1"}};
  e.start = start_run_of<PipelinesRun>;
  return e;
}

}  // namespace looplab
