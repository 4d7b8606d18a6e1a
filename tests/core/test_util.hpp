// test_util.hpp — small helpers shared by the GoogleTest files.
#pragma once

#include <functional>
#include <string>

#include "looplab/api/api.hpp"
#include "looplab/base/json.hpp"

namespace looplab {

// The ConfigError message validation gives for a config, or "" when it is valid.
inline std::string error_of(const std::string& config) {
  try {
    validate_config_json(config);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

// Runs a config (JSON text) to its end as the CLI and the worker drive it, advancing budget_ms at a
// time, and returns the parsed result. each_progress, if given, sees the progress event taken after
// every advance, the last one once the run is done.
inline json run_to_end(const std::string& config, double budget_ms = 50.0,
                       const std::function<void(const json&)>& each_progress = nullptr) {
  auto run = start_run(config);
  bool done = false;
  while (!done) {
    done = run->advance(budget_ms);
    if (each_progress) each_progress(json::parse(run->progress_json()));
  }
  return json::parse(run->result_json());
}

}  // namespace looplab
