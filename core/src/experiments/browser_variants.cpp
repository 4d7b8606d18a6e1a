// browser_variants.cpp — what the browser worker measured, as runs, series and summary of the
// call-granularity and overhead results (browser_variants.hpp). The statistics are the core's own
// (median, half_iqr, fit_cost_line) and so is the number formatting (format_sig, with_commas).
#include "looplab/experiments/browser_variants.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "looplab/base/format.hpp"
#include "looplab/base/i18n.hpp"
#include "looplab/experiments/comparison.hpp"
#include "looplab/experiments/results.hpp"
#include "looplab/experiments/timing.hpp"

namespace looplab {
namespace {

// Where the browser variants ran, as a message (its English: "JavaScript → WebAssembly (browser
// worker)").
json where_js() { return msg("env.where_js"); }

// A summary text value as its message (results.hpp: text_messages), or its text as one.
json value_message(const json& s, const char* key) {
  if (s.contains("messages") && s["messages"].contains("values") &&
      s["messages"]["values"].contains(key))
    return s["messages"]["values"][key];
  return msg("seq", {{"items", s.at(key)}});
}

// A text cell of the result's runs as its message, or its text as one.
json cell_message(const json& result, std::size_t row, const char* field) {
  const json& s = result.at("summary");
  const std::string i = std::to_string(row);
  if (s.contains("messages") && s["messages"].contains("cells") &&
      s["messages"]["cells"].contains("runs") && s["messages"]["cells"]["runs"].contains(i) &&
      s["messages"]["cells"]["runs"][i].contains(field))
    return s["messages"]["cells"]["runs"][i][field];
  return msg("seq", {{"items", result.at("runs").at(row).at(field)}});
}

std::vector<double> numbers(const json& array) { return array.get<std::vector<double>>(); }

// The entry of `list` whose `key` is `name`; throws when there is none.
const json& named(const json& list, const char* key, const std::string& name) {
  for (const json& item : list)
    if (item.at(key) == name) return item;
  throw std::invalid_argument("browser variants: no " + std::string(key) + " \"" + name + "\"");
}

// A headline record of messages, appended to the summary's headline (as English text) and, when the
// summary gives its sentences as messages (results.hpp: summary_messages), to those too.
void add_headline(json& s, const json& record) {
  json text = json::object();
  for (const auto& [k, m] : record.items()) text[k] = english(m);
  s["headline"].push_back(text);
  if (s.contains("messages")) s["messages"]["headline"].push_back(record);
}

// A message appended to the summary's reading, likewise.
void add_to_reading(json& s, const json& m) {
  s["reading"] = s.at("reading").get<std::string>() + english(m);
  if (s.contains("messages")) {
    const json before = s["messages"]["reading"];
    s["messages"]["reading"] = msg("seq", {{"items", json::array({before, m})}});
  }
}

// ---- call-granularity: js_fit and js_train_on_batch

// Equal losses at every step and the same last loss as the core's fit (a non-finite one never is).
bool same_as_fit(const json& v, const json& core_fit, bool same_losses) {
  const json &last = v.at("final_loss"), &fit_last = core_fit.at("final_loss");
  return same_losses && last.is_number() && fit_last.is_number() &&
         last.get<double>() == fit_last.get<double>();
}

json epoch_variant_run(const json& v, double fit_us, bool same) {
  const std::vector<double> chunk_us = numbers(v.at("chunk_us"));
  const double us = median(chunk_us);
  const bool diverged = v.at("diverged").get<bool>();
  return {{"variant", v.at("variant")},
          {"mode", "traced"},
          {"measured_in", where_js()},
          {"batch_copied_per_call", v.at("variant") != "js_fit"},
          {"steps", v.at("steps")},
          {"us_per_step", us},
          {"overhead_us_per_call", us - fit_us},
          {"spread_us", half_iqr(chunk_us)},
          {"chunks", chunk_us.size()},
          {"first_epoch_ms", v.at("first_epoch_ms")},
          {"total_ms", v.at("total_ms")},
          {"final_loss", diverged ? json(nullptr) : v.at("final_loss")},
          {"diverged", diverged},
          {"same_losses_as_fit", same}};
}

// js_train_on_batch against js_fit: both run fit's traced step, so their difference is the
// JavaScript → WebAssembly call boundary and the copy into the wasm heap, per batch.
Comparison js_boundary(const json& js_tob, const json& js_fit) {
  const auto step = [](const json& v) {
    const std::vector<double> chunk_us = numbers(v.at("chunk_us"));
    return Measure{v.at("variant").get<std::string>(), median(chunk_us), half_iqr(chunk_us)};
  };
  return compare("js_train_on_batch_vs_js_fit", step(js_tob), step(js_fit), Quantity::Time,
                 "µs per step");
}

void summarize_call_granularity(json& s, const Comparison& c, bool same, bool diverged) {
  s["us_per_step"]["js_fit"] = c.b.value;
  s["us_per_step"]["js_train_on_batch"] = c.a.value;
  s["overhead_us_per_call"]["js_train_on_batch"] = c.a.value - c.b.value;
  s["same_losses"] = s.at("same_losses").get<bool>() && same;
  s["diverged"] = s.at("diverged").get<bool>() || diverged;
  s["comparisons"].push_back(c.to_json());
  s["measured_where"] =
      msg("cg.where_js", {{"before", value_message(s, "measured_where")}, {"where", where_js()}});
  add_headline(
      s, {{"label", msg("cg.h_js")},
          {"value", comparison_short_message(c.to_json())},
          {"note", msg("cg.h_js_note", {{"c", comparison_message(c.to_json())},
                                        {"same", msg(same ? "cg.identical" : "cg.differ")}})}});
  add_to_reading(s, msg("cg.r_js", {{"c", comparison_message(c.to_json())},
                                    {"end", msg(same ? "cg.r_js_same" : "cg.r_js_differ")}}));
}

json add_call_granularity(json result, const json& measured) {
  const json& variants = measured.at("variants");
  const json &js_fit = named(variants, "variant", "js_fit"),
             &js_tob = named(variants, "variant", "js_train_on_batch");
  const json core_fit = named(result.at("runs"), "variant", "fit");
  const bool same = measured.at("same_losses").get<bool>();
  const Comparison c = js_boundary(js_tob, js_fit);
  bool diverged = false;
  for (const json* v : {&js_fit, &js_tob}) {
    result["series"][v->at("variant").get<std::string>()] = v->at("series");
    result["runs"].push_back(epoch_variant_run(*v, c.b.value, same_as_fit(*v, core_fit, same)));
    diverged = diverged || v->at("diverged").get<bool>();
  }
  summarize_call_granularity(result["summary"], c, same, diverged);
  return result;
}

// ---- overhead: js_per_call

void summarize_overhead(json& s, const CostLine& c, bool diverged, const json& core_where) {
  s["a_fixed_us"]["js_per_call"] = c.a;
  s["b_ns_per_point"]["js_per_call"] = c.b * 1000.0;
  s["crossover_n"]["js_per_call"] = c.crossover ? json(*c.crossover) : json(nullptr);
  s["diverged"] = s.at("diverged").get<bool>() || diverged;
  s["measured_where"] = msg("ov.where_js", {{"core", core_where}, {"where", where_js()}});
  add_headline(
      s,
      {{"label", msg("ov.h_label", {{"mode", "js_per_call"}})},
       {"value", msg("ov.h_value", {{"a", c.a}, {"b", c.b * 1000.0}})},
       {"note", msg("ov.h_note",
                    {{"cross", c.crossover ? msg("ov.cross_n", {{"n", std::llround(*c.crossover)}})
                                           : msg("ov.cross_none", {{"n", 0LL}})}})}});
  add_to_reading(s, msg("ov.r_js", {{"a", c.a}, {"b", c.b * 1000.0}}));
}

// The fitted line at the N the core measured, for the log-log plot.
json fit_series(const CostLine& c, const json& sizes) {
  json us = json::array();
  for (const json& n : sizes) us.push_back(c.a + c.b * n.get<double>());
  return {{"n", sizes}, {"us_per_step", us}};
}

json add_overhead(json result, const json& measured) {
  const json& v = named(measured.at("variants"), "variant", "js_per_call");
  json n_measured = json::array();
  std::vector<double> ns, us;
  bool diverged = false;
  for (const json& p : v.at("points")) {
    const double t = median(numbers(p.at("chunk_us")));
    n_measured.push_back(p.at("n"));
    ns.push_back(p.at("n").get<double>());
    us.push_back(t);
    diverged = diverged || p.at("diverged").get<bool>();
    result["points"].push_back({{"n", p.at("n")},
                                {"mode", "js_per_call"},
                                {"us_per_step", t},
                                {"steps_per_chunk", p.at("steps_per_chunk")},
                                {"steps", p.at("steps")},
                                {"diverged", p.at("diverged")}});
  }
  const CostLine c = fit_cost_line(ns, us);
  result["series"]["js_per_call"] = {{"n", n_measured}, {"us_per_step", us}};
  result["series"]["js_per_call_fit"] = fit_series(c, result.at("series").at("reference").at("n"));
  const json core_where = cell_message(result, 0, "measured_in");
  result["runs"].push_back({{"mode", "js_per_call"},
                            {"a_us", c.a},
                            {"b_ns_per_point", c.b * 1000.0},
                            {"crossover_n", c.crossover ? json(*c.crossover) : json(nullptr)},
                            {"us_at_n_min", us.front()},
                            {"us_at_n_max", us.back()},
                            {"measured_in", where_js()},
                            {"diverged", diverged}});
  summarize_overhead(result["summary"], c, diverged, core_where);
  return result;
}

}  // namespace

json add_browser_variants(json result, const json& measured) {
  const std::string id = result.at("experiment");
  if (id == "call-granularity")
    result = add_call_granularity(std::move(result), measured);
  else if (id == "overhead")
    result = add_overhead(std::move(result), measured);
  else
    return result;
  text_messages(result);  // the new rows' and values' messages, as the core's own
  return result;
}

}  // namespace looplab
