// looplab/api.hpp — the one entry point the CLI and the WebAssembly bindings use.
//
// Everything crosses this boundary as JSON text, so the CLI, the wasm module, the page and the
// widgets all speak the same contract (DESIGN.md "Contracts"):
//
//   std::string list = looplab::list_experiments_json();           // [{"id","title","question"}]
//   std::string d    = looplab::describe_json("standardization");  // parameters, text, plots
//   auto run = looplab::ExperimentRun::create(R"({"experiment":"standardization"})");
//   while (!run->advance(50.0)) show(run->progress_json());       // chunks of ~50 ms of work
//   std::string result = run->result_json();
//
// Errors: bad input throws looplab::ConfigError whose what() is one line naming the parameter and
// its allowed range or choices. Nothing here aborts on user input.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

namespace looplab {

// A config value or experiment id that is not allowed. what() is the one-line message users see.
struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// [{"id": "...", "title": "...", "question": "..."}, ...]
std::string list_experiments_json();

// {"id", "title", "question", "explanation": {...}, "parameters": [...], "plots": [...], "quoted":
// [...]} Throws ConfigError for an unknown id.
std::string describe_json(const std::string& id);

// Throws ConfigError if the config is invalid (unknown experiment, unknown key, bad type or range).
// Returns the resolved config (all defaults filled in) as JSON.
std::string validate_config_json(const std::string& config_json);

// {"build": "native"|"wasm", "simd": bool, "compiler": "...", "clock_resolution_ns": number, ...}
std::string environment_json();

// One experiment run, advanced in chunks so a caller (worker, CLI) can show progress and cancel
// between chunks. Cancel = stop calling advance() and drop the object.
class ExperimentRun {
 public:
  virtual ~ExperimentRun() = default;
  // Validates config_json; throws ConfigError on bad input.
  static std::unique_ptr<ExperimentRun> create(const std::string& config_json);
  // Does about budget_ms of work; returns true when the run is complete.
  virtual bool advance(double budget_ms) = 0;
  virtual bool done() const = 0;
  // {"done": bool, "fraction": 0..1, "message": "...", "series": {name: {column: [new values]}}}
  // Series hold only the points added since the previous progress_json() call.
  virtual std::string progress_json() = 0;
  // The full results JSON (valid once done() is true):
  // {"experiment", "config", "environment", "series", "runs", "summary"}.
  virtual std::string result_json() const = 0;
};

}  // namespace looplab
