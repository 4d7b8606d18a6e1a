// looplab/experiments/plots.hpp — the plot declarations of an Experiment (Experiment::plots): the
// JSON the page and the widget draw without code of their own, built in one place.
//
//   e.plots = json::array({
//       line_plot("loss", {"step"}, {"loss"}, {"eager", "traced"}),   // series of the result
//       bars_plot("steady", "mode", {"steady_step_us", Scale::Log}),  // one bar per run
//   });
//
// A plot's texts (title, axis labels, a heatmap's unit) are in the catalogs, under
// plot.<experiment>.<plot id>.<field>: Experiment::describe(lang) puts them in.
#pragma once

#include <string>
#include <vector>

#include "looplab/base/json.hpp"

namespace looplab {

enum class Scale { Linear, Log };

// An axis: the column (or run key) it shows and its scale (its label is in the catalogs).
struct Axis {
  std::string key;
  Scale scale = Scale::Linear;
};

// Series against series: one line per named series of the result (markers only with style
// "points"), x and y naming their columns. `spread`, when set, names a column of the same series
// holding the half-IQR of y at each point (drawn as whiskers y ± spread).
// A series named "<name>_fit" is the fitted line of series <name>: drawn in its colour, dashed.
// {id, title, x, y, x_label, y_label, log_x, log_y, [style], [spread], series}
json line_plot(const std::string& id, const Axis& x, const Axis& y,
               const std::vector<std::string>& series, const std::string& style = "",
               const std::string& spread = "");

// One bar per run of the result: `category` names the run key that labels the bar, value.key the
// number it shows; `stack` (with `stack_labels`) stacks several run keys in one bar.
// {id, type: "bars", title, source: "runs", category, value, [spread | interval],
//  [stack, stack_labels],
//  y_label, log_y}
json bars_plot(const std::string& id, const std::string& category, const Axis& value,
               const std::vector<std::string>& stack = {},
               const std::vector<std::string>& stack_labels = {});
// The same with `interval`: the run key holding [lo, hi], the 95% interval of the value, a median
// over paired rounds (paired.hpp's median_interval), drawn as a whisker from lo to hi.
json bars_plot_with_interval(const std::string& id, const std::string& category, const Axis& value,
                             const std::string& interval);

// One cell per run, placed by its `row` and `col` keys and coloured by `value` on a "log" or
// "diverging" colour scale. {id, type: "heatmap", title, source: "runs", row, col, value, unit,
// scale}
json heatmap_plot(const std::string& id, const std::string& row, const std::string& col,
                  const std::string& value, const std::string& scale);

// Contour lines of a function over two parameters, one panel per named grid, each with a path drawn
// on it as it streams, and optionally the data (x, y) with the line y = W·x + b of each path's
// latest point. Everything it draws comes from the result's series (and arrives in progress):
//   a grid series per panel: columns x, y, z, one row per grid point, x varying fastest (n × n);
//   `levels`: a series with one column per panel name, the z values to draw lines at (the same
//   count for every panel);
//   a path series per panel: columns x and y (the parameters), line_w and line_b (the line);
//   `data`: a series with columns x and y, the points the line is fitted to.
// {id, type: "contour", title, x, y, z, x_label, y_label, panels: [{name, grid, path}], levels,
//  data, line_w, line_b, series: [path names]}
struct ContourPanel {
  std::string name, grid, path;
};
json contour_plot(const std::string& id, const Axis& x, const Axis& y, const std::string& z,
                  const std::vector<ContourPanel>& panels, const std::string& levels,
                  const std::string& data, const std::string& line_w, const std::string& line_b);

}  // namespace looplab
