// trace_cache.cpp — signature lookup, tracing on a miss, and the reasons.
#include "looplab/train/trace_cache.hpp"

#include <string>

namespace looplab {

TraceCache::TraceCache(Model& model, Optimizer& optimizer, TraceCacheOptions options)
    : model_(model), opt_(optimizer), options_(options) {}

TraceReason TraceCache::reason_for(bool training) const {
  if (programs_.empty()) return TraceReason::FirstCall;
  for (const auto& [key, program] : programs_)
    if (key.second == training) return TraceReason::NewBatchShape;
  return TraceReason::NewStaticArgument;
}

std::string reason_text(const TraceEvent& e, int features) {
  std::string text;
  switch (e.reason) {
    case TraceReason::None:
      return "";
    case TraceReason::FirstCall:
      text = "first call";
      break;
    case TraceReason::NewBatchShape:
      text = "new batch shape [" + std::to_string(e.rows) + " x " + std::to_string(features) + "]";
      break;
    case TraceReason::NewStaticArgument:
      text = std::string("new static argument training=") + (e.training ? "true" : "false");
      break;
  }
  if (e.relaxed_rows > 0)
    text += " (relaxed batch: traced for " + std::to_string(e.relaxed_rows) + " rows)";
  return text;
}

// The signature: (rows, training), or (-1, training) when a relaxed program serves these rows.
std::pair<int, bool> TraceCache::key_of(int rows, bool training) const {
  return {relaxed(rows) ? -1 : rows, training};
}

bool TraceCache::would_trace(int rows, bool training) const {
  return programs_.find(key_of(rows, training)) == programs_.end();
}

float TraceCache::call(const float* x, const float* y, int rows, bool training) {
  const std::pair<int, bool> key = key_of(rows, training);
  TraceEvent e;
  e.call = static_cast<long long>(events_.size());
  e.rows = rows;
  e.training = training;
  auto it = programs_.find(key);
  if (it == programs_.end()) {
    e.traced = true;
    e.reason = reason_for(training);
    if (relaxed(rows)) e.relaxed_rows = options_.capacity_rows;
    const int traced_rows = relaxed(rows) ? options_.capacity_rows : rows;
    auto program = std::make_unique<GraphTrainer>(options_.mode, model_, opt_,
                                                  Shape{traced_rows, options_.features},
                                                  Shape{traced_rows, 1}, 1, training);
    e.codegen_ms = program->codegen_ms();
    e.code_cached = program->code_cached();
    it = programs_.emplace(key, std::move(program)).first;
    ++traces_;
  }
  float loss = 0.0f;
  it->second->run(&x, &y, &loss, rows);
  events_.push_back(e);
  return loss;
}

}  // namespace looplab
