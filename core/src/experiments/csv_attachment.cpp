// csv_attachment.cpp — the config's "csv" field: checked, parsed, summarized; a line-fitting
// experiment's data from it or from the parameters.
#include "looplab/experiments/csv_attachment.hpp"

#include <Eigen/Core>
#include <cmath>

#include "looplab/base/error.hpp"
#include "looplab/base/format.hpp"
#include "looplab/base/i18n.hpp"
#include "looplab/data/xy_data.hpp"
#include "looplab/experiments/common_params.hpp"
#include "looplab/train/linear.hpp"

namespace looplab {

json CsvData::summary() const {
  return object({{"name", name}, {"x", x}, {"y", y}, {"rows", rows}, {"bytes", bytes}});
}

json take_csv_config(json& config, const std::string& experiment, bool accepted) {
  if (!config.is_object() || !config.contains("csv")) return nullptr;
  json csv = config["csv"];
  config.erase("csv");
  if (!accepted) refuse("err.csv_not_taken", {{"experiment", experiment}});
  if (!csv.is_object() || !csv.contains("text")) refuse("err.csv_object");
  for (const auto& [key, value] : csv.items()) {
    if (key != "text" && key != "x" && key != "y" && key != "name")
      refuse("err.csv_unknown_field", {{"name", quoted_text(key)}});
    if (!value.is_string()) refuse("err.csv_field_string", {{"field", key}});
  }
  return csv;
}

std::optional<CsvData> csv_data(const Params& p) {
  if (!p.values().contains("csv")) return std::nullopt;
  const json& c = p.values()["csv"];
  const std::string& text = c["text"].get_ref<const std::string&>();
  const CsvTable t = parse_csv(text);
  if (t.columns.size() < 2)
    refuse("err.csv_two_columns",
           {{"n", static_cast<long long>(t.columns.size())}, {"name", quoted_text(t.columns[0])}});
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

// The user's CSV must determine a line: two rows at least, and every x column taking more than one
// value (ConfigError otherwise).
void check_csv_data(const CsvData& csv) {
  const Tensor& x = csv.data.x;
  if (csv.rows < 2) refuse("err.csv_two_rows", {{"n", static_cast<long long>(csv.rows)}});
  const std::size_t d = static_cast<std::size_t>(x.shape().cols);
  for (std::size_t j = 0; j < d; ++j) {
    bool varies = false;
    for (std::size_t i = 1; i < csv.rows && !varies; ++i) varies = x[i * d + j] != x[j];
    if (!varies) {
      std::string name = csv.x;  // of "a,b,c", the j-th
      for (std::size_t k = 0; k < j; ++k) name = name.substr(name.find(',') + 1);
      refuse("err.csv_one_x", {{"name", name.substr(0, name.find(','))}});
    }
  }
}

// Beyond this κ of the standardized features, their smallest eigenvalue is rounding noise of the
// float data (it can come out ≤ 0, and the theory's rates with it) ...
constexpr double kMaxStandardizedKappa = 1e12;
// ... and beyond this κ of the raw loss (features and intercept), double precision cannot resolve
// its smallest eigenvalue (synthetic data's cubic on x in [0, 100] is 2.9e12, the seed's 2.3e12).
constexpr double kMaxRawKappa = 1e15;

// κ of the least-squares loss over the features x and an intercept, as the runs' theory computes
// it (Quadratic), but from the (d+1)² sums alone: validation runs on every edit, with n up to 10⁶,
// and before the memory limits are checked. Raw, or with the features centred and scaled to unit
// spread (the intercept then apart). +∞, or a negative or huge number from rounding, when a column
// is a combination of the others, as when there are no more distinct rows than features.
double loss_condition(const Tensor& x, bool standardized) {
  const std::size_t n = static_cast<std::size_t>(x.shape().rows);
  const std::size_t d = static_cast<std::size_t>(x.shape().cols), m = standardized ? d : d + 1;
  std::vector<double> mean(m, 0.0), row(m, 1.0);  // raw: the intercept's 1 stays last in row
  if (standardized)
    for (std::size_t i = 0; i < n * d; ++i) mean[i % d] += x[i] / static_cast<double>(n);
  std::vector<double> sums(m * m, 0.0);  // row a, column b ≤ a
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < d; ++j) row[j] = x[i * d + j] - mean[j];
    for (std::size_t a = 0; a < m; ++a)
      for (std::size_t b = 0; b <= a; ++b) sums[a * m + b] += row[a] * row[b];
  }
  Eigen::MatrixXd h(m, m);
  for (std::size_t a = 0; a < m; ++a)
    for (std::size_t b = 0; b <= a; ++b) {
      const double scale = standardized ? std::sqrt(sums[a * m + a] * sums[b * m + b]) : 1.0;
      if (!(scale > 0.0)) return INFINITY;  // a column of one value (refused before for a CSV)
      h(a, b) = h(b, a) = sums[a * m + b] / scale;
    }
  const Eigen::VectorXd lambda = symmetric_eigen(h, false).values;
  return lambda(static_cast<Eigen::Index>(m) - 1) / lambda(0);
}

bool within(double kappa, double limit) { return kappa > 0.0 && kappa <= limit; }

// "a, b" of "a,b"; "x, x², x³" for the powers of one column.
std::string feature_names(const std::string& columns, long long powers) {
  std::string out;
  for (char ch : columns) out += ch == ',' ? std::string(", ") : std::string(1, ch);
  if (powers < 2 || columns.find(',') != std::string::npos) return out;
  const std::string x = out;
  for (long long k = 2; k <= powers; ++k) out += ", " + x + (k == 2 ? "²" : "³");
  return out;
}

}  // namespace

LinearData line_data(const Params& p, const std::optional<CsvData>& csv) {
  LinearData d;
  if (csv) {
    check_csv_data(*csv);
    d = csv->data;
  } else if (p.choice("data") == "seed004") {
    d = sine_trend_data();
  } else if (p.choice("data") == "correlated") {
    d = correlated_data(static_cast<int>(p.integer("n")), p.number("r"), p.number("slope"),
                        p.number("intercept"), p.number("noise"),
                        static_cast<std::uint64_t>(p.integer("seed")));
  } else {
    SyntheticSpec s;
    s.n = static_cast<int>(p.integer("n"));
    s.slope = p.number("slope");
    s.intercept = p.number("intercept");
    s.noise = p.number("noise");
    s.x_min = p.number("x_min");
    s.x_max = p.number("x_max");
    s.seed = static_cast<std::uint64_t>(p.integer("seed"));
    d = synthetic_data(s);
  }
  const int degree = static_cast<int>(p.integer("degree"));
  if (degree > 1 && d.x.shape().cols == 1) d.x = polynomial_features(d.x, degree);
  return d;
}

std::vector<ParamSpec> line_data_params() {
  const json generated = json::array({"synthetic", "correlated"});
  return {
      choice("data", "seed004", {"seed004", "synthetic", "correlated"}),
      integer("degree", 1, 1, 3).only_when("data", json::array({"seed004", "synthetic"})),
      common::samples(1000, 2).only_when("data", generated),
      number("r", 0.9, -1.0, 1.0).exclusive_min().exclusive_max().only_when("data", "correlated"),
      number("slope", 1.0, -1e6, 1e6).only_when("data", generated),
      number("intercept", 15.0, -1e6, 1e6).only_when("data", generated),
      number("noise", 10.0, 0.0, 1e6).only_when("data", generated),
      number("x_min", 0.0, -1e6, 1e6).only_when("data", "synthetic"),
      number("x_max", 100.0, -1e6, 1e6).only_when("data", "synthetic"),
      common::seed().only_when("data", generated),
  };
}

void check_line_data(const Params& p, long long default_degree) {
  const auto csv = csv_data(p);
  const long long columns = csv                                ? csv->data.x.shape().cols
                            : p.choice("data") == "correlated" ? 2
                                                               : 1;
  if (csv) check_csv_data(*csv);  // so validation reports a bad file first
  const long long degree = p.integer("degree");
  if (degree > 1 && degree != default_degree && columns > 1)  // powers of one x only
    refuse("err.degree_one_x", {{"got", degree}, {"n", columns}});
  if (p.choice("data") == "synthetic" && !(p.number("x_min") < p.number("x_max")))
    refuse("err.greater_than", {{"name", "x_max"},
                                {"other", "x_min"},
                                {"limit", p.number("x_min")},
                                {"got", p.number("x_max")}});
  // The features the runs train on must be independent, or no single line fits best: a flat
  // valley floor, κ infinite, and no closed form or rate to compare against. Found on the data
  // itself (fewer distinct rows than features, x columns that combine each other, powers of x
  // over a range too narrow to tell them apart).
  // And raw x must stay within what double precision resolves, or κ and the rates of the raw
  // runs are rounding noise (x far from 0 with its powers: x_min = 10000, x_max = 10001, degree 3).
  // Each names the parameter to change: a CSV's x; n when there are no more rows than features,
  // else r or the range; the degree or the range for raw x.
  const Tensor x = line_data(p, csv).x;
  const long long powers = columns == 1 ? degree : 1;
  const std::string names = feature_names(csv ? csv->x : columns == 2 ? "x₁,x₂" : "x", powers);
  const bool correlated = p.choice("data") == "correlated";
  if (!within(loss_condition(x, true), kMaxStandardizedKappa))
    refuse("err.features_dependent", {{"name", csv                                ? "x"
                                               : x.shape().rows <= x.shape().cols ? "n"
                                               : correlated                       ? "r"
                                                                                  : "x_max"},
                                      {"names", names},
                                      {"n", static_cast<long long>(x.shape().rows)}});
  if (!within(loss_condition(x, false), kMaxRawKappa))
    refuse("err.raw_kappa", {{"name", csv          ? "x"
                                      : degree > 1 ? "degree"
                                                   : "x_min"},
                             {"names", names}});
}

}  // namespace looplab
