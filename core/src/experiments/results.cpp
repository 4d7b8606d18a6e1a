// results.cpp — series and the environment block of results.
#include "looplab/experiments/results.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "looplab/base/clock.hpp"
#include "looplab/base/i18n.hpp"

namespace looplab {

void Series::add(const std::vector<double>& point) {
  for (std::size_t c = 0; c < data_.size(); ++c) data_[c].push_back(point.at(c));
}

json Series::slice(std::size_t from) const {
  json out = json::object();
  for (std::size_t c = 0; c < columns_.size(); ++c)
    out[columns_[c]] =
        std::vector<double>(data_[c].begin() + static_cast<std::ptrdiff_t>(from), data_[c].end());
  return out;
}

json Series::take_new() {
  json out = slice(sent_);
  sent_ = size();
  return out;
}

namespace {

// The smallest step the clock (base/clock.hpp) shows: in a browser this is performance.now()'s
// coarsening (100 µs, or 5 µs when the page is cross-origin isolated).
double measure_clock_resolution_ns() {
  double best = 1e18;
  for (int trial = 0; trial < 5; ++trial) {
    const auto t0 = Clock::now();
    auto t1 = Clock::now();
    for (long spins = 0; t1 == t0 && spins < 100'000'000; ++spins) t1 = Clock::now();
    best = std::min(best, std::chrono::duration<double, std::nano>(t1 - t0).count());
  }
  return best;
}

}  // namespace

double clock_resolution_ms() {
  static const double resolution = measure_clock_resolution_ns();
  return resolution * 1e-6;
}

json environment() {
  const double resolution = clock_resolution_ms() * 1e6;
#if defined(__EMSCRIPTEN__)
  const char* build = "wasm";
#else
  const char* build = "native";
#endif
#if defined(__wasm_simd128__) || defined(__SSE2__) || defined(__ARM_NEON)
  const bool simd = true;
#else
  const bool simd = false;
#endif
#if defined(__wasm_simd128__)
  const char* simd_kind = "wasm simd128";
#elif defined(__AVX512F__)
  const char* simd_kind = "AVX-512";
#elif defined(__AVX2__)
  const char* simd_kind = "AVX2";
#elif defined(__SSE2__)
  const char* simd_kind = "SSE2";
#else
  const char* simd_kind = "none";
#endif
#if defined(EIGEN_VECTORIZE)
  const bool eigen_vectorized = true;  // Eigen 3.4 has no WebAssembly SIMD path
#else
  const bool eigen_vectorized = false;
#endif
  return {
      {"build", build},
      {"simd", simd},
      {"simd_kind", simd_kind},
      {"compiler", __VERSION__},
      {"eigen", std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) +
                    "." + std::to_string(EIGEN_MINOR_VERSION)},
      {"eigen_vectorized", eigen_vectorized},
      {"clock_resolution_ns", resolution}};
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void summary_messages(json& summary, const json& headline, const json& reading, const json& answer,
                      const json& beside_quoted) {
  const auto english_fields = [](const json& records) {
    json out = json::array();
    for (const json& r : records) {
      json e = json::object();
      for (const auto& [k, m] : r.items()) e[k] = m.is_object() ? json(english(m)) : m;
      out.push_back(e);
    }
    return out;
  };
  summary["headline"] = english_fields(headline);
  summary["reading"] = english(reading);
  summary["answer"] = english(answer);
  if (!beside_quoted.empty()) summary["beside_quoted"] = english_fields(beside_quoted);
  json m = object({{"headline", headline}, {"reading", reading}, {"answer", answer}});
  if (!beside_quoted.empty()) m["beside_quoted"] = beside_quoted;
  summary["messages"] = m;
}

void text_messages(json& result) {
  if (!result.is_object() || !result.contains("summary") || !result["summary"].is_object()) return;
  json& summary = result["summary"];
  json cells = json::object(), values = json::object();
  for (auto& [table, rows] : result.items()) {
    if (table == "summary" || table == "series" || !rows.is_array()) continue;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (!rows[i].is_object()) continue;
      for (auto& [field, cell] : rows[i].items())
        if (is_message(cell)) {
          cells[table][std::to_string(i)][field] = cell;
          cell = english(cell);
        }
    }
  }
  static const char* const kSentences[] = {"headline",    "reading",       "answer",
                                           "comparisons", "beside_quoted", "messages"};
  for (auto& [key, value] : summary.items()) {
    if (std::find(std::begin(kSentences), std::end(kSentences), key) != std::end(kSentences))
      continue;
    if (is_message(value)) {
      values[key] = value;
      value = english(value);
    }
  }
  if (cells.empty() && values.empty()) return;
  json& m = summary["messages"];
  if (!m.is_object()) m = json::object();
  for (const auto& [table, rows] : cells.items())
    for (const auto& [row, fields] : rows.items())
      for (const auto& [field, message] : fields.items()) m["cells"][table][row][field] = message;
  for (const auto& [key, message] : values.items()) m["values"][key] = message;
}

}  // namespace looplab
