// looplab/experiments/experiment.hpp — what an experiment is, and the registry of all of them.
//
// An experiment declares its parameters (params.hpp), its plots, the sources of the figures it
// quotes, how to start a run, and the configs the tests run it on. Its texts (title, question,
// explanation, each parameter's help, plot titles and labels, the TensorFlow terms, the quoted
// figures) are only in the catalogs, core/i18n/<lang>.json, under keys named after the
// declaration: exp.<id>.title, param.<id>.<name>, plot.<id>.<plot>.title, tf.<id>.<i>.looplab,
// quoted.<id>.<i>.label, ... describe(lang) puts them in. The CLI, the wasm module, the page, the
// widgets and the tests all read these declarations; an experiment is one file (<id>.cpp, builder
// make_<id>_experiment) plus one entry in LOOPLAB_EXPERIMENTS below (CONTRIBUTING.md has the whole
// recipe).
//
//   const Experiment& e = find_experiment("standardization");   // throws ConfigError
//   auto run = e.start(validate_params(e.id, e.params, config));
//   json d = e.describe("zh-CN");   // the declaration with its texts in Chinese
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "looplab/base/error.hpp"
#include "looplab/experiments/params.hpp"
#include "looplab/experiments/run.hpp"

namespace looplab {

// What a config will need, estimated from the parameters alone so that api.cpp can refuse a config
// over this build's limits *before* anything is allocated (the message states limit and estimate).
struct Estimate {
  double bytes =
      0.0;  // peak heap the run needs (data, models, compiled programs), generously rounded up
  double steps = 0.0;   // training steps / iterations / calls the run performs in total
  std::string drivers;  // the parameters it depends on, named in the message: "n, batch and hidden"
  double timing_ms = 0.0;  // the least wall time its timed chunks take (chunk_ms × chunks), if set
};

struct Experiment {
  std::string id;
  std::vector<ParamSpec> params;
  bool takes_csv = false;  // accepts the user's own data as the config's "csv" field (csv.hpp)
  json plots;  // [{"id","x","y","log_x","log_y","series":[...]}] (plots.hpp), texts from catalogs
  // The source of each figure quoted from the seed threads, in order: "seed thread 004, question".
  // The figure itself (label, value, original wording) is quoted.<id>.<i>.* in the catalogs.
  // (Literal lists here and below are pointers to constants: strings built at each declaration
  // were most of the registry's code in the module, docs/size.md.)
  std::vector<const char*> quoted_sources;
  // Checks rules that involve several parameters (e.g. x_min < x_max); throws ConfigError.
  std::function<void(const Params&)> check;
  std::function<std::unique_ptr<ExperimentRun>(const Params&)> start;  // e.g. start_run_of<MyRun>
  // Optional but expected of every experiment: memory and steps for a validated config. Without it
  // a config is not checked against the limits (see config_limits() in api.cpp), so a new
  // experiment should set it; tests/core/experiments/limits_test.cpp checks it against measured
  // allocation.
  std::function<Estimate(const Params&)> estimate;

  // The configs the tests run, as `--set` assignments ("n=300") over the defaults.
  // small_config: all eight experiments' small configs run in a few seconds natively; the contract,
  // determinism and language tests and the fuzzer's starting points use it.
  // golden_configs: the configs tests/golden/golden.py keeps results of (via `looplab
  // test-configs`); the first is usually {} (the defaults). A file name is built from the
  // assignments, so changing one means re-capturing its golden result.
  std::vector<const char*> small_config;
  std::vector<std::vector<const char*>> golden_configs;

  // {id, title, question, explanation, parameters, plots, quoted, tensorflow, takes_csv} with every
  // text in `lang` (English where its catalog has none); the TensorFlow terms are the catalog's
  // tf.<id>.0, tf.<id>.1, ... rows. Throws std::logic_error when English lacks a text.
  json describe(std::string_view lang = "en") const;
  std::string title(std::string_view lang = "en") const;
  std::string question(std::string_view lang = "en") const;
};

// Experiment::start for a run type constructed from the params: e.start = start_run_of<MyRun>;
template <class Run>
std::unique_ptr<ExperimentRun> start_run_of(const Params& p) {
  return std::make_unique<Run>(p);
}

const std::vector<Experiment>& experiments();

// The limits a config's Estimate must stay within in this build (native and wasm differ: the wasm
// module has a fixed maximum memory, see wasm/CMakeLists.txt).
struct Limits {
  double bytes, steps;
};
// wasm: the module's maximum memory is 1 GiB (wasm/CMakeLists.txt); 400 MB leaves room for what
// the estimates do not count (the module itself, fragmentation, the results JSON).
inline constexpr Limits kNativeLimits{4e9, 1e9};
inline constexpr Limits kWasmLimits{400e6, 2e8};
Limits config_limits();  // this build's: kWasmLimits under Emscripten, else kNativeLimits

// For the estimates of the experiments that train the MLP graph (execution-modes, unroll): floats
// one training step keeps per (batch row × hidden unit). Measured: the traced arena is 3
// (arena_bytes ≈ 12·batch·hidden), eager's tape holds about 5; 8 leaves room (limits_test.cpp).
inline constexpr double kStepFloatsPerUnit = 8.0;
// Bytes each unrolled step adds to a program: instructions and batch pointers (the arena is reused
// across steps: unroll = 100 grew it by a third).
inline constexpr double kBytesPerUnrolledStep = 32e3;
const Experiment& find_experiment(const std::string& id);

// `config` with `--set`-style assignments ("n=300", "mode=traced") applied on top, each value
// parsed by its parameter's type (names the experiment does not declare are kept as text, so
// validation names them). config["experiment"] picks the experiment. Throws ConfigError for "n"
// without "=".
json with_assignments(json config, const std::vector<std::string>& assignments);
json with_assignments(json config, const std::vector<const char*>& assignments);

// Every experiment, in the order the page and `looplab list` show them: X(file_name) per
// experiment, whose builder is make_<file_name>_experiment() in <file_name>.cpp.
#define LOOPLAB_EXPERIMENTS(X) \
  X(standardization)           \
  X(execution_modes)           \
  X(unroll)                    \
  X(retracing)                 \
  X(call_granularity)          \
  X(overhead)                  \
  X(matrix)                    \
  X(pipelines)                 \
  X(optimizers)

#define LOOPLAB_DECLARE_EXPERIMENT(file_name) Experiment make_##file_name##_experiment();
LOOPLAB_EXPERIMENTS(LOOPLAB_DECLARE_EXPERIMENT)
#undef LOOPLAB_DECLARE_EXPERIMENT

}  // namespace looplab
