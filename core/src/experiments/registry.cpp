// registry.cpp — every experiment, in the order the page and `looplab list` show them. Adding an
// experiment is one file in this folder and one line here.
#include "looplab/base/i18n.hpp"
#include "looplab/experiments/experiment.hpp"

namespace looplab {

json Experiment::describe() const {
  json params_json = json::array();
  for (const auto& p : params) params_json.push_back(p.describe());
  return {{"id", id},
          {"title", title},
          {"question", question},
          {"explanation", explanation},
          {"parameters", params_json},
          {"plots", plots},
          {"quoted", quoted},
          {"tensorflow", tensorflow},
          {"takes_csv", takes_csv}};
}

const std::vector<Experiment>& experiments() {
  static const std::vector<Experiment> all = {
      make_standardization_experiment(),  make_execution_modes_experiment(),
      make_unroll_experiment(),           make_retracing_experiment(),
      make_call_granularity_experiment(), make_overhead_experiment(),
      make_matrix_experiment(),           make_pipelines_experiment()};
  return all;
}

Limits config_limits() {
#ifdef __EMSCRIPTEN__
  return kWasmLimits;
#else
  return kNativeLimits;
#endif
}

const Experiment& find_experiment(const std::string& id) {
  std::string ids;
  for (const auto& e : experiments()) {
    if (e.id == id) return e;
    ids += (ids.empty() ? "" : " | ") + e.id;
  }
  throw ConfigError(msg("err.must_be", {{"name", "experiment"},
                                        {"allowed", msg("allowed.one_of", {{"choices", ids}})},
                                        {"got", shown_value(json(id))}}));
}

}  // namespace looplab
