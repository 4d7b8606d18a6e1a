// looplab/experiments/browser_variants.hpp — the variants only a browser can measure (JavaScript
// calling the module once per batch or step: web/runtime/js-variants.js), joined to the core's
// result here. Their medians, spreads, fitted lines, numbers and sentences come from the same code
// as the core's own variants; the worker only measures.
//
//   json merged = add_browser_variants(core_result, measured);
//
// measured, for call-granularity (js_fit and js_train_on_batch, both with fit's traced step, their
// epochs interleaved; they join the comparisons as js_train_on_batch_vs_js_fit):
//   {"same_losses": true,        // both variants' losses equal each other's at every step, and the
//                                // core fit's at every step its series recorded
//    "variants": [{"variant": "js_fit", "chunk_us": [µs per step, one per chunk of whole epochs],
//                  "first_epoch_ms": 1.2, "total_ms": 40, "steps": 5000, "final_loss": 0.98 (null
//                  when not finite), "diverged": false, "series": {"step": [...], "loss": [...]}},
//                 {"variant": "js_train_on_batch", ...}]}
// measured, for overhead (js_per_call at each N the core measured):
//   {"variants": [{"variant": "js_per_call", "points": [{"n": 10, "chunk_us": [µs per step, one per
//                  timed chunk], "steps_per_chunk": 64, "steps": 640, "diverged": false}, ...]}]}
// Any other experiment's result comes back unchanged. A measurement missing a field throws.
#pragma once

#include "looplab/base/json.hpp"

namespace looplab {

json add_browser_variants(json result, const json& measured);

}  // namespace looplab
