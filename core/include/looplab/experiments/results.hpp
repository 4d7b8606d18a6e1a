// looplab/experiments/results.hpp — helpers shared by every experiment's results: sampled series
// and the environment block (times are measured with base/clock.hpp's Stopwatch).
//
//   Series& loss = add_series("loss", {"iteration", "loss"});   // in a ChunkedRun (run.hpp)
//   SeriesSampler s;                           // log-spaced: all of 0..99, then ~1% apart
//   if (s.wants(i)) loss.add({double(i), l});  // one value per column, in the columns' order
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "looplab/base/clock.hpp"
#include "looplab/base/format.hpp"
#include "looplab/base/json.hpp"

namespace looplab {

// Which iterations to keep for a plot: every one below 100, then each about 1% after the last,
// so a run of 10 million iterations still plots in under 2000 points on a log axis.
class SeriesSampler {
 public:
  bool wants(long long i) {
    if (i < next_) return false;
    next_ =
        i < 100 ? i + 1 : std::max(i + 1, static_cast<long long>(static_cast<double>(i) * 1.01));
    return true;
  }

 private:
  long long next_ = 0;
};

// Named columns of equal length, appended to point by point. Keeps what was added since the last
// take_new() so progress events carry only new points.
class Series {
 public:
  explicit Series(std::vector<std::string> columns)
      : columns_(std::move(columns)), data_(columns_.size()) {}
  void add(const std::vector<double>& point);
  std::size_t size() const { return data_.empty() ? 0 : data_[0].size(); }
  json to_json() const { return slice(0); }
  json take_new();  // the points since the previous call

 private:
  json slice(std::size_t from) const;
  std::vector<std::string> columns_;
  std::vector<std::vector<double>> data_;
  std::size_t sent_ = 0;
};

// The median of per-chunk timings (0 for none): robust to the odd chunk a scheduler interrupts.
double median(std::vector<double> v);

// {"build", "simd", "compiler", "eigen", "clock_resolution_ns"}; the clock is measured once.
json environment();
// The clock's tick in ms, as environment() reports it in ns.
double clock_resolution_ms();

// One headline row: {label, value, note}, each a message.
inline json card(json label, json value, json note) {
  return {{"label", std::move(label)}, {"value", std::move(value)}, {"note", std::move(note)}};
}

// A summary's sentences given as messages (base/i18n.hpp): writes "headline" ([{label, value,
// note}]), "reading", "answer" and "beside_quoted" ([{label, quoted, measured, why}], when not
// empty) as English text, as every result has them, and "messages" holding the same four as
// messages, from which the CLI (--lang) and the page render them in the student's language.
void summary_messages(json& summary, const json& headline, const json& reading, const json& answer,
                      const json& beside_quoted = json::array());

// The text a student reads in a result's tables and summary values, given as messages: every cell
// of "runs" and of an extra table (retracing's "calls": a reason) and every summary value
// (overhead's "fit", "measured_where") that is a message (is_message) is written as its English
// text, and the message goes to summary.messages: "cells" {table: {"<row index>": {field:
// message}}} and "values" {field: message}. Cells and values already text are left alone, so it can
// run again after rows are added. ChunkedRun::result_json calls it on every
// result.
//
//   runs.push_back({{"call", 3}, {"reason", msg("rt.reason_first")}});   // "reason": "first call"
void text_messages(json& result);

}  // namespace looplab
