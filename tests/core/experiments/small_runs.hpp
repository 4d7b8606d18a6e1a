// small_runs.hpp — every registered experiment on its small config, run to the end with its
// progress events recorded: shared by the contract, determinism and language tests.
#pragma once

#include <string>
#include <vector>

#include "looplab/api/api.hpp"
#include "looplab/base/json.hpp"
#include "looplab/experiments/experiment.hpp"
#include "test_util.hpp"

namespace looplab {

// An experiment's small config (Experiment::small_config: its defaults with the sizes cut, so that
// all eight run in a few seconds natively), as a config object.
inline json small_config_of(const std::string& id) {
  return with_assignments({{"experiment", id}}, find_experiment(id).small_config);
}

struct RecordedRun {
  json result;
  std::vector<json> events;  // every progress event, the last one taken once the run was done
};

// Runs the experiment's small config to the end, advancing budget_ms at a time and taking a
// progress event after every advance, as the CLI and the worker do.
inline RecordedRun run_small(const std::string& id, double budget_ms, const json& changes = {}) {
  json config = small_config_of(id);
  if (changes.is_object()) config.update(changes);
  RecordedRun r;
  r.result = run_to_end(config.dump(), budget_ms, [&](const json& p) { r.events.push_back(p); });
  return r;
}

// The registered ids, for parameterized tests; test names may not hold '-'.
inline std::vector<std::string> experiment_ids() {
  std::vector<std::string> ids;
  for (const auto& e : experiments()) ids.push_back(e.id);
  return ids;
}
inline std::string test_name(const std::string& id) {
  std::string name = id;
  for (char& c : name)
    if (c == '-') c = '_';
  return name;
}

}  // namespace looplab
