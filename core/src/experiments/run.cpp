// run.cpp — the run protocol every experiment shares: budget loop, progress, result envelope.
#include "looplab/experiments/run.hpp"

#include <algorithm>

namespace looplab {

ChunkedRun::ChunkedRun(std::string experiment, const Params& params)
    : experiment_(std::move(experiment)), params_(params) {}

bool ChunkedRun::advance(double budget_ms) {
  budget_ = Stopwatch();
  budget_ms_ = budget_ms;
  if (done()) return true;
  do {
    work_one();
  } while (!done() && budget_left_ms() > 0.0);
  return done();
}

std::string ChunkedRun::message() const { return english(progress_message()); }

std::string ChunkedRun::progress_json() {
  json new_points = json::object();
  for (auto& s : series_) new_points[s.name] = s.series->take_new();
  const bool finished = done();
  const json m = finished ? msg("run.done") : progress_message();
  return json{{"done", finished},
              {"fraction", finished ? 1.0 : std::clamp(fraction(), 0.0, 0.99)},
              {"message", english(m)},
              {"i18n", m},
              {"series", new_points}}
      .dump();
}

std::string ChunkedRun::result_json() const {
  json c = config();
  c["experiment"] = experiment_;
  json result = {{"experiment", experiment_},
                 {"config", c},
                 {"environment", environment()},
                 {"series", series()},
                 {"runs", runs()}};
  const json extra = tables();
  for (const auto& [key, table] : extra.items()) result[key] = table;
  result["summary"] = summary();
  text_messages(result);
  return result.dump();
}

json ChunkedRun::config() const { return params_.values(); }

json ChunkedRun::series() const {
  json out = json::object();
  for (const auto& s : series_) out[s.name] = s.series->to_json();
  return out;
}

json ChunkedRun::tables() const { return json::object(); }

Series& ChunkedRun::add_series(std::string name, std::vector<std::string> columns) {
  series_.push_back({std::move(name), std::make_unique<Series>(std::move(columns))});
  return *series_.back().series;
}

}  // namespace looplab
