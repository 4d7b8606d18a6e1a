// wasm/bindings.cpp — embind bindings over looplab/api/api.hpp. They only marshal JSON strings.
//
//   const m = await createLooplab();
//   JSON.parse(m.listExperiments());
//   const run = m.createRun('{"experiment":"standardization"}');  // a Run, or an Error
//   if (run instanceof Error) throw run;
//   while (!run.advance(50)) show(JSON.parse(run.progress()));
//   const result = JSON.parse(run.result());
//   run.delete();                                                 // JS owns the Run
//
// NOTE: nothing may unwind through wasm frames. With emscripten 3.1.6 every exception that
// crosses the boundary (a C++ exception, or a JS Error thrown from C++) leaks wasm stack, and the
// module breaks after some 40k-160k errors. So every entry point catches in C++ and *returns* a JS
// Error object (`result_or_error`); the JS facade in web/ turns it into a thrown Error. A
// looplab::ConfigError (bad user input) comes back with name "ConfigError", anything else with
// name "Error".
#include <emscripten/bind.h>
#include <emscripten/heap.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <exception>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "looplab/api/api.hpp"
#include "looplab/base/i18n.hpp"
#include "marshal.hpp"

// Test builds link wasm/test_hooks.cpp, which sets this to a deliberate trap (looplab-test.mjs);
// in the shipped module it stays null.
void (*looplab_before_advance)() = nullptr;

namespace {

using emscripten::val;
using looplab_wasm::result_or_error;

// One experiment run, owned by JS (call run.delete()). Created only by createRun().
class Run {
 public:
  explicit Run(std::unique_ptr<looplab::ExperimentRun> run) : run_(std::move(run)) {}

  val advance(double budget_ms) {
    if (looplab_before_advance) looplab_before_advance();
    return result_or_error([&] { return run_->advance(budget_ms); });
  }
  bool done() const { return run_->done(); }
  val progress() {
    return result_or_error([&] { return run_->progress_json(); });
  }
  val result() const {
    return result_or_error([&] { return run_->result_json(); });
  }
  // "Run longer": once done, more paired timing rounds for up to `seconds` (run.hpp); false when
  // the run has no paired timings. advance() then works again.
  bool extend(double seconds) { return run_->extend(seconds); }
  // What the worker measured of the browser-only variants (js-variants.js), as JSON: joins the
  // run's result. Returns true, or an Error for a measurement missing a field.
  val add_measurements(const std::string& measured_json) {
    return result_or_error([&] {
      run_->add_measurements(looplab::parse_json(measured_json));
      return true;
    });
  }

 private:
  std::unique_ptr<looplab::ExperimentRun> run_;
};

// The language normalize_lang makes of `lang` when this module has no catalog for it yet, else "":
// the facade then supplies it (web/runtime/api.js). The module embeds no catalog (base/i18n.hpp).
std::string catalog_needed(const std::string& lang) {
  const std::string l = looplab::normalize_lang(lang);
  return looplab::has_catalog(l) ? std::string() : l;
}

// core/i18n/<lang>.json's text for the module's renderer: true, or an Error for a broken text.
val provide_catalog(const std::string& lang, const std::string& text) {
  return result_or_error([&] {
    looplab::provide_catalog(lang, text);
    return true;
  });
}

val list_experiments(const std::string& lang) {
  return result_or_error([&] { return looplab::list_experiments_json(lang); });
}

val validate_config(const std::string& config_json) {
  return result_or_error([&] { return looplab::validate_config_json(config_json); });
}

val environment() {
  return result_or_error([] { return looplab::environment_json(); });
}

// Every mode compiled and run once, untimed (api.hpp's warm_up): true, or an Error.
val warm_up() {
  return result_or_error([] {
    looplab::warm_up();
    return true;
  });
}

// {"heap_bytes": size of wasm memory, "used_bytes": bytes malloc has handed out}: the long-session
// test checks both stay flat over 1,000 runs.
val heap_stats() {
  const struct mallinfo info = mallinfo();
  val out = val::object();
  out.set("heap_bytes", static_cast<double>(emscripten_get_heap_size()));
  out.set("used_bytes", static_cast<double>(info.uordblks));
  out.set("max_bytes", static_cast<double>(emscripten_get_heap_max()));
  return out;
}

val create_run(const std::string& config_json) {
  return result_or_error([&] { return Run(looplab::start_run(config_json)); });
}

}  // namespace

EMSCRIPTEN_BINDINGS(looplab) {
  using emscripten::class_;
  using emscripten::function;

  class_<Run>("Run")  // no constructor: createRun() is the only factory
      .function("advance", &Run::advance)
      .function("done", &Run::done)
      .function("progress", &Run::progress)
      .function("result", &Run::result)
      .function("addMeasurements", &Run::add_measurements)
      .function("extend", &Run::extend);

  function("catalogNeeded", &catalog_needed);
  function("provideCatalog", &provide_catalog);
  function("listExperiments", &list_experiments);
  function("validateConfig", &validate_config);
  function("environment", &environment);
  function("warmUp", &warm_up);
  function("createRun", &create_run);
  function("heapStats", &heap_stats);
}

// ---- call-granularity and overhead: the per-call session API, driven from JavaScript
// ------------- JavaScript calls these once per batch (or step) and the binding copies the caller's
// Float32Array into the session's staging buffers in the wasm heap (one TypedArray.set each), then
// runs one step: the browser's train_on_batch. Errors are returned, as everywhere above.
#include <optional>
#include <vector>

#include "looplab/api/sessions.hpp"

namespace {

// Copies a Float32Array of exactly n values into `to` (wasm memory); throws ConfigError otherwise.
void copy_in(const val& from, float* to, std::size_t n, const char* name) {
  if (!from.instanceof (val::global("Float32Array")) || from["length"].as<std::size_t>() != n)
    throw looplab::ConfigError(std::string(name) + ": must be a Float32Array of " +
                               std::to_string(n) + " values");
  val(emscripten::typed_memory_view(n, to)).call<void>("set", from);
}

// A fresh Float32Array holding a copy of n floats (JS owns it; wasm memory may grow and move).
val float32_copy(const float* p, std::size_t n) {
  return val::global("Float32Array").new_(emscripten::typed_memory_view(n, p));
}

val data_object(const looplab::LinearData& d) {
  val out = val::object();
  out.set("x", float32_copy(d.x.data(), d.x.size()));
  out.set("y", float32_copy(d.y.data(), d.y.size()));
  return out;
}

class Session {  // created only by createSession()
 public:
  Session(std::unique_ptr<looplab::TrainerSession> s, std::string config)
      : s_(std::move(s)), config_(std::move(config)) {}
  // One epoch of fit inside the core over the config's data (held in wasm memory, loaded on the
  // first call): one call from JS per epoch. Returns the epoch's losses.
  val fitEpoch() {
    return result_or_error([&] {
      if (!data_) data_ = looplab::session_data(config_);
      const std::vector<float> losses =
          s_->fit(data_->x.data(), data_->y.data(), data_->y.shape().rows, 1);  // examples
      return float32_copy(losses.data(), losses.size());
    });
  }
  val trainOnBatch(const val& x, const val& y) {
    return result_or_error([&] {
      copy_in(x, s_->staged_x(), s_->staged_x_size(), "x");
      copy_in(y, s_->staged_y(), s_->staged_y_size(), "y");
      return s_->train_staged();
    });
  }
  double steps() const { return static_cast<double>(s_->steps()); }
  int batch() const { return s_->config().batch; }

 private:
  std::unique_ptr<looplab::TrainerSession> s_;
  std::string config_;
  std::optional<looplab::LinearData> data_;
};

class LinearSession {  // created only by createLinearSession()
 public:
  explicit LinearSession(std::unique_ptr<looplab::LinearSession> s) : s_(std::move(s)) {}
  val step(const val& x, const val& y, double lr) {
    return result_or_error([&] {
      const auto n = static_cast<std::size_t>(s_->n());
      copy_in(x, s_->staged_x(), n, "x");
      copy_in(y, s_->staged_y(), n, "y");
      return s_->step(static_cast<float>(lr));
    });
  }

 private:
  std::unique_ptr<looplab::LinearSession> s_;
};

val create_session(const std::string& config_json) {
  return result_or_error(
      [&] { return Session(looplab::create_session(config_json), config_json); });
}

val session_data(const std::string& config_json) {
  return result_or_error([&] { return data_object(looplab::session_data(config_json)); });
}

constexpr int kMaxLinearPoints = 10'000'000;

int checked_points(int n) {
  if (n < 1 || n > kMaxLinearPoints)
    throw looplab::ConfigError("n: must be an integer in [1, 10000000], got " + std::to_string(n));
  return n;
}

val create_linear_session(const std::string& mode, int n) {
  return result_or_error([&] {
    return LinearSession(
        std::make_unique<looplab::LinearSession>(looplab::parse_mode(mode), checked_points(n)));
  });
}

val overhead_data(int n) {
  return result_or_error([&] { return data_object(looplab::overhead_data(checked_points(n))); });
}

}  // namespace

EMSCRIPTEN_BINDINGS(looplab_sessions) {
  using emscripten::class_;
  using emscripten::function;

  class_<Session>("Session")
      .function("trainOnBatch", &Session::trainOnBatch)
      .function("fitEpoch", &Session::fitEpoch)
      .function("steps", &Session::steps)
      .function("batch", &Session::batch);
  class_<LinearSession>("LinearSession").function("step", &LinearSession::step);

  function("createSession", &create_session);
  function("sessionData", &session_data);
  function("createLinearSession", &create_linear_session);
  function("overheadData", &overhead_data);
}

// ---- the browser-measured variants (web/runtime/js-variants.js): the worker only measures, with
// the core's statistics; the run turns its measurements into results (Run.addMeasurements). Numbers
// come in as JS arrays (or typed arrays), results go out as numbers or JSON strings; errors are
// returned.
#include "looplab/experiments/results.hpp"
#include "looplab/experiments/timing.hpp"

namespace {

// A JS array of numbers (or a typed array) as doubles; throws ConfigError for anything else.
std::vector<double> doubles(const val& from, const char* name) {
  const bool array = val::global("Array").call<bool>("isArray", from) ||
                     val::global("ArrayBuffer").call<bool>("isView", from);
  if (!array) throw looplab::ConfigError(std::string(name) + ": must be an array of numbers");
  return emscripten::convertJSArrayToNumberVector<double>(from);
}

val median(const val& values) {
  return result_or_error([&] { return looplab::median(doubles(values, "values")); });
}

val half_iqr(const val& values) {
  return result_or_error([&] { return looplab::half_iqr(doubles(values, "values")); });
}

// {"a": µs, "b": µs per point, "crossover": a/b or null} as JSON.
val fit_cost_line(const val& n, const val& t) {
  return result_or_error([&] {
    const looplab::CostLine c = looplab::fit_cost_line(doubles(n, "n"), doubles(t, "t"));
    return looplab::json{
        {"a", c.a},
        {"b", c.b},
        {"crossover", c.crossover ? looplab::json(*c.crossover) : looplab::json(nullptr)}}
        .dump();
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(looplab_browser_variants) {
  using emscripten::function;

  function("median", &median);
  function("halfIqr", &half_iqr);
  function("fitCostLine", &fit_cost_line);
}
