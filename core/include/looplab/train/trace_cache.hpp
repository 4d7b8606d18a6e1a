// looplab/train/trace_cache.hpp — one traced program per input signature, and why each was traced.
//
// A traced function is only valid for the signature it was traced with: the batch shape and the
// static arguments (here `training`: a training step and an evaluation step are different
// programs). The cache looks the signature up on every call, replays the program it finds, and
// otherwise traces a new one and records the reason (a TraceReason with the event's rows and
// `training`; reason_text() says it in English: "first call", "new batch shape [50 x 1]",
// "new static argument training=false"). With relaxed_batch the batch rows leave the signature:
// one program, traced for the largest batch, serves every smaller one (shapes are derived again).
//
//   TraceCache cache(model, adam, {.features = 1, .relaxed_batch = false, .capacity_rows = 100});
//   float loss = cache.call(x, y, 100, /*training=*/true);    // traced: first call
//   loss = cache.call(x2, y2, 100, true);                       // replayed
//   loss = cache.call(x3, y3, 50, true);                        // traced: new batch shape [50 x 1]
//
// The cache does not time its calls: a replay takes microseconds, less than a browser clock's
// tick, so the caller times replays in chunks of several (experiments/retracing.cpp), and asks
// would_trace() first to keep a trace out of a chunk.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "looplab/train/graph_trainer.hpp"

namespace looplab {

struct TraceCacheOptions {
  int features = 1;
  bool relaxed_batch = false;
  int capacity_rows = 0;  // relaxed: the rows the one program is traced with (the largest batch)
  // Traced or Compiled: a compiled program also generates its code at each trace. NOTE: generated
  // code has fixed loop lengths, so a relaxed compiled program generates its code again whenever
  // the batch shape changes; relaxed_batch is meant for traced programs.
  Mode mode = Mode::Traced;
};

// Why a call traced: its signature's rows (a new batch shape) or its static argument differ from
// every program cached so far. The experiments say it in the reader's language from this and the
// event's rows and training flag.
enum class TraceReason : unsigned char { None, FirstCall, NewBatchShape, NewStaticArgument };

struct TraceEvent {
  long long call = 0;
  int rows = 0;
  bool training = true;
  bool traced = false;
  TraceReason reason = TraceReason::None;  // None when replayed
  int relaxed_rows = 0;      // relaxed batch: the rows the one program was traced for; else 0
  double codegen_ms = 0.0;   // compiled mode: of this trace, generating and building the code
  bool code_cached = false;  // compiled mode: the code was found built (no compiler ran)
};

// The reason in English, with the shape: "new batch shape [50 x 1] (relaxed batch: traced for 100
// rows)"; "" for a replay.
std::string reason_text(const TraceEvent& e, int features);

class TraceCache {
 public:
  TraceCache(Model& model, Optimizer& optimizer, TraceCacheOptions options);
  float call(const float* x, const float* y, int rows, bool training);
  // Whether call(…, rows, training) would trace (its signature is not cached yet).
  bool would_trace(int rows, bool training) const;
  int traces() const { return traces_; }
  const std::vector<TraceEvent>& events() const { return events_; }

 private:
  TraceReason reason_for(bool training) const;
  std::pair<int, bool> key_of(int rows, bool training) const;
  bool relaxed(int rows) const { return options_.relaxed_batch && rows <= options_.capacity_rows; }

  Model& model_;
  Optimizer& opt_;
  TraceCacheOptions options_;
  std::map<std::pair<int, bool>, std::unique_ptr<GraphTrainer>>
      programs_;  // (rows or -1, training)
  std::vector<TraceEvent> events_;
  int traces_ = 0;
};

}  // namespace looplab
