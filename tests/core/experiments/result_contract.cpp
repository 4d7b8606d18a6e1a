// result_contract.cpp — checks results and progress events against result_contract.hpp.
#include "result_contract.hpp"

#include <regex>
#include <set>

#include "looplab/base/error.hpp"
#include "looplab/base/i18n.hpp"
#include "looplab/experiments/comparison.hpp"
#include "looplab/experiments/experiment.hpp"

namespace looplab {
namespace {

std::string type_of(const json& v) {
  if (v.is_boolean()) return "boolean";
  if (v.is_number()) return "number";
  return v.type_name();  // "null", "string", "array", "object"
}

bool has_type(const json& v, const char* type) { return type_of(v) == type; }

// obj[key] when obj is an object holding it, else null: the checks never throw on odd input.
json member(const json& obj, const char* key) {
  return obj.is_object() && obj.contains(key) ? obj[key] : json();
}
bool is_true(const json& obj, const char* key) { return member(obj, key) == json(true); }

using Violations = std::vector<std::string>;

// The exact keys of `keys` (in order) plus `extra`; a violation per missing, extra or mistyped key.
template <std::size_t N>
void check_keys(const json& obj, const ContractKey (&keys)[N], const std::set<std::string>& extra,
                const std::string& what, Violations& out) {
  if (!obj.is_object()) {
    out.push_back(what + ": must be an object, got " + type_of(obj));
    return;
  }
  for (const ContractKey& k : keys) {
    if (!obj.contains(k.key))
      out.push_back(std::string(k.key) + ": missing");
    else if (!has_type(obj[k.key], k.type))
      out.push_back(std::string(k.key) + ": must be " + k.type + ", got " + type_of(obj[k.key]));
  }
  for (const auto& [key, value] : obj.items()) {
    bool known = extra.count(key) > 0;
    for (const ContractKey& k : keys) known = known || key == k.key;
    if (!known) out.push_back(key + ": not a key of the " + what + " contract");
  }
}

// {name: {column: [number or null]}} with the columns of each series of equal length.
void check_series(const json& series, const std::string& where, Violations& out) {
  if (!series.is_object()) return;  // reported by check_keys
  for (const auto& [name, columns] : series.items()) {
    const std::string at = where + "." + name;
    if (!columns.is_object() || columns.empty()) {
      out.push_back(at + ": must be an object of columns, got " + type_of(columns));
      continue;
    }
    std::size_t length = 0;
    bool first = true;
    for (const auto& [column, values] : columns.items()) {
      if (!values.is_array()) {
        out.push_back(at + "." + column + ": must be an array, got " + type_of(values));
        continue;
      }
      for (const auto& v : values)
        if (!v.is_number() && !v.is_null()) {
          out.push_back(at + "." + column + ": must hold numbers or null, got " + type_of(v));
          break;
        }
      if (!first && values.size() != length)
        out.push_back(at + "." + column + ": " + std::to_string(values.size()) +
                      " values, the series' first column has " + std::to_string(length));
      length = first ? values.size() : length;
      first = false;
    }
  }
}

void check_records(const json& rows, const std::string& where, Violations& out) {
  if (!rows.is_array()) return;  // reported by check_keys
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (!rows[i].is_object()) {
      out.push_back(where + "[" + std::to_string(i) + "]: must be an object, got " +
                    type_of(rows[i]));
      return;
    }
}

// summary.comparisons (comparison.hpp): each record complete, and its verdict the one its values
// and spreads give, or, for a paired timing, the one its ratio's interval gives.
void check_comparisons(const json& list, Violations& out) {
  if (!list.is_array()) {
    out.push_back("summary.comparisons: must be an array, got " + type_of(list));
    return;
  }
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json& c = list[i];
    const std::string at = "summary.comparisons[" + std::to_string(i) + "]";
    for (const char* key : {"id", "quantity", "unit", "better", "verdict"})
      if (!member(c, key).is_string()) out.push_back(at + "." + key + ": must be a string");
    for (const char* side : {"a", "b"}) {
      const json m = member(c, side);
      if (!member(m, "label").is_string() || !member(m, "value").is_number() ||
          !member(m, "spread").is_number() || member(m, "spread").get<double>() < 0.0)
        out.push_back(at + "." + side + ": must be {label, value, spread ≥ 0}");
    }
    for (const char* key : {"message", "short"})  // rendered once, by the core
      if (!member(c, key).is_object()) out.push_back(at + "." + key + ": must be a message");
    const bool paired = c.is_object() && c.contains("rounds");
    const std::string computed = verdict_of(c);
    if (computed.empty())
      out.push_back(at + (paired ? ": must have ratio, ci [lo ≤ ratio ≤ hi] and integer rounds"
                                 : ": better must be \"lower\" or \"higher\""));
    else if (member(c, "verdict") != json(computed))
      out.push_back(at + ".verdict: " +
                    (paired ? "its ratio's interval gives \"" : "the values and spreads give \"") +
                    computed + "\", it says " + member(c, "verdict").dump());
  }
}

// summary.beside_quoted: [{label, quoted, measured, why}], all strings.
void check_beside_quoted(const json& list, Violations& out) {
  if (!list.is_array()) {
    out.push_back("summary.beside_quoted: must be an array, got " + type_of(list));
    return;
  }
  for (std::size_t i = 0; i < list.size(); ++i)
    for (const char* key : {"label", "quoted", "measured", "why"})
      if (!member(list[i], key).is_string())
        out.push_back("summary.beside_quoted[" + std::to_string(i) + "]." + key +
                      ": must be a string");
}

// No sentence states a factor below 1 as a gain ("0.72× faster"): the factor must be the winner's.
void check_sentences(const json& v, const std::string& where, Violations& out) {
  if (v.is_string()) {
    static const std::regex kInverted(R"((^|[^0-9.])0\.[0-9]+× (faster|fewer|less|more))");
    if (std::regex_search(v.get_ref<const std::string&>(), kInverted))
      out.push_back(where + ": states a factor below 1 as a gain: " + v.get<std::string>());
  } else if (v.is_object() || v.is_array()) {
    for (const auto& [key, item] : v.items()) check_sentences(item, where + "." + key, out);
  }
}

// summary.messages: the same sentences as messages. In English each renders to the text beside it,
// and in every catalog language without a missing key (⟦key⟧); so do the text cells of the tables
// ("cells") and the summary's text values ("values"), results.hpp: text_messages.
void check_messages(const json& s, const json& result, Violations& out) {
  if (!s.contains("messages")) return;
  const json& m = s["messages"];
  if (!m.is_object()) {
    out.push_back("summary.messages: must be an object, got " + type_of(m));
    return;
  }
  const auto one = [&](const json& message, const json& text, const std::string& at) {
    if (!message.is_object() || !message.contains("key")) {
      out.push_back(at + ": must be a message {key, args}");
      return;
    }
    if (english(message) != text)
      out.push_back(at + ": renders in English as \"" + english(message) +
                    "\", not as the text beside it");
    for (const std::string& lang : languages())
      if (render(message, lang).find("\u27e6") != std::string::npos)
        out.push_back(at + ": a key is missing in " + lang + ": " + render(message, lang));
  };
  for (const char* key : {"headline", "beside_quoted"}) {
    if (!m.contains(key)) continue;
    const json& rows = m[key];
    const json& texts = member(s, key);
    if (!rows.is_array() || !texts.is_array() || rows.size() != texts.size()) {
      out.push_back(std::string("summary.messages.") + key +
                    ": must be an array as long as summary." + key);
      continue;
    }
    for (std::size_t i = 0; i < rows.size(); ++i)
      for (const auto& [field, message] : rows[i].items())
        one(message, member(texts[i], field.c_str()),
            std::string("summary.messages.") + key + "[" + std::to_string(i) + "]." + field);
  }
  for (const char* key : {"reading", "answer"})
    if (m.contains(key)) one(m[key], member(s, key), std::string("summary.messages.") + key);
  if (m.contains("values")) {
    if (!m["values"].is_object()) out.push_back("summary.messages.values: must be an object");
    for (const auto& [key, message] : m["values"].items())
      one(message, member(s, key.c_str()), "summary.messages.values." + key);
  }
  if (m.contains("cells")) {
    if (!m["cells"].is_object()) out.push_back("summary.messages.cells: must be an object");
    for (const auto& [table, rows] : m["cells"].items()) {
      const json records = member(result, table.c_str());
      for (const auto& [row, fields] : rows.items()) {
        const std::string at = "summary.messages.cells." + table + "." + row;
        std::size_t i = 0;
        const bool index = !row.empty() && row.find_first_not_of("0123456789") == std::string::npos;
        if (index) i = std::stoul(row);
        if (!index || !records.is_array() || i >= records.size() || !fields.is_object()) {
          out.push_back(at + ": names no row of " + table);
          continue;
        }
        for (const auto& [field, message] : fields.items())
          one(message, member(records[i], field.c_str()), at + "." + field);
      }
    }
  }
}

void check_summary(const json& s, const json& result, Violations& out) {
  if (!s.is_object()) return;  // reported by check_keys
  if (!s.contains("headline") || !s["headline"].is_array() || s["headline"].empty())
    out.push_back("summary.headline: must be a non-empty array");
  else
    for (std::size_t i = 0; i < s["headline"].size(); ++i) {
      const json& h = s["headline"][i];
      const std::string at = "summary.headline[" + std::to_string(i) + "]";
      if (!h.is_object()) {
        out.push_back(at + ": must be an object, got " + type_of(h));
        continue;
      }
      for (const char* key : {"label", "value"})
        if (!h.contains(key) || !h[key].is_string())
          out.push_back(at + "." + key + ": must be a string");
      for (const auto& [key, value] : h.items())
        if (key != "label" && key != "value" && !(key == "note" && value.is_string()))
          out.push_back(at + "." + key + (key == "note" ? ": must be a string" : ": not allowed"));
    }
  if (!s.contains("reading") || !s["reading"].is_string() ||
      s["reading"].get_ref<const std::string&>().empty())
    out.push_back("summary.reading: must be a non-empty string");
  check_comparisons(member(s, "comparisons"), out);
  if (!member(s, "answer").is_string() || s["answer"].get<std::string>().empty())
    out.push_back("summary.answer: must be a non-empty string");
  if (s.contains("beside_quoted")) check_beside_quoted(s["beside_quoted"], out);
  check_messages(s, result, out);
  check_sentences(s, "summary", out);
}

// config holds every declared parameter and "experiment" (and "csv" when data came with it).
void check_config(const json& config, const Experiment& e, Violations& out) {
  if (!config.is_object()) return;  // reported by check_keys
  if (member(config, "experiment") != json(e.id))
    out.push_back("config.experiment: must be \"" + e.id + "\"");
  std::set<std::string> names = {"experiment"};
  if (e.takes_csv) names.insert("csv");
  for (const ParamSpec& p : e.params) {
    names.insert(p.name);
    if (!config.contains(p.name)) out.push_back("config." + p.name + ": missing");
  }
  for (const auto& [key, value] : config.items())
    if (!names.count(key)) out.push_back("config." + key + ": not a parameter of " + e.id);
}

}  // namespace

std::vector<std::string> check_result(const json& result) {
  Violations out;
  const Experiment* e = nullptr;
  std::set<std::string> tables;
  if (result.is_object() && result.contains("experiment") && result["experiment"].is_string()) {
    const std::string id = result["experiment"];
    try {
      e = &find_experiment(id);
    } catch (const ConfigError&) {
      out.push_back("experiment: \"" + id + "\" is not a registered experiment");
    }
    for (const ResultTable& t : kResultTables)
      if (id == t.experiment) tables.insert(t.key);
  }
  check_keys(result, kResultKeys, tables, "result", out);
  if (!result.is_object()) return out;
  for (const std::string& key : tables) {
    if (!result.contains(key))
      out.push_back(key + ": missing (an extra table of " +
                    result["experiment"].get<std::string>() + ")");
    else if (!result[key].is_array())
      out.push_back(key + ": must be an array, got " + type_of(result[key]));
    else
      check_records(result[key], key, out);
  }
  if (e && result.contains("config")) check_config(result["config"], *e, out);
  if (result.contains("series")) check_series(result["series"], "series", out);
  if (result.contains("runs")) check_records(result["runs"], "runs", out);
  if (result.contains("summary")) check_summary(result["summary"], result, out);
  return out;
}

std::vector<std::string> check_progress(const json& event) {
  Violations out;
  check_keys(event, kProgressKeys, {"i18n"}, "progress", out);
  if (!event.is_object()) return out;
  const bool done = is_true(event, "done");
  if (event.contains("fraction") && event["fraction"].is_number()) {
    const double f = event["fraction"];
    if (!(f >= 0.0 && f <= 1.0)) out.push_back("fraction: must be in [0, 1]");
    if (done && f != 1.0) out.push_back("fraction: must be 1 when done");
    if (!done && f >= 1.0) out.push_back("fraction: must be below 1 until done");
  }
  if (done && member(event, "message") != json("done"))
    out.push_back("message: must be \"done\" when done");
  if (event.contains("series")) check_series(event["series"], "series", out);
  // Optional: the message as {key, args}, which renders in English as "message" and in every
  // catalog language without a missing key.
  if (event.contains("i18n")) {
    const json& m = event["i18n"];
    if (!m.is_object() || !m.contains("key"))
      out.push_back("i18n: must be a message {key, args}");
    else if (english(m) != member(event, "message"))
      out.push_back("i18n: renders in English as \"" + english(m) + "\", not as message");
    else
      for (const std::string& lang : languages())
        if (render(m, lang).find("\u27e6") != std::string::npos)
          out.push_back("i18n: a key is missing in " + lang + ": " + render(m, lang));
  }
  return out;
}

std::vector<std::string> check_progress_sequence(const std::vector<json>& events,
                                                 const json& result) {
  Violations out;
  json streamed = json::object();
  double last_fraction = 0.0;
  bool was_done = false;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const json& ev = events[i];
    const std::string at = "event " + std::to_string(i) + ": ";
    for (const std::string& v : check_progress(ev)) out.push_back(at + v);
    const json f = member(ev, "fraction");
    if (f.is_number()) {
      if (f.get<double>() < last_fraction) out.push_back(at + "fraction went down");
      last_fraction = f.get<double>();
    }
    const bool done = is_true(ev, "done");
    if (was_done && !done) out.push_back(at + "not done after an event that was");
    was_done = was_done || done;
    const json series = member(ev, "series");
    if (!series.is_object()) continue;
    for (const auto& [name, columns] : series.items()) {
      if (!columns.is_object()) continue;
      for (const auto& [column, values] : columns.items()) {
        json& all = streamed[name][column];
        if (all.is_null()) all = json::array();
        if (values.is_array())
          for (const auto& v : values) all.push_back(v);
      }
    }
  }
  if (!events.empty() && !was_done) out.push_back("the last event is not done");
  const json series = member(result, "series");
  for (const auto& [name, columns] : streamed.items()) {
    if (!series.is_object() || !series.contains(name) || !series[name].is_object()) {
      out.push_back("series." + name + ": streamed in progress but not in the result");
      continue;
    }
    for (const auto& [column, values] : columns.items()) {
      const json full = member(series[name], column.c_str());
      if (values != full)
        out.push_back("series." + name + "." + column +
                      ": the streamed points are not the result's (" +
                      std::to_string(values.size()) + " streamed, " +
                      std::to_string(full.is_array() ? full.size() : 0) + " in the result)");
    }
    for (const auto& [column, values] : series[name].items())
      if (!columns.contains(column))
        out.push_back("series." + name + "." + column + ": in the result but never streamed");
  }
  return out;
}

}  // namespace looplab
