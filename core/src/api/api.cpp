// api.cpp — the JSON entry points of api.hpp: parse, validate, check limits, start.
#include "looplab/api/api.hpp"

#include "looplab/base/i18n.hpp"
#include "looplab/data/csv.hpp"
#include "looplab/experiments/csv_attachment.hpp"
#include "looplab/experiments/experiment.hpp"
#include "looplab/experiments/results.hpp"

namespace looplab {

namespace {

// Longer config text is refused unread: no experiment has more than a few dozen parameters, and
// this keeps a pasted file or a hostile page from making the parser build a huge tree.
constexpr std::size_t kMaxConfigBytes = 100'000;

// nlohmann's what() is "[json.exception.parse_error.101] parse error at line 1, column 2: syntax
// error while parsing value - invalid literal; last read: 'x'": keep "line 1, column 2: invalid
// literal; last read: 'x'", which is what a student can act on.
std::string parse_error_text(const std::string& what) {
  std::string s = what;
  if (const auto at = s.find(" at line "); at != std::string::npos) s = s.substr(at + 4);
  if (const auto dash = s.find(" - "); dash != std::string::npos) {
    const auto colon = s.find(": ");
    s = (colon != std::string::npos && colon < dash ? s.substr(0, colon + 2) : std::string()) +
        s.substr(dash + 3);
  }
  return s;
}

// Messages are shown in a page and printed by the CLI: never let bytes that are not UTF-8 (echoed
// from the input by "last read: ...") into them.
std::string valid_utf8(const std::string& s) {
  return json::parse(json(s).dump(-1, ' ', false, json::error_handler_t::replace))
      .get<std::string>();
}

// Inputs that are not UTF-8 JSON at all get a message that says so, before the parser's.
void check_encoding(const std::string& text) {
  const auto starts = [&](const char* bom) { return text.rfind(bom, 0) == 0; };
  if (starts("\xFF\xFE") || starts("\xFE\xFF"))
    throw ConfigError(
        "config: must be UTF-8 text, got UTF-16 (it starts with a UTF-16 byte-order mark)");
  if (const auto nul = text.find('\0'); nul != std::string::npos)
    throw ConfigError("config: must be UTF-8 JSON text, got a NUL byte at offset " +
                      std::to_string(nul));
}

json parse_config(const std::string& text) {
  if (text.size() > kMaxConfigBytes)
    throw ConfigError("config: too long (" + with_commas(static_cast<long long>(text.size())) +
                      " bytes; at most " + with_commas(static_cast<long long>(kMaxConfigBytes)) +
                      ")");
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw ConfigError(
        "config: empty; expected a JSON object like {\"experiment\": \"standardization\"}");
  check_encoding(text);
  json config;
  try {
    config = json::parse(text);
  } catch (const json::parse_error& e) {
    const bool nan_or_inf =
        text.find("NaN") != std::string::npos || text.find("Infinity") != std::string::npos;
    throw ConfigError(valid_utf8("config: not valid JSON at " + parse_error_text(e.what())) +
                      (nan_or_inf ? " (JSON has no NaN or Infinity)" : ""));
  } catch (const json::out_of_range&
               e) {  // a number literal beyond double: "... number overflow parsing '1e400'"
    const std::string what = e.what(), key = "overflow parsing ";
    const auto at = what.find(key);
    throw ConfigError(valid_utf8("config: the number " +
                                 (at == std::string::npos ? what : what.substr(at + key.size())) +
                                 " is beyond the range of a double (about ±1.8e308)"));
  }
  if (!config.is_object())
    throw ConfigError(
        "config: must be a JSON object like {\"experiment\": \"standardization\"}, got " +
        shown_value(config));
  if (!config.contains("experiment")) throw ConfigError(msg("err.experiment_missing"));
  if (!config["experiment"].is_string())
    throw ConfigError("experiment: must be a string, got " + shown_value(config["experiment"]));
  return config;
}

std::string format_bytes(double b) {
  const char* units[] = {"bytes", "KB", "MB", "GB", "TB"};
  int u = 0;
  while (b >= 1000.0 && u < 4) b /= 1000.0, ++u;
  return format_sig(b, 3) + " " + units[u];
}

// Refuses a config whose estimate is over this build's limits, before the run allocates anything.
void check_limits(const Experiment& e, const Params& p) {
  if (!e.estimate) return;  // not yet estimated: see Experiment::estimate
  const Estimate est = e.estimate(p);
  const Limits lim = config_limits();
#ifdef __EMSCRIPTEN__
  const std::string build = "wasm";
#else
  const std::string build = "native";
#endif
  const json drivers =
      est.drivers.empty() ? json() : msg("err.limit_drivers", {{"drivers", est.drivers}});
  if (!(est.bytes <= lim.bytes))
    throw ConfigError(msg("err.limit_bytes", {{"need", format_bytes(est.bytes)},
                                              {"limit", format_bytes(lim.bytes)},
                                              {"build", build},
                                              {"drivers", drivers}}));
  if (!(est.steps <= lim.steps))
    throw ConfigError(
        msg("err.limit_steps",
            {{"need", est.steps}, {"limit", lim.steps}, {"build", build}, {"drivers", drivers}}));
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
  check_limits(e, p);
  return {&e, std::move(p)};
}

}  // namespace

std::string list_experiments_json() {
  json out = json::array();
  for (const auto& e : experiments())
    out.push_back({{"id", e.id}, {"title", e.title}, {"question", e.question}});
  return out.dump();
}

std::string describe_json(const std::string& id) { return find_experiment(id).describe().dump(); }

std::string validate_config_json(const std::string& config_json) {
  auto [e, p] = resolve(config_json);
  json out = p.values();
  if (out.contains("csv"))
    out["csv"].erase("text");  // the caller has the file; do not echo megabytes
  out["experiment"] = e->id;
  return out.dump();
}

std::string environment_json() { return environment().dump(); }

std::unique_ptr<ExperimentRun> start_run(const std::string& config_json) {
  auto [e, p] = resolve(config_json);
  return e->start(p);
}

}  // namespace looplab
