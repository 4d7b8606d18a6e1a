// looplab/experiments/csv_attachment.hpp — the user's CSV attached to an experiment's config.
//
// An experiment that takes data (Experiment::takes_csv) gets it in its config as
//   {"csv": {"text": "<the file>", "x": "<column>", "y": "<column>", "name": "<file name>"}}
// — data, not a parameter: it has no control, no default and no range, so it lives beside the
// parameters and api.cpp hands it through (take_csv_config). x defaults to the first column and
// y to the last.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "looplab/base/json.hpp"
#include "looplab/data/csv.hpp"
#include "looplab/experiments/params.hpp"

namespace looplab {

// A parsed attachment: the data, and what a result reports about it (never the text itself).
struct CsvData {
  LinearData data;
  std::string name, x, y;
  std::size_t rows = 0, bytes = 0;
  json summary() const;  // {"name", "x", "y", "rows", "bytes"}
};

// Removes "csv" from `config` and checks its shape ({"text": string, optional "x", "y", "name"
// strings}); null when absent. Throws ConfigError if present but the experiment takes no data.
json take_csv_config(json& config, const std::string& experiment, bool accepted);

// The CSV attached to validated params (values()["csv"]), parsed and selected, or nullopt.
std::optional<CsvData> csv_data(const Params& p);

// The params' values for a result's "config": the attachment replaced by its summary (and a
// "data" choice, where there is one, by "csv").
json config_without_text(const Params& p, const std::optional<CsvData>& csv);

// The x, y data of a line-fitting experiment (standardization, optimizers): the checked CSV when
// one came with the config (x: one column or several), else the "data" parameter's seed004,
// synthetic (n, slope, intercept, noise, x_min, x_max, seed) or correlated set (two features with
// correlation r); with degree > 1 and one x column, x's powers x, x², … as its features.
LinearData line_data(const Params& p, const std::optional<CsvData>& csv);

// The parameters line_data reads, declared once for both experiments: data (seed004 | synthetic |
// correlated), degree, and for generated data n, r, slope, intercept, noise, x_min, x_max, seed.
std::vector<ParamSpec> line_data_params();
// Their check beyond each one's range (ConfigError): an attached CSV determines a line, degree > 1
// only for one x (except the experiment's own default degree, which several x columns ignore:
// optimizers trains on x, x² by default, and on a CSV's x=a,b as they are), and x_min < x_max.
void check_line_data(const Params& p, long long default_degree = 1);

}  // namespace looplab
