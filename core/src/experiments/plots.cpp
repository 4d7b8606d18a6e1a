// plots.cpp — plot declarations as the page reads them (plots.hpp).
#include "looplab/experiments/plots.hpp"

namespace looplab {

json line_plot(const std::string& id, const Axis& x, const Axis& y,
               const std::vector<std::string>& series, const std::string& style,
               const std::string& spread) {
  json j = object({{"id", id},
                   {"x", x.key},
                   {"y", y.key},
                   {"log_x", x.scale == Scale::Log},
                   {"log_y", y.scale == Scale::Log}});
  if (!style.empty()) j["style"] = style;
  if (!spread.empty()) j["spread"] = spread;
  j["series"] = series;
  return j;
}

json bars_plot(const std::string& id, const std::string& category, const Axis& value,
               const std::vector<std::string>& stack,
               const std::vector<std::string>& stack_labels) {
  json j = object({{"id", id},
                   {"type", "bars"},
                   {"source", "runs"},
                   {"category", category},
                   {"value", value.key}});
  if (!stack.empty()) {
    j["stack"] = stack;
    j["stack_labels"] = stack_labels;
  }
  j["log_y"] = value.scale == Scale::Log;
  return j;
}

json bars_plot_with_interval(const std::string& id, const std::string& category, const Axis& value,
                             const std::string& interval) {
  json j = bars_plot(id, category, value);
  j["interval"] = interval;
  return j;
}

json heatmap_plot(const std::string& id, const std::string& row, const std::string& col,
                  const std::string& value, const std::string& scale) {
  return object({{"id", id},
                 {"type", "heatmap"},
                 {"source", "runs"},
                 {"row", row},
                 {"col", col},
                 {"value", value},
                 {"scale", scale}});
}

json contour_plot(const std::string& id, const Axis& x, const Axis& y, const std::string& z,
                  const std::vector<ContourPanel>& panels, const std::string& levels,
                  const std::string& data, const std::string& line_w, const std::string& line_b) {
  json list = json::array(), names = json::array();
  for (const ContourPanel& p : panels) {
    list.push_back(object({{"name", p.name}, {"grid", p.grid}, {"path", p.path}}));
    names.push_back(p.path);
  }
  return object({{"id", id},
                 {"type", "contour"},
                 {"x", x.key},
                 {"y", y.key},
                 {"z", z},
                 {"panels", list},
                 {"levels", levels},
                 {"data", data},
                 {"line_w", line_w},
                 {"line_b", line_b},
                 {"series", names}});
}

}  // namespace looplab
