// looplab — the command-line runner.
//
//   looplab list
//   looplab describe standardization
//   looplab run standardization --set lr_raw=1e-3 --json out.json --csv out.csv
//   looplab run standardization --data mine.csv --set x=height --set y=weight
//
// Bad input exits with code 2 and one line naming the parameter and what it allows.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "looplab/api/api.hpp"
#include "looplab/experiments/experiment.hpp"
#include "looplab/experiments/results.hpp"

namespace looplab {
namespace {

constexpr int kBadInput = 2;

const char* kUsage =
    "usage: looplab list\n"
    "       looplab describe <experiment>\n"
    "       looplab run <experiment> [--set name=value ...] [--config file.json] [--json out.json] "
    "[--csv out.csv] [--show-code]\n"
    "                              [--data in.csv [--set x=<column>] [--set y=<column>]]\n"
    "       looplab run --config file.json [--json out.json] [--csv out.csv]   (the file names the "
    "experiment)\n";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string cell(const json& v) {
  if (v.is_null()) return "-";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_number_integer()) return with_commas(v.get<long long>());
  if (v.is_number()) return format_sig(v.get<double>(), 4);
  return v.dump();
}

// Prints rows of cells as aligned columns.
void print_table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width;
  for (const auto& r : rows)
    for (std::size_t c = 0; c < r.size(); ++c) {
      if (width.size() <= c) width.push_back(0);
      width[c] = std::max(width[c], r[c].size());
    }
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t c = 0; c < r.size(); ++c) {
      line += r[c];
      if (c + 1 < r.size()) line += std::string(width[c] - r[c].size() + 2, ' ');
    }
    std::cout << line << "\n";
  }
}

int cmd_list() {
  std::vector<std::vector<std::string>> rows = {{"id", "question"}};
  for (const auto& e : json::parse(list_experiments_json()))
    rows.push_back({cell(e["id"]), cell(e["question"])});
  print_table(rows);
  return 0;
}

int cmd_describe(const std::string& id) {
  const json d = json::parse(describe_json(id));
  std::cout << d["title"].get<std::string>() << " (" << id
            << "): " << d["question"].get<std::string>() << "\n\n";
  for (const char* key : {"intro", "try", "mechanism"})
    if (d["explanation"].contains(key))
      std::cout << d["explanation"][key].get<std::string>() << "\n\n";
  std::vector<std::vector<std::string>> rows = {{"parameter", "default", "allowed", "help"}};
  for (const auto& p : d["parameters"]) {
    std::string help = p["help"].get<std::string>();
    if (p.contains("when"))
      help +=
          " (when " + p["when"].begin().key() + " = " + p["when"].begin()->get<std::string>() + ")";
    rows.push_back({cell(p["name"]), cell(p["default"]), cell(p["allowed"]), help});
  }
  print_table(rows);
  if (!d["tensorflow"].empty()) {
    std::cout << "\nIn TensorFlow terms:\n";
    for (const auto& t : d["tensorflow"])
      std::cout << "  " << cell(t["looplab"]) << ": " << cell(t["tensorflow"]) << "\n";
  }
  if (!d["quoted"].empty()) {
    std::cout << "\nQuoted from the seed threads (not measured here):\n";
    for (const auto& q : d["quoted"])
      std::cout << "  " << cell(q["label"]) << ": " << cell(q["value"]) << " (" << cell(q["source"])
                << ")\n";
  }
  return 0;
}

std::string read_file(const std::string& path, const char* flag = "--config") {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(std::string(flag) + ": cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_file(const std::string& path, const std::string& text, const char* flag) {
  std::ofstream out(path, std::ios::binary);
  if (!out || !(out << text)) throw ConfigError(std::string(flag) + ": cannot write " + path);
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
      config = json::parse(read_file(config_path));
    } catch (const json::exception& e) {  // parse_error, or out_of_range for a literal like 1e400
      throw ConfigError("--config: " + config_path + " is not valid JSON (" + e.what() + ")");
    }
    if (!config.is_object())
      throw ConfigError("--config: " + config_path + " must hold a JSON object");
    if (config.contains("experiment") && config["experiment"] != id)
      throw ConfigError("--config: the file is for experiment " +
                        shown_value(config["experiment"]) + ", not " + id);
  }
  config["experiment"] = id;
  const Experiment& e = find_experiment(id);
  for (const auto& s : attach_data(config, e, data_path, all_sets)) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0)
      throw ConfigError("--set: expected name=value, got " + shown_value(json(s)));
    const std::string name = s.substr(0, eq), text = s.substr(eq + 1);
    const ParamSpec* spec = nullptr;
    for (const auto& p : e.params)
      if (p.name == name) spec = &p;
    config[name] =
        spec ? parse_param_text(*spec, text) : json(text);  // unknown names fail validation
  }
  return config;
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
  // One row per field, one column per run: runs have many fields and few variants.
  std::vector<std::vector<std::string>> rows;
  for (const auto& k : keys) {
    std::vector<std::string> row = {k};
    for (const auto& run : r["runs"]) row.push_back(run.contains(k) ? cell(run[k]) : "");
    rows.push_back(row);
  }
  print_table(rows);
  std::cout << "\n";
  for (const auto& h : r["summary"]["headline"])
    std::cout << cell(h["label"]) << ": " << cell(h["value"]) << "  (" << cell(h["note"]) << ")\n";
  std::cout << "\n" << cell(r["summary"]["reading"]) << "\n";
  if (r["summary"].contains("answer")) std::cout << "\n" << cell(r["summary"]["answer"]) << "\n";
  for (const auto& q : r["summary"].value("beside_quoted", json::array()))
    std::cout << "  measured " << cell(q["measured"]) << " | quoted " << cell(q["quoted"]) << " ("
              << cell(q["label"]) << "): " << cell(q["why"]) << "\n";
  const json& env = r["environment"];
  std::cout << "\nmeasured on: " << cell(env["build"]) << " build, SIMD " << cell(env["simd_kind"])
            << ", clock resolution " << format_sig(env["clock_resolution_ns"].get<double>(), 3)
            << " ns\n";
}

// --show-code: the code compiled mode generated for the step (C natively), per run that has it.
void print_generated_code(const json& r) {
  bool any = false;
  for (const auto& run : r.value("runs", json::array()))
    if (run.contains("generated_code")) {
      std::cout << "\nGenerated code of the " << run.value("mode", "compiled") << " step:\n"
                << run["generated_code"].get<std::string>();
      any = true;
    }
  if (!any)
    std::cout << "\n(no run of this experiment generated code: --show-code needs compiled mode)\n";
}

int cmd_run(const std::vector<std::string>& args) {
  if (args.empty()) throw UsageError("run: which experiment? (see `looplab list`)");
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
      if (i + 1 >= args.size()) throw UsageError(a + ": needs a value");
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
      throw UsageError("run: unknown option " + a);
  }
  if (id_in_file && (config_path.empty() || !sets.empty() || !data_path.empty()))
    throw UsageError("run: which experiment? (--set and --data need `looplab run <experiment>`)");
  // Text from --set is stored as given; invalid UTF-8 becomes U+FFFD so validation can name it.
  auto run = start_run(id_in_file ? read_file(config_path)
                                  : build_config(id, config_path, data_path, sets)
                                        .dump(-1, ' ', false, json::error_handler_t::replace));
  const bool tty = isatty(fileno(stderr));
  while (!run->advance(200.0)) {
    const json p = json::parse(run->progress_json());
    if (tty)
      std::fprintf(stderr, "\r%3.0f%%  %-50s", 100.0 * p["fraction"].get<double>(),
                   p["message"].get<std::string>().c_str());
  }
  if (tty) std::fprintf(stderr, "\r%60s\r", "");
  const std::string text = run->result_json();
  const json result = json::parse(text);
  print_result(result);
  if (show_code) print_generated_code(result);
  if (!json_path.empty()) write_file(json_path, result.dump(1) + "\n", "--json");
  if (!csv_path.empty()) write_file(csv_path, series_csv(result), "--csv");
  return 0;
}

int main_impl(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    std::cout << kUsage;
    return args.empty() ? kBadInput : 0;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (args[0] == "list") return cmd_list();
  if (args[0] == "describe") {
    if (rest.size() != 1) throw UsageError("describe: which experiment? (see `looplab list`)");
    return cmd_describe(rest[0]);
  }
  if (args[0] == "run") return cmd_run(rest);
  throw UsageError("unknown command \"" + args[0] + "\"");
}

}  // namespace
}  // namespace looplab

int main(int argc, char** argv) {
  try {
    return looplab::main_impl(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const looplab::UsageError& e) {
    std::cerr << "looplab: " << e.what() << "\n" << looplab::kUsage;
    return looplab::kBadInput;
  } catch (const looplab::ConfigError& e) {
    std::cerr << "looplab: " << e.what() << "\n";
    return looplab::kBadInput;
  } catch (const std::exception& e) {
    std::cerr << "looplab: internal error: " << e.what() << "\n";
    return 1;
  }
}
