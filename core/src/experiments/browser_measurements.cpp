// browser_measurements.cpp — reading what a browser worker measured (browser_measurements.hpp).
// Compiled with unwinding code in wasm: a refusal here frees what was read so far.
#include "looplab/experiments/browser_measurements.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "looplab/base/i18n.hpp"
#include "looplab/experiments/results.hpp"

namespace looplab {
namespace {

[[noreturn]] void refuse_measurement(const std::string& what) {
  throw std::invalid_argument("browser measurements: " + what);
}

// The entry of measured["variants"] whose "variant" is `name`.
const json& variant_named(const json& measured, const char* name) {
  if (!measured.is_object()) refuse_measurement("not an object");
  const auto list = measured.find("variants");
  if (list != measured.end() && list->is_array())
    for (const json& item : *list)
      if (item.is_object() && item.contains("variant") && item["variant"] == name) return item;
  refuse_measurement(std::string("no variant \"") + name + "\"");
}

const json& field(const json& v, const char* key) {
  if (!v.contains(key)) refuse_measurement(std::string("\"") + key + "\" is missing");
  return v[key];
}

// Times in µs, each positive and finite (a ratio and a median of them are taken).
std::vector<double> times_us(const json& chunk_us) {
  if (!chunk_us.is_array() || chunk_us.empty())
    refuse_measurement("chunk_us is not a list of times");
  std::vector<double> t;
  for (const json& x : chunk_us) {
    if (!x.is_number() || !(x.get<double>() > 0.0) || !std::isfinite(x.get<double>()))
      refuse_measurement("chunk_us holds " + x.dump() + ", not a positive time");
    t.push_back(x.get<double>());
  }
  return t;
}

// A count or a duration: a finite number, not negative (nlohmann reads 1e400 as infinity).
void check_amount(const json& v, const char* key) {
  const json& x = field(v, key);
  if (!x.is_number() || !(x.get<double>() >= 0.0) || !std::isfinite(x.get<double>()))
    refuse_measurement(std::string(key) + " is " + x.dump() + ", not a finite number >= 0");
}

void check_step_variant(const json& v) {
  (void)times_us(field(v, "chunk_us"));
  for (const char* key : {"first_epoch_ms", "total_ms", "steps"}) check_amount(v, key);
  if (!field(v, "diverged").is_boolean()) refuse_measurement("diverged is not true or false");
  const json& last = field(v, "final_loss");
  if (!last.is_null() && (!last.is_number() || !std::isfinite(last.get<double>())))
    refuse_measurement("final_loss is not a finite number or null");
  if (!field(v, "series").is_object()) refuse_measurement("series is not an object");
}

}  // namespace

BrowserStepVariants read_browser_step_variants(const json& measured) {
  BrowserStepVariants js{variant_named(measured, "js_fit"),
                         variant_named(measured, "js_train_on_batch")};
  check_step_variant(js.fit);
  check_step_variant(js.train_on_batch);
  if (js.fit["chunk_us"].size() != js.train_on_batch["chunk_us"].size())
    refuse_measurement("js_fit and js_train_on_batch have different numbers of chunks");
  if (!measured.contains("same_losses") || !measured["same_losses"].is_boolean())
    refuse_measurement("same_losses is not true or false");
  js.same_losses = measured["same_losses"].get<bool>();
  return js;
}

BrowserPerCall read_browser_per_call(const json& measured) {
  const json& v = variant_named(measured, "js_per_call");
  const json& points = field(v, "points");
  if (!points.is_array()) refuse_measurement("points is not a list");
  BrowserPerCall js;
  for (const json& p : points) {
    if (!p.is_object()) refuse_measurement("a point is not an object");
    check_amount(p, "n");
    if (!field(p, "diverged").is_boolean()) refuse_measurement("diverged is not true or false");
    check_amount(p, "steps_per_chunk");
    check_amount(p, "steps");
    const double us = median(times_us(field(p, "chunk_us")));
    js.n.push_back(p["n"].get<double>());
    js.us.push_back(us);
    js.diverged = js.diverged || p["diverged"].get<bool>();
    js.points.push_back(object({{"n", p["n"]},
                                {"mode", "js_per_call"},
                                {"us_per_step", us},
                                {"steps_per_chunk", field(p, "steps_per_chunk")},
                                {"steps", field(p, "steps")},
                                {"diverged", p["diverged"]}}));
  }
  js.line = fit_cost_line(js.n, js.us);
  return js;
}

}  // namespace looplab
