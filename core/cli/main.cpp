// looplab — the command-line runner.
//
//   looplab list
//   looplab describe standardization
//   looplab run standardization --set lr_raw=1e-3 --json out.json --csv out.csv
//   looplab run standardization --data mine.csv --set x=height --set y=weight
//   looplab --lang zh-CN run standardization       (en, zh-CN, id; else LC_ALL, LC_MESSAGES, LANG)
//
// Bad input exits with code 2 and one line naming the parameter and what it allows.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "looplab/api/api.hpp"
#include "looplab/base/i18n.hpp"
#include "looplab/experiments/experiment.hpp"
#include "looplab/experiments/results.hpp"

namespace looplab {
namespace {

constexpr int kBadInput = 2;

// The language of everything printed: --lang, else the locale (set in main).
std::string g_lang = "en";

std::string tr(const std::string& key, json args = json::object()) {
  return render(msg(key, std::move(args)), g_lang);
}

// A text of describe() in the student's language: its catalog entry when there is one (the
// experiments' own texts are English), else the text itself.
std::string localized(const std::string& key, const json& english_text) {
  const Catalog& c = catalog(g_lang);
  const auto it = c.find(key);
  if (it != c.end()) return it->second;
  return english_text.is_string() ? english_text.get<std::string>() : english_text.dump();
}

// A bad command line: its message (a catalog key and arguments) and then the usage.
struct UsageError : std::runtime_error {
  explicit UsageError(json m) : std::runtime_error(english(m)), text(std::move(m)) {}
  json text;
};

std::string cell(const json& v) {
  if (v.is_null()) return "-";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return tr(v.get<bool>() ? "word.yes" : "word.no");
  if (v.is_number_integer()) return in_language(with_commas(v.get<long long>()), g_lang);
  if (v.is_number()) return in_language(format_sig(v.get<double>(), 4), g_lang);
  // An interval [lo, hi]: each end as a number of this language ("; " where "," is the decimal
  // mark).
  if (v.is_array() && !v.empty() &&
      std::all_of(v.begin(), v.end(), [](const json& x) { return x.is_number(); })) {
    std::string out = "[";
    for (std::size_t i = 0; i < v.size(); ++i)
      out += (i ? (g_lang == "id" ? "; " : ", ") : "") + cell(v[i]);
    return out + "]";
  }
  return v.dump();
}

// The columns a UTF-8 text takes on a terminal: CJK characters take two, others one.
std::size_t display_width(const std::string& text) {
  std::size_t w = 0;
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    const int len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    char32_t cp = len == 1 ? c : c & (0x3F >> (len - 1));
    for (int k = 1; k < len && i + k < text.size(); ++k)
      cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    const bool wide = (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) ||
                      (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
                      (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
                      (cp >= 0xFFE0 && cp <= 0xFFE6);
    w += wide ? 2 : 1;
    i += static_cast<std::size_t>(len);
  }
  return w;
}

// Prints rows of cells as aligned columns (by display width: Chinese labels line up too).
void print_table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width;
  for (const auto& r : rows)
    for (std::size_t c = 0; c < r.size(); ++c) {
      if (width.size() <= c) width.push_back(0);
      width[c] = std::max(width[c], display_width(r[c]));
    }
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t c = 0; c < r.size(); ++c) {
      line += r[c];
      if (c + 1 < r.size()) line += std::string(width[c] - display_width(r[c]) + 2, ' ');
    }
    std::cout << line << "\n";
  }
}

int cmd_list() {
  std::vector<std::vector<std::string>> rows = {{tr("cli.col_id"), tr("cli.col_question")}};
  for (const auto& e : parse_json(list_experiments_json(g_lang)))
    rows.push_back({cell(e["id"]), cell(e["question"])});
  print_table(rows);
  return 0;
}

// describe_json in the reader's language: every text comes from the catalogs already.
int cmd_describe(const std::string& id) {
  const json d = parse_json(describe_json(id, g_lang));
  std::cout << tr("cli.title_line",
                  {{"title", cell(d["title"])}, {"id", id}, {"question", cell(d["question"])}})
            << "\n\n";
  for (const char* key : {"intro", "try", "mechanism"})
    std::cout << cell(d["explanation"][key]) << "\n\n";
  std::vector<std::vector<std::string>> rows = {
      {tr("cli.col_parameter"), tr("cli.col_default"), tr("cli.col_allowed"), tr("cli.col_help")}};
  for (const auto& p : d["parameters"]) {
    std::string help = cell(p["help"]);
    if (p.contains("when")) {  // one value, or any of several
      const json& want = *p["when"].begin();
      std::string value = want.is_string() ? want.get<std::string>() : "";
      for (const json& v : want.is_array() ? want : json::array())
        value += (value.empty() ? "" : tr("ui.or")) + v.get<std::string>();
      help += tr("cli.when", {{"name", p["when"].begin().key()}, {"value", value}});
    }
    rows.push_back({cell(p["name"]), cell(p["default"]), cell(p["allowed"]), help});
  }
  print_table(rows);
  if (!d["tensorflow"].empty()) {
    std::cout << "\n" << tr("cli.tensorflow_terms") << "\n";
    for (const auto& t : d["tensorflow"])
      std::cout << tr("cli.term_line",
                      {{"term", cell(t["looplab"])}, {"meaning", cell(t["tensorflow"])}})
                << "\n";
  }
  if (!d["quoted"].empty()) {
    std::cout << "\n" << tr("cli.quoted_heading") << "\n";
    for (const auto& q : d["quoted"])
      std::cout << tr("cli.quoted_line", {{"label", cell(q["label"])},
                                          {"value", cell(q["value"])},
                                          {"source", cell(q["source"])}})
                << "\n";
  }
  return 0;
}

std::string read_file(const std::string& path, const char* flag = "--config") {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(msg("cli.err_cannot_read", {{"flag", flag}, {"path", path}}));
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_file(const std::string& path, const std::string& text, const char* flag) {
  std::ofstream out(path, std::ios::binary);
  if (!out || !(out << text))
    throw ConfigError(msg("cli.err_cannot_write", {{"flag", flag}, {"path", path}}));
}

// --data: the file's text goes into the config's "csv" field (csv.hpp); `--set x=` and `--set y=`
// choose its columns, unless the experiment has parameters of those names. Returns the other sets.
std::vector<std::string> attach_data(json& config, const Experiment& e,
                                     const std::string& data_path,
                                     const std::vector<std::string>& sets) {
  if (data_path.empty()) return sets;
  json csv = {{"text", read_file(data_path, "--data")},
              {"name", data_path.substr(data_path.find_last_of('/') + 1)}};
  std::vector<std::string> rest;
  for (const auto& s : sets) {
    const std::string name = s.substr(0, s.find('='));
    const bool is_param = std::any_of(e.params.begin(), e.params.end(),
                                      [&](const ParamSpec& p) { return p.name == name; });
    if ((name == "x" || name == "y") && !is_param && s.find('=') != std::string::npos)
      csv[name] = s.substr(2);
    else
      rest.push_back(s);
  }
  config["csv"] = csv;
  return rest;
}

// The config from --config, then --data and --set on top; values of --set are parsed by the
// parameter's type.
json build_config(const std::string& id, const std::string& config_path,
                  const std::string& data_path, const std::vector<std::string>& all_sets) {
  json config = json::object();
  if (!config_path.empty()) {
    try {
      config = parse_json(read_file(config_path));
    } catch (const json::exception& e) {  // parse_error, or out_of_range for a literal like 1e400
      throw ConfigError(msg("cli.err_config_json", {{"path", config_path}, {"what", e.what()}}));
    }
    if (!config.is_object())
      throw ConfigError(msg("cli.err_config_object", {{"path", config_path}}));
    if (config.contains("experiment") && config["experiment"] != id)
      throw ConfigError(
          msg("cli.err_config_other", {{"got", shown_value(config["experiment"])}, {"id", id}}));
  }
  config["experiment"] = id;
  const auto sets = attach_data(config, find_experiment(id), data_path, all_sets);
  return with_assignments(std::move(config), sets);
}

std::string series_csv(const json& result) {
  std::vector<std::string> columns;
  for (const auto& [name, cols] : result["series"].items())
    for (const auto& [col, values] : cols.items())
      if (std::find(columns.begin(), columns.end(), col) == columns.end()) columns.push_back(col);
  std::string out = "series";
  for (const auto& c : columns) out += "," + c;
  out += "\n";
  char buf[40];
  for (const auto& [name, cols] : result["series"].items()) {
    const std::size_t n = cols.begin() == cols.end() ? 0 : cols.begin()->size();
    for (std::size_t i = 0; i < n; ++i) {
      out += name;
      for (const auto& c : columns) {
        out += ",";
        if (cols.contains(c) && i < cols[c].size()) {
          std::snprintf(buf, sizeof buf, "%.9g", cols[c][i].get<double>());
          out += buf;
        }
      }
      out += "\n";
    }
  }
  return out;
}

void print_result(const json& r) {
  std::vector<std::string> keys;
  for (const auto& run : r["runs"])
    for (const auto& [k, v] : run.items())  // generated code is printed by --show-code
      if (k != "generated_code" && std::find(keys.begin(), keys.end(), k) == keys.end())
        keys.push_back(k);
  // The summary's messages in the student's language when the experiment gives them, else its
  // English text; so are the runs' text cells (summary.messages.cells, results.hpp).
  const json& sm = r["summary"];
  const json& m = sm.contains("messages") ? sm["messages"] : sm;
  const json texts =
      m.contains("cells") && m["cells"].contains("runs") ? m["cells"]["runs"] : json();
  // One row per field, one column per run: runs have many fields and few variants.
  std::vector<std::vector<std::string>> rows;
  for (const auto& k : keys) {
    std::vector<std::string> row = {localized("field." + k, json(k))};
    for (std::size_t i = 0; i < r["runs"].size(); ++i) {
      const json& run = r["runs"][i];
      const std::string at = std::to_string(i);
      if (texts.contains(at) && texts[at].contains(k))
        row.push_back(render(texts[at][k], g_lang));
      else if (k == "variant" && run[k].is_string())  // its label when it has one: "raw" → 原始 x
        row.push_back(localized("label." + run[k].get<std::string>(), run[k]));
      else
        row.push_back(run.contains(k) ? cell(run[k]) : "");
    }
    rows.push_back(row);
  }
  print_table(rows);
  std::cout << "\n";
  const auto say = [](const json& v) { return v.is_object() ? render(v, g_lang) : cell(v); };
  for (const auto& h : m["headline"])
    std::cout << tr("cli.headline", {{"label", say(h["label"])},
                                     {"value", say(h["value"])},
                                     {"note", say(h["note"])}})
              << "\n";
  std::cout << "\n" << say(m["reading"]) << "\n";
  if (m.contains("answer")) std::cout << "\n" << say(m["answer"]) << "\n";
  for (const auto& q : m.value("beside_quoted", json::array()))
    std::cout << tr("cli.beside_quoted", {{"measured", say(q["measured"])},
                                          {"quoted", say(q["quoted"])},
                                          {"label", say(q["label"])},
                                          {"why", say(q["why"])}})
              << "\n";
  const json& env = r["environment"];
  std::cout << "\n"
            << tr("cli.measured_on", {{"build", cell(env["build"])},
                                      {"simd", cell(env["simd_kind"])},
                                      {"ns", env["clock_resolution_ns"]}})
            << "\n";
}

// --show-code: the code compiled mode generated for the step (C natively), per run that has it.
void print_generated_code(const json& r) {
  bool any = false;
  for (const auto& run : r.value("runs", json::array()))
    if (run.contains("generated_code")) {
      std::cout << "\n"
                << tr("cli.generated_code", {{"mode", run.value("mode", "compiled")}}) << "\n"
                << run["generated_code"].get<std::string>();
      any = true;
    }
  if (!any) std::cout << "\n" << tr("cli.no_generated_code") << "\n";
}

int cmd_run(const std::vector<std::string>& args) {
  if (args.empty()) throw UsageError(msg("cli.err_which"));
  // `run --config file.json` alone: the file's text goes to the core unchanged, so its messages
  // are exactly those the page and the wasm module give for the same text.
  const bool id_in_file = args[0].rfind("--", 0) == 0;
  const std::string id = id_in_file ? "" : args[0];
  std::string config_path, json_path, csv_path, data_path;
  std::vector<std::string> sets;
  bool show_code = false;
  for (std::size_t i = id_in_file ? 0 : 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) throw UsageError(msg("cli.err_needs_value", {{"option", a}}));
      return args[++i];
    };
    if (a == "--set")
      sets.push_back(value());
    else if (a == "--config")
      config_path = value();
    else if (a == "--json")
      json_path = value();
    else if (a == "--csv")
      csv_path = value();
    else if (a == "--data")
      data_path = value();
    else if (a == "--show-code")
      show_code = true;
    else
      throw UsageError(msg("cli.err_unknown_option", {{"option", a}}));
  }
  if (id_in_file && (config_path.empty() || !sets.empty() || !data_path.empty()))
    throw UsageError(msg("cli.err_which_set"));
  // Text from --set is stored as given; invalid UTF-8 becomes U+FFFD so validation can name it.
  auto run = start_run(id_in_file ? read_file(config_path)
                                  : build_config(id, config_path, data_path, sets)
                                        .dump(-1, ' ', false, json::error_handler_t::replace));
  const bool tty = isatty(fileno(stderr));
  while (!run->advance(200.0)) {
    const json p = parse_json(run->progress_json());
    if (tty)
      std::fprintf(stderr, "\r%3.0f%%  %-50s", 100.0 * p["fraction"].get<double>(),
                   p["message"].get<std::string>().c_str());
  }
  if (tty) std::fprintf(stderr, "\r%60s\r", "");
  const std::string text = run->result_json();
  const json result = parse_json(text);
  print_result(result);
  if (show_code) print_generated_code(result);
  if (!json_path.empty()) write_file(json_path, result.dump(1) + "\n", "--json");
  if (!csv_path.empty()) write_file(csv_path, series_csv(result), "--csv");
  return 0;
}

// `looplab test-configs`: every experiment's small and golden configs (experiment.hpp) as JSON, for
// tests/golden/golden.py; a developer's command, so not in the usage text.
int cmd_test_configs() {
  json out = json::object();
  for (const auto& e : experiments())
    out[e.id] = {{"small", e.small_config}, {"golden", e.golden_configs}};
  std::cout << out.dump(1) << "\n";
  return 0;
}

int main_impl(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    std::cout << tr("cli.usage");
    return args.empty() ? kBadInput : 0;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (args[0] == "list") return cmd_list();
  if (args[0] == "describe") {
    if (rest.size() != 1) throw UsageError(msg("cli.err_describe_which"));
    return cmd_describe(rest[0]);
  }
  if (args[0] == "run") return cmd_run(rest);
  if (args[0] == "test-configs" && rest.empty()) return cmd_test_configs();
  throw UsageError(msg("cli.err_unknown_command", {{"command", args[0]}}));
}

}  // namespace
}  // namespace looplab

int main(int argc, char** argv) {
  using looplab::g_lang;
  std::vector<std::string> args;
  // The language: --lang (anywhere), else the locale's variables, as POSIX orders them.
  for (const char* var : {"LC_ALL", "LC_MESSAGES", "LANG"}) {
    const char* v = std::getenv(var);
    if (v && *v) {
      g_lang = looplab::normalize_lang(v);
      break;
    }
  }
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--lang" && i + 1 < argc)
      g_lang = looplab::normalize_lang(argv[++i]);
    else if (a.rfind("--lang=", 0) == 0)
      g_lang = looplab::normalize_lang(a.substr(7));
    else
      args.push_back(a);
  }
  try {
    return looplab::main_impl(args);
  } catch (const looplab::UsageError& e) {
    std::cerr << "looplab: " << looplab::render(e.text, g_lang) << "\n" << looplab::tr("cli.usage");
    return looplab::kBadInput;
  } catch (const looplab::ConfigError& e) {
    std::cerr << "looplab: " << looplab::render(e.message(), g_lang) << "\n";
    return looplab::kBadInput;
  } catch (const std::exception& e) {
    std::cerr << "looplab: internal error: " << e.what() << "\n";
    return 1;
  }
}
