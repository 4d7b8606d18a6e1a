// determinism_test.cpp — every experiment's small config, run twice, gives the same result apart
// from what the clock decides: the losses, iteration counts, trace reasons and keys of the timing
// experiments included. The two runs advance with different budgets, so the result must not depend
// on where advance() cut the work either. (wasm/test/reliability.test.mjs checks four experiments
// the same way in the wasm build.)
#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "small_runs.hpp"

namespace looplab {
namespace {

// What follows the clock: the environment; the sentences that quote times (headline, reading);
// every key named with a time unit (first_call_ms, steady_step_us, b_ns_per_point, the "ms" and
// "us" columns of a series) or a wall time; and the keys computed from timings: which mode was
// fastest, the seed-001 percentages between modes, ratios of times, fitted crossovers, how many
// chunks or paired rounds a time filled; and whether compiled code was found already built.
// time_steps() also decides how many steps it takes (steps_per_chunk), so next to steps_per_chunk
// "steps" follows the clock too.
bool follows_clock(const std::string& key) {
  static const std::regex clock(
      "^(environment|headline|reading|answer|beside_quoted)$"  // sentences quoting times
      "|(^|_)(ms|us|ns)(_|$)|wall"                             // times
      "|^(fastest|cells_won|wins_every_cell.*)$"               // which mode was fastest
      "|_pct(_|$)|speedup$|^crossover_n$"                      // ratios of times, fits
      "|^(steps_per_chunk|chunks|rounds|epochs_per_round)$"    // how much a timed chunk took
      "|^run_longer$"     // whether a timing verdict is still open
      "|^code_cached$");  // the first run of a program builds its code, a second finds it built
  return std::regex_search(key, clock);
}

// A comparison of times or rates follows the clock (values, spreads, verdict); of losses and
// counts it does not.
json untimed_comparisons(const json& list) {
  json out = json::array();
  for (const json& c : list)
    if (c.value("quantity", "") != "time" && c.value("quantity", "") != "rate") out.push_back(c);
  return out;
}

json without_timings(const json& v) {
  if (v.is_array()) {
    json out = json::array();
    for (const auto& x : v) out.push_back(without_timings(x));
    return out;
  }
  if (!v.is_object()) return v;
  json out = json::object();
  for (const auto& [key, value] : v.items())
    if (!follows_clock(key) && !(key == "steps" && v.contains("steps_per_chunk")))
      out[key] = key == "comparisons" ? untimed_comparisons(value) : without_timings(value);
  return out;
}

class EveryExperimentTwice : public testing::TestWithParam<std::string> {};

TEST_P(EveryExperimentTwice, SameResultApartFromTimings) {
  const json a = without_timings(run_small(GetParam(), 1.0).result);
  const json b = without_timings(run_small(GetParam(), 100.0).result);
  EXPECT_EQ(a, b) << "what differs (a JSON patch from the first run to the second): "
                  << json::diff(a, b).dump();
  EXPECT_GT(a["runs"].dump().size(), 100u) << "something left to compare: " << a["runs"].dump();
}

INSTANTIATE_TEST_SUITE_P(Determinism, EveryExperimentTwice, testing::ValuesIn(experiment_ids()),
                         [](const auto& info) { return test_name(info.param); });

TEST(Determinism, TimingsAreStrippedAndTheRestKept) {
  const json r = {{"steady_step_us", 3.0},
                  {"first_call_ms", 1.0},
                  {"b_ns_per_point", 2.0},
                  {"final_loss", 0.5},
                  {"points", {{{"n", 10}, {"steps", 64}, {"steps_per_chunk", 32}}}},
                  {"runs", {{{"steps", 100}, {"diverged", false}}}}};
  const json expected = {{"final_loss", 0.5},
                         {"points", {{{"n", 10}}}},
                         {"runs", {{{"steps", 100}, {"diverged", false}}}}};
  EXPECT_EQ(without_timings(r), expected);
}

}  // namespace
}  // namespace looplab
