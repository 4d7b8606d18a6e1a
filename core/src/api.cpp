// api.cpp — the registry and the JSON entry points of api.hpp.
#include "looplab/api.hpp"

#include "looplab/csv.hpp"
#include "looplab/experiment.hpp"
#include "looplab/results.hpp"

namespace looplab {

json Experiment::describe() const {
  json params_json = json::array();
  for (const auto& p : params) params_json.push_back(p.describe());
  return {{"id", id},          {"title", title}, {"question", question}, {"explanation", explanation},
          {"parameters", params_json}, {"plots", plots}, {"quoted", quoted}, {"takes_csv", takes_csv}};
}

const std::vector<Experiment>& experiments() {
  static const std::vector<Experiment> all = {make_standardization_experiment(), make_execution_modes_experiment(),
                                              make_unroll_experiment(), make_retracing_experiment(),
                                              make_pipelines_experiment()};
  return all;
}

const Experiment& find_experiment(const std::string& id) {
  std::string ids;
  for (const auto& e : experiments()) {
    if (e.id == id) return e;
    ids += (ids.empty() ? "" : " | ") + e.id;
  }
  const std::string shown = id.size() > 40 ? id.substr(0, 37) + "..." : id;
  throw ConfigError("experiment: must be one of " + ids + ", got \"" + shown + "\"");
}

namespace {

json parse_config(const std::string& text) {
  json config;
  try {
    config = json::parse(text);
  } catch (const json::parse_error& e) {
    throw ConfigError(std::string("config: not valid JSON (") + e.what() + ")");
  }
  if (!config.is_object()) throw ConfigError("config: must be a JSON object like {\"experiment\": \"standardization\"}");
  if (!config.contains("experiment")) throw ConfigError("experiment: missing; the config needs \"experiment\": \"<id>\"");
  if (!config["experiment"].is_string()) throw ConfigError("experiment: must be a string, got " + config["experiment"].dump());
  return config;
}

// The experiment and its validated parameters.
std::pair<const Experiment*, Params> resolve(const std::string& config_text) {
  json config = parse_config(config_text);
  const Experiment& e = find_experiment(config["experiment"].get<std::string>());
  const json csv = take_csv_config(config, e.id, e.takes_csv);  // data beside the parameters
  Params p = validate_params(e.id, e.params, config);
  if (!csv.is_null()) {
    json values = p.values();
    values["csv"] = csv;
    p = Params(std::move(values));
  }
  if (e.check) e.check(p);
  return {&e, std::move(p)};
}

}  // namespace

std::string list_experiments_json() {
  json out = json::array();
  for (const auto& e : experiments()) out.push_back({{"id", e.id}, {"title", e.title}, {"question", e.question}});
  return out.dump();
}

std::string describe_json(const std::string& id) { return find_experiment(id).describe().dump(); }

std::string validate_config_json(const std::string& config_json) {
  auto [e, p] = resolve(config_json);
  json out = p.values();
  if (out.contains("csv")) out["csv"].erase("text");  // the caller has the file; do not echo megabytes
  out["experiment"] = e->id;
  return out.dump();
}

std::string environment_json() { return environment().dump(); }

std::unique_ptr<ExperimentRun> ExperimentRun::create(const std::string& config_json) {
  auto [e, p] = resolve(config_json);
  return e->start(p);
}

}  // namespace looplab
