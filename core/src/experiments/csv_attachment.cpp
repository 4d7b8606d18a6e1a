// csv_attachment.cpp — the config's "csv" field: checked, parsed, summarized.
#include "looplab/experiments/csv_attachment.hpp"

#include "looplab/base/error.hpp"
#include "looplab/base/format.hpp"
#include "looplab/base/i18n.hpp"

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
  return config;
}

}  // namespace looplab
