// run.cpp — the run protocol every experiment shares: budget loop, progress, result envelope.
#include "looplab/experiments/run.hpp"

#include <algorithm>

namespace looplab {

ChunkedRun::ChunkedRun(std::string experiment, const Params& params)
    : experiment_(std::move(experiment)),
      params_(params),
      cap_ms_(params.values().contains("max_seconds") ? params.number("max_seconds") * 1000.0
                                                      : 0.0),
      band_(params.values().contains("band") ? params.number("band") : kPracticalBand) {}

bool ChunkedRun::advance(double budget_ms) {
  const BandScope band(band_);
  budget_ = Stopwatch();
  budget_ms_ = budget_ms;
  if (done()) return true;
  do {
    if (!finished()) {
      work_one();
      if (finished()) extra_since_ = Stopwatch();  // the cap on extra rounds counts from here
    } else if (!time_more()) {
      no_extra_rounds_ = true;
    }
  } while (!done() && budget_left_ms() > 0.0);
  return done();
}

bool ChunkedRun::done() const { return finished() && !extending(); }

std::vector<const Comparison*> ChunkedRun::undecided(const std::vector<Comparison>& all) const {
  std::vector<const Comparison*> open;
  for (const Comparison& c : all)
    if (!c.decided()) open.push_back(&c);
  return open;
}

bool ChunkedRun::extending() const {
  if (no_extra_rounds_) return false;
  if (mid_round()) return true;
  if (extra_ms() >= cap_ms_) return false;
  return !undecided(timing_comparisons()).empty();
}

bool ChunkedRun::extend(double seconds) {
  const BandScope band(band_);
  if (!finished() || timing_comparisons().empty()) return false;
  cap_ms_ = extra_ms() + std::max(0.0, seconds) * 1000.0;
  no_extra_rounds_ = false;
  return true;
}

RandomTurns ChunkedRun::turns(std::size_t sides) {
  const auto seed =
      static_cast<std::uint64_t>(params_.values().contains("seed") ? params_.integer("seed") : 1);
  return RandomTurns(sides, seed * 0x9E3779B97F4A7C15ULL + ++turn_sets_);
}

double ChunkedRun::extra_ms() const { return extra_since_ ? extra_since_->elapsed_ms() : 0.0; }

std::string ChunkedRun::message() const { return english(progress_message()); }

std::string ChunkedRun::progress_json() {
  const BandScope band(band_);
  json new_points = json::object();
  for (auto& s : series_) new_points[s.name] = s.series->take_new();
  const bool complete = done();
  json m = complete ? msg("run.done") : progress_message();
  double f = complete ? 1.0 : std::clamp(fraction(), 0.0, 0.99);
  if (!complete && finished()) {  // extra timing rounds: how many verdicts are open, the first one
    const std::vector<Comparison> all = timing_comparisons();
    const std::vector<const Comparison*> open = undecided(all);
    const double age_s = extra_ms() / 1000.0, cap_s = cap_ms_ / 1000.0;
    m = msg("run.deciding",
            {{"n", static_cast<long long>(open.size())},
             {"c", open.empty() ? json("") : comparison_message(open[0]->to_json())},
             {"s", age_s},
             {"cap", cap_s}});
    f = std::clamp(cap_s > 0.0 ? age_s / cap_s : 0.99, 0.0, 0.99);
  }
  return json{{"done", complete},
              {"fraction", f},
              {"message", english(m)},
              {"i18n", m},
              {"series", new_points}}
      .dump();
}

std::string ChunkedRun::result_json() const {
  const BandScope band(band_);
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
