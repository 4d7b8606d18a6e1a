// csv_attachment.cpp — the config's "csv" field: checked, parsed, summarized; a line-fitting
// experiment's data from it or from the parameters.
#include "looplab/experiments/csv_attachment.hpp"

#include "looplab/base/error.hpp"
#include "looplab/base/format.hpp"
#include "looplab/base/i18n.hpp"
#include "looplab/data/xy_data.hpp"
#include "looplab/experiments/common_params.hpp"

namespace looplab {
namespace {

[[noreturn]] void fail(const json& message) { throw ConfigError(message); }

}  // namespace

json CsvData::summary() const {
  return {{"name", name}, {"x", x}, {"y", y}, {"rows", rows}, {"bytes", bytes}};
}

json take_csv_config(json& config, const std::string& experiment, bool accepted) {
  if (!config.is_object() || !config.contains("csv")) return nullptr;
  json csv = config["csv"];
  config.erase("csv");
  if (!accepted) fail(msg("err.csv_not_taken", {{"experiment", experiment}}));
  if (!csv.is_object() || !csv.contains("text")) fail(msg("err.csv_object"));
  for (const auto& [key, value] : csv.items()) {
    if (key != "text" && key != "x" && key != "y" && key != "name")
      fail(msg("err.csv_unknown_field", {{"name", quoted_text(key)}}));
    if (!value.is_string()) fail(msg("err.csv_field_string", {{"field", key}}));
  }
  return csv;
}

std::optional<CsvData> csv_data(const Params& p) {
  if (!p.values().contains("csv")) return std::nullopt;
  const json& c = p.values()["csv"];
  const std::string& text = c["text"].get_ref<const std::string&>();
  const CsvTable t = parse_csv(text);
  if (t.columns.size() < 2)
    fail(msg("err.csv_two_columns", {{"n", static_cast<long long>(t.columns.size())},
                                     {"name", quoted_text(t.columns[0])}}));
  CsvData d;
  d.x = c.contains("x") ? c["x"].get<std::string>() : t.columns.front();
  d.y = c.contains("y") ? c["y"].get<std::string>() : t.columns.back();
  d.name = c.contains("name") ? c["name"].get<std::string>() : "data.csv";
  d.data = select_xy(t, d.x, d.y);
  d.rows = t.rows;
  d.bytes = text.size();
  return d;
}

json config_without_text(const Params& p, const std::optional<CsvData>& csv) {
  json config = p.values();
  if (csv) config["csv"] = csv->summary();
  if (csv && config.contains("data")) config["data"] = "csv";  // the choice the CSV overrides
  return config;
}

namespace {

// The user's CSV must determine a line: two rows at least, and more than one distinct x
// (ConfigError otherwise). Returns its data.
LinearData checked_csv_data(CsvData csv) {
  const Tensor& x = csv.data.x;
  if (csv.rows < 2)
    throw ConfigError(msg("err.csv_two_rows", {{"n", static_cast<long long>(csv.rows)}}));
  for (std::size_t i = 1; i < csv.rows; ++i)
    if (x[i] != x[0]) return std::move(csv.data);
  throw ConfigError(msg("err.csv_one_x", {{"name", csv.x}}));
}

}  // namespace

LinearData line_data(const Params& p, const std::optional<CsvData>& csv) {
  if (csv) return checked_csv_data(*csv);
  if (p.choice("data") == "seed004") return sine_trend_data();
  SyntheticSpec s;
  s.n = static_cast<int>(p.integer("n"));
  s.slope = p.number("slope");
  s.intercept = p.number("intercept");
  s.noise = p.number("noise");
  s.x_min = p.number("x_min");
  s.x_max = p.number("x_max");
  s.seed = static_cast<std::uint64_t>(p.integer("seed"));
  return synthetic_data(s);
}

std::vector<ParamSpec> line_data_params() {
  return {
      choice("data", "seed004", {"seed004", "synthetic"}),
      common::samples(1000, 2).only_when("data", "synthetic"),
      number("slope", 1.0, -1e6, 1e6).only_when("data", "synthetic"),
      number("intercept", 15.0, -1e6, 1e6).only_when("data", "synthetic"),
      number("noise", 10.0, 0.0, 1e6).only_when("data", "synthetic"),
      number("x_min", 0.0, -1e6, 1e6).only_when("data", "synthetic"),
      number("x_max", 100.0, -1e6, 1e6).only_when("data", "synthetic"),
      common::seed().only_when("data", "synthetic"),
  };
}

void check_line_data(const Params& p) {
  if (auto csv = csv_data(p))
    checked_csv_data(std::move(*csv));  // so validation reports a bad file
  if (p.choice("data") == "synthetic" && !(p.number("x_min") < p.number("x_max")))
    throw ConfigError(msg("err.greater_than", {{"name", "x_max"},
                                               {"other", "x_min"},
                                               {"limit", p.number("x_min")},
                                               {"got", p.number("x_max")}}));
}

}  // namespace looplab
