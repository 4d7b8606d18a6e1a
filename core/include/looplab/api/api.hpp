// looplab/api/api.hpp — the one entry point the CLI and the WebAssembly bindings use.
//
// Everything crosses this boundary as JSON text, so the CLI, the wasm module, the page and the
// widgets all speak the same contract (docs/design.md, "Contracts"):
//
//   std::string list = looplab::list_experiments_json();           // [{"id","title","question"}]
//   std::string d    = looplab::describe_json("standardization");  // parameters, text, plots
//   auto run = looplab::start_run(R"({"experiment":"standardization"})");
//   while (!run->advance(50.0)) show(run->progress_json());       // chunks of ~50 ms of work
//   std::string result = run->result_json();
//
// Errors: bad input throws looplab::ConfigError whose what() is one line naming the parameter and
// its allowed range or choices. Nothing here aborts on user input.
#pragma once

#include <memory>
#include <string>

#include "looplab/base/error.hpp"
#include "looplab/experiments/run.hpp"

namespace looplab {

// [{"id": "...", "title": "...", "question": "..."}, ...], the texts in `lang` (a tag such as "id"
// or "zh_CN.UTF-8"; English for any other).
std::string list_experiments_json(const std::string& lang = "en");

// {"id", "title", "question", "explanation": {...}, "parameters": [...], "plots": [...],
// "quoted": [...], "tensorflow": [...], "takes_csv"}, every text in `lang` (the CLI's `describe`
// and the page's controls and plots show these). Throws ConfigError for an unknown id.
std::string describe_json(const std::string& id, const std::string& lang = "en");

// Throws ConfigError if the config is invalid (unknown experiment, unknown key, bad type or range).
// Returns the resolved config (all defaults filled in) as JSON.
std::string validate_config_json(const std::string& config_json);

// {"build": "native"|"wasm", "simd": bool, "compiler": "...", "clock_resolution_ns": number, ...}
std::string environment_json();

// Compiles and runs a tiny model in every mode, untimed, once per process (warm_up_engines(),
// train/graph_trainer.hpp). Every run does it first anyway; the page's worker calls it while idle
// after loading, so a student's first Run does not wait for it or run beside the compilations it
// sets off in the engine's background threads (tests/bench/README.md, cold runs).
void warm_up();

// Starts one run (experiments/run.hpp): validates config_json, throws ConfigError on bad input,
// refuses a config over this build's limits before allocating anything.
std::unique_ptr<ExperimentRun> start_run(const std::string& config_json);

}  // namespace looplab
