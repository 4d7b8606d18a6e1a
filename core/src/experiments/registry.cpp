// registry.cpp — every experiment (the list is LOOPLAB_EXPERIMENTS in experiment.hpp), found by id.
#include <stdexcept>

#include "looplab/base/i18n.hpp"
#include "looplab/experiments/experiment.hpp"

namespace looplab {

namespace {

// A describe text: the catalog's in lang, else in English (which must have it).
std::string text(const std::string& key, std::string_view lang) {
  if (const std::string* t = catalog_text(key, lang)) return *t;
  throw std::logic_error("no text " + key + " in core/i18n/en.json");
}

// The texts a plot of this type shows: every plot a title; lines and contours two axis labels,
// bars a value label, heatmaps a unit.
json plot_in(json plot, const std::string& id, std::string_view lang) {
  const std::string type = plot.value("type", "line"),
                    key = "plot." + id + "." + plot["id"].get<std::string>() + ".";
  std::vector<const char*> fields = {"title"};
  if (type == "line" || type == "contour") fields.insert(fields.end(), {"x_label", "y_label"});
  if (type == "bars") fields.push_back("y_label");
  if (type == "heatmap") fields.push_back("unit");
  for (const char* f : fields) plot[f] = text(key + f, lang);
  return plot;
}

}  // namespace

std::string Experiment::title(std::string_view lang) const {
  return text("exp." + id + ".title", lang);
}
std::string Experiment::question(std::string_view lang) const {
  return text("exp." + id + ".question", lang);
}

json Experiment::describe(std::string_view lang) const {
  const std::string e = "exp." + id + ".";
  json explanation = json::object();
  for (const char* part : {"intro", "try", "mechanism"}) explanation[part] = text(e + part, lang);
  json params_json = json::array();
  for (const auto& p : params)
    params_json.push_back(p.describe(text("param." + id + "." + p.name, lang), lang));
  json plots_json = json::array();
  for (const json& p : plots) plots_json.push_back(plot_in(p, id, lang));
  json quoted = json::array();
  for (std::size_t i = 0; i < quoted_sources.size(); ++i) {
    const std::string q = "quoted." + id + "." + std::to_string(i) + ".";
    json entry = object({{"label", text(q + "label", lang)},
                         {"value", text(q + "value", lang)},
                         {"source", text(std::string("source.") + quoted_sources[i], lang)}});
    // The figure as the thread wrote it (Chinese or Indonesian), beside a translation of it.
    if (const std::string* original = catalog_text(q + "original", lang); original && lang != "en")
      entry["original"] = *original;
    quoted.push_back(entry);
  }
  json tensorflow = json::array();
  for (int i = 0;; ++i) {
    const std::string t = "tf." + id + "." + std::to_string(i) + ".";
    if (!catalog_text(t + "looplab", "en")) break;
    tensorflow.push_back(object(
        {{"looplab", text(t + "looplab", lang)}, {"tensorflow", text(t + "tensorflow", lang)}}));
  }
  return object({{"id", id},
                 {"title", title(lang)},
                 {"question", question(lang)},
                 {"explanation", explanation},
                 {"parameters", params_json},
                 {"plots", plots_json},
                 {"quoted", quoted},
                 {"tensorflow", tensorflow},
                 {"takes_csv", takes_csv}});
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
  refuse("err.must_be", {{"name", "experiment"},
                         {"allowed", msg("allowed.one_of", {{"choices", ids}})},
                         {"got", shown_value(json(id))}});
}

json with_assignments(json config, const std::vector<std::string>& assignments) {
  const Experiment& e = find_experiment(config.value("experiment", std::string()));
  for (const auto& s : assignments) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0)
      refuse("cli.err_set_form", {{"got", shown_value(json(s))}});
    const std::string name = s.substr(0, eq), text = s.substr(eq + 1);
    const ParamSpec* spec = nullptr;
    for (const auto& p : e.params)
      if (p.name == name) spec = &p;
    config[name] =
        spec ? parse_param_text(*spec, text) : json(text);  // unknown names fail validation
  }
  return config;
}

json with_assignments(json config, const std::vector<const char*>& assignments) {
  return with_assignments(std::move(config),
                          std::vector<std::string>(assignments.begin(), assignments.end()));
}

}  // namespace looplab
