// looplab/experiments/run.hpp — one experiment run, advanced in chunks.
//
// A caller (the CLI, the wasm worker) drives every run the same way, so it can show progress and
// cancel between chunks:
//
//   while (!run->advance(50.0)) show(run->progress_json());   // chunks of ~50 ms of work
//   std::string result = run->result_json();
//
// Cancel = stop calling advance() and drop the object.
#pragma once

#include <string>

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
  // The full results JSON (valid once done() is true):
  // {"experiment", "config", "environment", "series", "runs", "summary"}.
  virtual std::string result_json() const = 0;
};

}  // namespace looplab
