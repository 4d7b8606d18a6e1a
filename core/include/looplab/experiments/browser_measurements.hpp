// looplab/experiments/browser_measurements.hpp — what a browser worker measured
// (web/runtime/js-variants.js) and hands a finished run (ExperimentRun::add_measurements), read
// and checked whole before the run keeps any of it.
//
//   void add_measurements(const json& measured) override { js_ = read_browser_per_call(measured); }
//
// Why here: in wasm the experiments that take these compile without unwinding code
// (CMakeLists.txt, LOOPLAB_WASM_NO_UNWIND_LAYERS), so a refusal thrown while one of their frames
// held part of the measurements would leak that part. This file keeps its unwinding code; the
// run holds nothing until the reading has succeeded, and nothing it reads later can throw.
#pragma once

#include <vector>

#include "looplab/base/json.hpp"
#include "looplab/experiments/timing.hpp"

namespace looplab {

// call-granularity's js_fit and js_train_on_batch, each as measured: {"variant", "chunk_us",
// "first_epoch_ms", "total_ms", "steps", "final_loss", "diverged", "series"}.
struct BrowserStepVariants {
  json fit, train_on_batch;
  bool same_losses = false;  // equal to each other's and the core fit's losses at every step
};

// {"same_losses": bool, "variants": [js_fit, js_train_on_batch]}. Throws std::invalid_argument,
// naming what is wrong, unless both variants are there with chunk_us as many positive, finite
// times for each (their chunks are paired), first_epoch_ms, total_ms and steps finite and not
// negative, diverged a bool, final_loss a finite number or null, and a series object.
BrowserStepVariants read_browser_step_variants(const json& measured);

// overhead's js_per_call, per N: the median µs per step of its chunks, and the fitted line a + b·N.
struct BrowserPerCall {
  std::vector<double> n, us;
  json points = json::array();  // as the run's points: {"n", "mode", "us_per_step", ...}
  bool diverged = false;
  CostLine line;
};

// {"variants": [{"variant": "js_per_call", "points": [{"n", "chunk_us", "steps_per_chunk",
// "steps", "diverged"}, ...]}]}. Throws std::invalid_argument (or fit_cost_line's) unless every
// point has them, N and the counts finite and not negative, the times positive and finite, and
// there are at least two different N.
BrowserPerCall read_browser_per_call(const json& measured);

}  // namespace looplab
