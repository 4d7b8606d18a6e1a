// run.cpp — the run protocol every experiment shares: budget loop, progress, result envelope.
#include "looplab/experiments/run.hpp"

#include <algorithm>

#include "looplab/experiments/experiment.hpp"

namespace looplab {
namespace {

// What the experiment's estimate says its timing rounds take at least (Estimate::timing_ms); 0 for
// a run of no registered experiment (a test's).
double expected_timing_ms(const std::string& id, const Params& params) {
  for (const Experiment& e : experiments())
    if (e.id == id && e.estimate) return e.estimate(params).timing_ms;
  return 0.0;
}

constexpr double kSayExpectedMs = 2000.0;  // from this long on, progress says how long

}  // namespace

ChunkedRun::ChunkedRun(std::string experiment, const Params& params)
    : experiment_(std::move(experiment)),
      params_(params),
      cap_ms_(params.values().contains("max_seconds") ? params.number("max_seconds") * 1000.0
                                                      : 0.0),
      band_(params.values().contains("band") ? params.number("band") : kPracticalBand),
      expected_ms_(expected_timing_ms(experiment_, params_)) {}

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

bool ChunkedRun::done() const {
  const BandScope band(band_);  // the verdicts it asks about are judged against the run's band
  return finished() && !extending();
}

// A paired comparison the rounds decide that is not decided yet.
bool ChunkedRun::TimedRounds::left_open(const Comparison& c) const {
  return c.paired && !c.decided() && (!decides || decides(c.id));
}

bool ChunkedRun::open(const TimedRounds& r, const std::vector<Comparison>& all) const {
  return !r.exhausted &&
         std::any_of(all.begin(), all.end(), [&](const Comparison& c) { return r.left_open(c); });
}

std::vector<const Comparison*> ChunkedRun::undecided(const std::vector<Comparison>& all) const {
  std::vector<const Comparison*> out;
  for (const Comparison& c : all)
    if (std::any_of(rounds_.begin(), rounds_.end(),
                    [&](const TimedRounds& r) { return r.left_open(c); }))
      out.push_back(&c);
  return out;
}

bool ChunkedRun::time_more() {
  for (TimedRounds& r : rounds_)  // a round's turns stay back to back
    if (r.rounds->mid_round()) return r.rounds->turn() || !(r.exhausted = true);
  const std::vector<Comparison> all = comparisons();
  for (std::size_t i = 0; i <= rounds_.size(); ++i) {
    // i = 0: the visited rounds, while their visit lasts; then the others in turn
    const std::size_t at = (visiting_ + i) % std::max<std::size_t>(rounds_.size(), 1);
    if (at >= rounds_.size()) return false;
    TimedRounds& r = rounds_[at];
    if (i == 0 && r.rounds->rounds() >= visit_from_ + r.visit) continue;
    if (!open(r, all)) continue;
    if (i > 0) {
      visiting_ = at;
      visit_from_ = r.rounds->rounds();
    }
    if (r.rounds->turn()) return true;
    r.exhausted = true;
  }
  return false;
}

bool ChunkedRun::extending() const {
  if (no_extra_rounds_) return false;
  for (const TimedRounds& r : rounds_)
    if (r.rounds->mid_round() && !r.exhausted) return true;
  if (extra_ms() >= cap_ms_) return false;
  const std::vector<Comparison> all = comparisons();
  return std::any_of(rounds_.begin(), rounds_.end(),
                     [&](const TimedRounds& r) { return open(r, all); });
}

bool ChunkedRun::extend(double seconds) {
  const BandScope band(band_);
  if (!finished() || rounds_.empty()) return false;
  cap_ms_ = extra_ms() + std::max(0.0, seconds) * 1000.0;
  no_extra_rounds_ = false;
  return true;
}

PairedRounds& ChunkedRun::add_rounds(std::vector<TimedSide> sides, TurnRule rule, Decides decides,
                                     std::size_t visit) {
  const auto seed =
      static_cast<std::uint64_t>(params_.values().contains("seed") ? params_.integer("seed") : 1);
  rounds_.push_back({std::make_unique<PairedRounds>(
                         std::move(sides), seed * 0x9E3779B97F4A7C15ULL + rounds_.size(), rule),
                     std::move(decides), std::max<std::size_t>(visit, 1)});
  return *rounds_.back().rounds;
}

double ChunkedRun::extra_ms() const { return extra_since_ ? extra_since_->elapsed_ms() : 0.0; }

std::string ChunkedRun::progress_json() {
  const BandScope band(band_);
  json new_points = json::object();
  for (auto& s : series_) new_points[s.name] = s.series->take_new();
  const bool complete = done();
  json m = complete ? msg("run.done") : progress_message();
  double f = complete ? 1.0 : std::clamp(fraction(), 0.0, 0.99);
  if (!complete && !finished() && expected_ms_ >= kSayExpectedMs)
    m = msg("run.expect", {{"m", m}, {"s", expected_ms_ / 1000.0}, {"cap", cap_ms_ / 1000.0}});
  if (!complete && finished()) {  // extra timing rounds: how many verdicts are open, the first one
    const std::vector<Comparison> all = comparisons();
    const std::vector<const Comparison*> open = undecided(all);
    const double age_s = extra_ms() / 1000.0, cap_s = cap_ms_ / 1000.0;
    m = msg("run.deciding", {{"n", static_cast<long long>(open.size())},
                             {"c", open.empty() ? json("") : open[0]->message()},
                             {"s", age_s},
                             {"cap", cap_s}});
    // The extra rounds' share of the cap fills what the bar had left: it never goes back.
    f = configured_shown_ +
        (0.99 - configured_shown_) * std::clamp(cap_s > 0.0 ? age_s / cap_s : 1.0, 0.0, 1.0);
  } else if (!complete) {
    configured_shown_ = f;
  }
  shown_ = f = std::max(f, shown_);
  return object({{"done", complete},
                 {"fraction", f},
                 {"message", english(m)},
                 {"i18n", m},
                 {"series", new_points}})
      .dump();
}

std::string ChunkedRun::result_json() const {
  const BandScope band(band_);
  json c = config();
  c["experiment"] = experiment_;
  json result = object({{"experiment", experiment_},
                        {"config", c},
                        {"environment", environment()},
                        {"series", series()},
                        {"runs", runs()}});
  const json extra = tables();
  for (const auto& [key, table] : extra.items()) result[key] = table;
  result["summary"] = summary();
  // "Run longer" has something to offer: paired rounds with a verdict still open.
  result["summary"]["run_longer"] = !undecided(comparisons()).empty();
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
