// csv.cpp — CSV text to a numeric table (csv.hpp).
#include "looplab/data/csv.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdlib>

#include "looplab/base/error.hpp"
#include "looplab/base/format.hpp"
#include "looplab/base/i18n.hpp"

namespace looplab {
namespace {

// Where an error is, as a message: "csv line 4 (data row 3), column \"b\"". data_row 0 = the
// header. A column is its number (from 1) or its quoted name.
struct Place {
  std::size_t line = 0, data_row = 0;
  json where(const json& column) const {
    const auto n = [](std::size_t v) { return static_cast<long long>(v); };
    if (data_row > 0)
      return msg("err.csv_at_row", {{"line", n(line)}, {"row", n(data_row)}, {"column", column}});
    return msg("err.csv_at", {{"line", n(line)}, {"column", column}});
  }
};

[[noreturn]] void fail(const json& message) { throw ConfigError(message); }

// The message `key` about the cell at `at`, `column`.
[[noreturn]] void fail_at(const char* key, const Place& at, const json& column, json args = {}) {
  if (!args.is_object()) args = json::object();
  args["at"] = at.where(column);
  fail(msg(key, std::move(args)));
}

json count(std::size_t v) { return static_cast<long long>(v); }

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// One field of a line starting at `pos`: unquoted it is the text up to the next comma; quoted,
// the text between the quotes with "" turned into ". Leaves pos on the comma or at the end.
std::string field(std::string_view line, std::size_t& pos, const Place& at, std::size_t col) {
  std::size_t start = pos;
  while (start < line.size() && (line[start] == ' ' || line[start] == '\t')) ++start;
  if (start >= line.size() || line[start] != '"') {
    const std::size_t comma = std::min(line.find(',', start), line.size());
    pos = comma;
    return std::string(trim(line.substr(start, comma - start)));
  }
  std::string out;
  std::size_t i = start + 1;
  for (;; ++i) {
    if (i >= line.size()) fail_at("err.csv_quote_open", at, count(col));
    if (line[i] != '"') {
      out += line[i];
    } else if (i + 1 < line.size() && line[i + 1] == '"') {
      out += '"';
      ++i;
    } else {
      break;
    }
  }
  pos = i + 1;
  while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t')) ++pos;
  if (pos < line.size() && line[pos] != ',') fail_at("err.csv_after_quote", at, count(col));
  return out;
}

// All fields of one line. An empty line has no fields.
void split(std::string_view line, const Place& at, std::vector<std::string>& out) {
  out.clear();
  std::size_t pos = 0;
  for (;;) {
    out.push_back(field(line, pos, at, out.size() + 1));
    if (pos >= line.size()) return;
    ++pos;  // the comma
  }
}

// [+-] digits [. digits] [e [+-] digits], with at least one digit before the exponent.
bool is_decimal(std::string_view s) {
  std::size_t i = 0, digits = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) ++digits;
  if (i < s.size() && s[i] == '.')
    for (++i; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) ++digits;
  if (digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    const std::size_t exp_start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    if (i == exp_start) return false;
  }
  return i == s.size();
}

bool is_nan_or_inf(std::string_view s) {
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) s.remove_prefix(1);
  std::string lower;
  for (char c : s) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  return lower == "nan" || lower == "inf" || lower == "infinity";
}

// NOTE: strtod on a checked decimal string: the grammar is ours, so locale-specific or hex forms
// never get through, and std::from_chars for double is missing from Emscripten 3.1.6's libc++.
double number(const std::string& s, const Place& at, const std::string& column) {
  if (s.empty()) fail_at("err.csv_empty_value", at, column);
  if (is_nan_or_inf(s)) fail_at("err.csv_nan", at, column, {{"value", quoted_text(s)}});
  if (!is_decimal(s)) fail_at("err.csv_not_number", at, column, {{"value", quoted_text(s)}});
  const double v = std::strtod(s.c_str(), nullptr);
  if (!(std::abs(v) <= FLT_MAX))
    fail_at("err.csv_float32", at, column, {{"value", quoted_text(s)}});
  return v;
}

void read_header(const std::vector<std::string>& fields, const Place& at, const CsvLimits& limits,
                 CsvTable& t) {
  if (fields.size() > limits.max_columns)
    fail_at("err.csv_columns", at, count(limits.max_columns + 1),
            {{"max", count(limits.max_columns)}});
  for (std::size_t c = 0; c < fields.size(); ++c) {
    if (fields[c].empty()) fail_at("err.csv_empty_name", at, count(c + 1));
    for (std::size_t k = 0; k < c; ++k)
      if (fields[k] == fields[c])
        fail_at("err.csv_duplicate", at, count(c + 1),
                {{"name", quoted_text(fields[c])}, {"other", count(k + 1)}});
    t.columns.push_back(fields[c]);
  }
}

void read_row(const std::vector<std::string>& fields, const Place& at, CsvTable& t) {
  const std::size_t want = t.columns.size();
  if (fields.size() < want)
    fail_at("err.csv_missing", at, quoted_text(t.columns[fields.size()]),
            {{"n", count(fields.size())}, {"want", count(want)}});
  if (fields.size() > want) fail_at("err.csv_extra", at, count(want + 1), {{"want", count(want)}});
  for (std::size_t c = 0; c < want; ++c)
    t.values.push_back(number(fields[c], at, quoted_text(t.columns[c])));
  ++t.rows;
}

}  // namespace

std::size_t CsvTable::index(std::string_view name, std::string_view what) const {
  for (std::size_t c = 0; c < columns.size(); ++c)
    if (columns[c] == name) return c;
  std::string list;
  for (std::size_t c = 0; c < columns.size() && c < 10; ++c)
    list += (c ? " | " : "") + quoted_text(columns[c]);
  if (columns.size() > 10) list += " | ...";
  fail(msg("err.csv_no_column",
           {{"what", std::string(what)}, {"name", quoted_text(name)}, {"list", list}}));
}

CsvTable parse_csv(std::string_view text, const CsvLimits& limits) {
  if (text.size() > limits.max_bytes)
    fail(msg("data.too_big", {{"bytes", count(text.size())}, {"max", count(limits.max_bytes)}}));
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // a UTF-8 byte-order mark
  CsvTable t;
  std::vector<std::string> fields;
  Place at;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++at.line;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (trim(line).empty()) continue;
    split(line, at, fields);
    if (t.columns.empty()) {
      read_header(fields, at, limits, t);
      // Every value takes at least two bytes ("1,"), which bounds the reservation by the text.
      t.values.reserve(
          std::min(limits.max_rows * t.columns.size(), text.size() / 2 + t.columns.size()));
      continue;
    }
    ++at.data_row;
    if (at.data_row > limits.max_rows)
      fail(msg("err.csv_rows", {{"line", count(at.line)}, {"max", count(limits.max_rows)}}));
    read_row(fields, at, t);
  }
  if (t.columns.empty()) fail(msg("err.csv_empty"));
  if (t.rows == 0) fail(msg("err.csv_no_rows", {{"line", count(at.line)}}));
  return t;
}

LinearData select_xy(const CsvTable& table, std::string_view x, std::string_view y) {
  const std::size_t yi = table.index(y, "y");
  if (const auto named = 1 + std::count(x.begin(), x.end(), ','); named > kMaxFeatures)
    fail(msg("err.csv_x_many", {{"max", count(kMaxFeatures)}, {"n", count(named)}}));
  std::vector<std::size_t> xi;
  for (std::size_t from = 0;;) {  // "a,b,c": one column each
    const std::size_t comma = x.find(',', from);
    const std::size_t i = table.index(x.substr(from, comma - from), "x");
    if (i == yi) fail(msg("err.csv_same_column", {{"got", quoted_text(y)}}));
    if (std::find(xi.begin(), xi.end(), i) != xi.end())
      fail(msg("err.csv_x_twice", {{"got", quoted_text(table.columns[i])}}));
    xi.push_back(i);
    if (comma == std::string_view::npos) break;
    from = comma + 1;
  }
  const int n = static_cast<int>(table.rows), d = static_cast<int>(xi.size());
  LinearData out{Tensor(Shape{n, d}), Tensor(Shape{n, 1})};
  for (std::size_t r = 0; r < table.rows; ++r) {
    for (int j = 0; j < d; ++j) out.x[r * d + j] = static_cast<float>(table.at(r, xi[j]));
    out.y[r] = static_cast<float>(table.at(r, yi));
  }
  return out;
}

}  // namespace looplab
