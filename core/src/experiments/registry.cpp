// registry.cpp — every experiment (the list is LOOPLAB_EXPERIMENTS in experiment.hpp), found by id.
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
#define LOOPLAB_BUILD_EXPERIMENT(file_name) make_##file_name##_experiment(),
  static const std::vector<Experiment> all = {LOOPLAB_EXPERIMENTS(LOOPLAB_BUILD_EXPERIMENT)};
#undef LOOPLAB_BUILD_EXPERIMENT
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

json with_assignments(json config, const std::vector<std::string>& assignments) {
  const Experiment& e = find_experiment(config.value("experiment", std::string()));
  for (const auto& s : assignments) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0)
      throw ConfigError(msg("cli.err_set_form", {{"got", shown_value(json(s))}}));
    const std::string name = s.substr(0, eq), text = s.substr(eq + 1);
    const ParamSpec* spec = nullptr;
    for (const auto& p : e.params)
      if (p.name == name) spec = &p;
    config[name] =
        spec ? parse_param_text(*spec, text) : json(text);  // unknown names fail validation
  }
  return config;
}

}  // namespace looplab
