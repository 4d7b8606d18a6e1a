// small_runs.hpp — every registered experiment on a small config, run to the end with its progress
// events recorded: shared by contract_test.cpp and determinism_test.cpp.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "looplab/api/api.hpp"
#include "looplab/base/json.hpp"
#include "looplab/experiments/experiment.hpp"

namespace looplab {

// Each experiment's defaults with the sizes cut, so that all eight run in a few seconds natively.
// A new experiment needs an entry here (ResultContract.SmallConfigForEveryExperiment).
inline const std::map<std::string, json>& small_configs() {
  static const std::map<std::string, json> configs = {
      {"standardization", {{"data", "synthetic"}, {"n", 300}, {"max_iterations", 3000}}},
      {"execution-modes", {{"n", 1000}, {"batch", 50}, {"epochs", 2}}},
      {"unroll", {{"n", 1000}, {"batch", 100}, {"epochs", 1}}},
      {"retracing", {{"n", 300}}},
      {"call-granularity", {{"n", 1000}, {"epochs", 3}, {"chunk_ms", 0.5}}},
      {"overhead", {{"n_max", 1000}, {"points", 3}, {"repeats", 1}, {"chunk_ms", 0.2}}},
      {"matrix",
       {{"rows_small", 2},
        {"rows_medium", 4},
        {"rows_large", 8},
        {"repeats", 1},
        {"chunk_ms", 0.2}}},
      {"pipelines", {{"n", 1000}, {"epochs", 2}}},
  };
  return configs;
}

struct RecordedRun {
  json result;
  std::vector<json> events;  // every progress event, the last one taken once the run was done
};

// Runs the experiment's small config to the end, advancing budget_ms at a time and taking a
// progress event after every advance, as the CLI and the worker do.
inline RecordedRun run_small(const std::string& id, double budget_ms) {
  json config = small_configs().at(id);
  config["experiment"] = id;
  auto run = start_run(config.dump());
  RecordedRun r;
  while (!run->advance(budget_ms)) r.events.push_back(json::parse(run->progress_json()));
  r.events.push_back(json::parse(run->progress_json()));
  r.result = json::parse(run->result_json());
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
