// api.cpp — the JSON entry points of api.hpp: parse, validate, check limits, start.
#include "looplab/api/api.hpp"

#include "looplab/base/i18n.hpp"
#include "looplab/data/csv.hpp"
#include "looplab/experiments/csv_attachment.hpp"
#include "looplab/experiments/experiment.hpp"
#include "looplab/experiments/results.hpp"
#include "looplab/train/graph_trainer.hpp"

namespace looplab {

namespace {

// Longer config text is refused unread: no experiment has more than a few dozen parameters, and
// this keeps a pasted file or a hostile page from making the parser build a huge tree.
constexpr std::size_t kMaxConfigBytes = 100'000;

// Messages are shown in a page and printed by the CLI: never let bytes that are not UTF-8 (echoed
// from the input by "last read: ...") into them.
std::string valid_utf8(const std::string& s) {
  return parse_json(json(s).dump(-1, ' ', false, json::error_handler_t::replace))
      .get<std::string>();
}

// nlohmann's words for a token ("end of input"), as a message; punctuation ("'}'") as it is.
json token_message(const std::string& token) {
  if (token == "end of input") return msg("err.json_end");
  if (token == "string literal") return msg("err.json_string");
  if (token == "number literal") return msg("err.json_number");
  if (token == "'[', '{', or a literal") return msg("err.json_value");
  for (const char* word : {"true", "false", "null"})
    if (token == std::string(word) + " literal") return msg("err.json_literal", {{"word", word}});
  return msg("err.text", {{"text", token}});
}

// The lexer's complaint ("invalid literal") as a message; one it has no key for, as its text.
json lexer_message(const std::string& what) {
  static const std::pair<const char*, const char*> kKnown[] = {
      {"invalid literal", "err.json_invalid_literal"},
      {"invalid string: missing closing quote", "err.json_missing_quote"},
      {"invalid string: ill-formed UTF-8 byte", "err.json_bad_utf8"},
      {"invalid string: '\\u' must be followed by 4 hex digits", "err.json_hex"},
      {"invalid string: surrogate U+D800..U+DBFF must be followed by U+DC00..U+DFFF",
       "err.json_surrogate_high"},
      {"invalid string: surrogate U+DC00..U+DFFF must follow U+D800..U+DBFF",
       "err.json_surrogate_low"},
      {"invalid string: forbidden character after backslash", "err.json_backslash"},
      {"invalid number; expected digit after '-'", "err.json_digit_minus"},
      {"invalid number; expected digit after '.'", "err.json_digit_point"},
      {"invalid number; expected digit after exponent sign", "err.json_digit_exponent"},
      {"invalid BOM; must be 0xEF 0xBB 0xBF if given", "err.json_bom"}};
  for (const auto& [text, key] : kKnown)
    if (what == text) return msg(key);
  // "invalid string: control character U+000A (LF) must be escaped to \u000A or \n"
  const std::string control = "invalid string: control character ", to = " must be escaped to ";
  const auto at = what.find(to);
  if (what.rfind(control, 0) == 0 && at != std::string::npos) {
    const std::string code = what.substr(control.size(), at - control.size());
    const std::string escape = what.substr(at + to.size());
    const auto alt = escape.find(" or ");
    if (alt == std::string::npos)
      return msg("err.json_control", {{"code", code}, {"escape", escape}});
    return msg(
        "err.json_control_or",
        {{"code", code}, {"escape", escape.substr(0, alt)}, {"alt", escape.substr(alt + 4)}});
  }
  return msg("err.text", {{"text", what}});
}

// nlohmann's what() is "[json.exception.parse_error.101] parse error at line 1, column 2: syntax
// error while parsing value - invalid literal; last read: 'x'; expected end of input". A student
// can act on the place and on what was wrong, "line 1, column 2: invalid literal; last read: 'x';
// expected end of input", which is the message, its parts in the student's language. Text in
// another form (another nlohmann version) is kept as it is, in English.
json parse_error_message(const std::string& what, bool nan_or_inf) {
  const json nan = nan_or_inf ? msg("err.json_nan") : json();
  const auto fallback = [&] {
    std::string s = what;
    if (const auto at = s.find(" at line "); at != std::string::npos) s = s.substr(at + 4);
    if (const auto dash = s.find(" - "); dash != std::string::npos) {
      const auto colon = s.find(": ");
      s = (colon != std::string::npos && colon < dash ? s.substr(0, colon + 2) : std::string()) +
          s.substr(dash + 3);
    }
    return msg(
        "seq",
        {{"items",
          json::array(
              {msg("err.text", {{"text", "config: not valid JSON at " + valid_utf8(s)}}), nan})}});
  };
  const auto at = what.find(" at line "), comma = what.find(", column "),
             colon = what.find(": ", comma == std::string::npos ? 0 : comma),
             dash = what.find(" - ", colon == std::string::npos ? 0 : colon);
  if (at == std::string::npos || comma == std::string::npos || colon == std::string::npos ||
      dash == std::string::npos || !(at < comma && comma < colon))
    return fallback();
  const std::string line = what.substr(at + 9, comma - at - 9),
                    column = what.substr(comma + 9, colon - comma - 9);
  if (line.empty() || column.empty() || line.find_first_not_of("0123456789") != std::string::npos ||
      column.find_first_not_of("0123456789") != std::string::npos)
    return fallback();
  std::string detail = what.substr(dash + 3);
  json expected;  // "; expected <token>" at the end
  if (const auto e = detail.rfind("; expected "); e != std::string::npos) {
    const std::string token = detail.substr(e + 11);
    if (token_message(token)["key"] != "err.text" || token.size() <= 3) {
      expected = msg("err.json_expected", {{"token", token_message(token)}});
      detail = detail.substr(0, e);
    }
  }
  json head;
  if (detail.rfind("unexpected ", 0) == 0) {
    head = msg("err.json_unexpected", {{"token", token_message(detail.substr(11))}});
  } else if (const auto r = detail.find("; last read: "); r != std::string::npos) {
    head = msg("err.json_last_read", {{"what", lexer_message(detail.substr(0, r))},
                                      {"last", valid_utf8(detail.substr(r + 13))}});
  } else {
    head = msg("err.text", {{"text", valid_utf8(detail)}});
  }
  const json m =
      msg("err.json_syntax", {{"line", std::stoll(line)},
                              {"column", std::stoll(column)},
                              {"detail", msg("seq", {{"items", json::array({head, expected})}})},
                              {"nan", nan}});
  // The English must say exactly what nlohmann said: where the parts do not add up, its text.
  const json plain = fallback();
  return english(m) == english(plain) ? m : plain;
}

// Inputs that are not UTF-8 JSON at all get a message that says so, before the parser's.
void check_encoding(const std::string& text) {
  const auto starts = [&](const char* bom) { return text.rfind(bom, 0) == 0; };
  if (starts("\xFF\xFE") || starts("\xFE\xFF")) throw ConfigError(msg("err.config_utf16"));
  if (const auto nul = text.find('\0'); nul != std::string::npos)
    throw ConfigError(msg("err.config_nul", {{"offset", std::to_string(nul)}}));
}

json parse_config(const std::string& text) {
  if (text.size() > kMaxConfigBytes)
    throw ConfigError(
        msg("err.config_too_long", {{"bytes", static_cast<long long>(text.size())},
                                    {"max", static_cast<long long>(kMaxConfigBytes)}}));
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw ConfigError(msg("err.config_empty"));
  check_encoding(text);
  json config;
  try {
    config = parse_json(text);
  } catch (const json::parse_error& e) {
    const bool nan_or_inf =
        text.find("NaN") != std::string::npos || text.find("Infinity") != std::string::npos;
    throw ConfigError(parse_error_message(e.what(), nan_or_inf));
  } catch (const json::out_of_range&
               e) {  // a number literal beyond double: "... number overflow parsing '1e400'"
    const std::string what = e.what(), key = "overflow parsing ";
    const auto at = what.find(key);
    throw ConfigError(msg(
        "err.json_number_range",
        {{"number", valid_utf8(at == std::string::npos ? what : what.substr(at + key.size()))}}));
  }
  if (!config.is_object())
    throw ConfigError(msg("err.config_like", {{"got", shown_value(config)}}));
  if (!config.contains("experiment")) throw ConfigError(msg("err.experiment_missing"));
  if (!config["experiment"].is_string())
    throw ConfigError(msg("err.experiment_string", {{"got", shown_value(config["experiment"])}}));
  return config;
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
    throw ConfigError(
        msg("err.limit_bytes",
            {{"need", est.bytes}, {"limit", lim.bytes}, {"build", build}, {"drivers", drivers}}));
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

std::string list_experiments_json(const std::string& lang) {
  const std::string l = normalize_lang(lang);
  json out = json::array();
  for (const auto& e : experiments())
    out.push_back(object({{"id", e.id}, {"title", e.title(l)}, {"question", e.question(l)}}));
  return out.dump();
}

std::string describe_json(const std::string& id, const std::string& lang) {
  return find_experiment(id).describe(normalize_lang(lang)).dump();
}

std::string validate_config_json(const std::string& config_json) {
  auto [e, p] = resolve(config_json);
  json out = p.values();
  if (out.contains("csv"))
    out["csv"].erase("text");  // the caller has the file; do not echo megabytes
  out["experiment"] = e->id;
  return out.dump();
}

std::string environment_json() { return environment().dump(); }

void warm_up() { warm_up_engines(); }

std::unique_ptr<ExperimentRun> start_run(const std::string& config_json) {
  auto [e, p] = resolve(config_json);
  return e->start(p);
}

}  // namespace looplab
