// looplab/experiment.hpp — what an experiment is, and the registry of all of them.
//
// An experiment declares its text (the question, what to try, the mechanism), its parameters
// (params.hpp), its plots, the figures it quotes from the seed threads, and how to start a run.
// The CLI, the wasm module, the page and the widgets all read these declarations, so adding an
// experiment means adding one file (experiment_<id>.cpp) and one line in the registry.
//
//   const Experiment& e = find_experiment("standardization");   // throws ConfigError
//   auto run = e.start(validate_params(e.id, e.params, config));
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "looplab/api.hpp"
#include "looplab/params.hpp"

namespace looplab {

struct Experiment {
  std::string id, title, question;
  json explanation;  // {"intro", "try", "mechanism"}: shown by `describe`, the page and the widget
  std::vector<ParamSpec> params;
  bool takes_csv = false;  // accepts the user's own data as the config's "csv" field (csv.hpp)
  json plots;   // [{"id","title","x","y","x_label","y_label","log_x","log_y","series":[...]}]
  json quoted;  // [{"label","value","source"}]: figures from the seed threads, labelled as quoted
  // Checks rules that involve several parameters (e.g. x_min < x_max); throws ConfigError.
  std::function<void(const Params&)> check;
  std::function<std::unique_ptr<ExperimentRun>(const Params&)> start;

  json describe() const;
};

const std::vector<Experiment>& experiments();
const Experiment& find_experiment(const std::string& id);

// One builder per experiment file.
Experiment make_standardization_experiment();
Experiment make_execution_modes_experiment();
Experiment make_retracing_experiment();
Experiment make_unroll_experiment();
Experiment make_pipelines_experiment();

}  // namespace looplab
