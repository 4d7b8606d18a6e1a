// format.cpp — numbers and values as people read them.
#include "looplab/base/format.hpp"

#include <cmath>
#include <cstdio>

namespace looplab {

std::string format_number(double v) {
  char buf[64];
  if (v == std::floor(v) && std::abs(v) < 1e15) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.6g", v);
  }
  return buf;
}

std::string shown_value(const json& v) {
  if (v.is_array()) return v.empty() ? "[]" : "an array";
  if (v.is_object()) return v.empty() ? "{}" : "an object";
  if (v.is_number()) return format_number(v.get<double>());
  std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
  if (s.size() > 40) {
    std::size_t cut = 37;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80)
      --cut;  // not inside a UTF-8 sequence
    s = s.substr(0, cut) + "...";
  }
  return s;
}

std::string quoted_text(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 40)) out += static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? '?' : c;
  if (s.size() > 40) out += "...";
  return "\"" + out + "\"";
}

std::string with_commas(long long v) {
  std::string digits = std::to_string(v < 0 ? -v : v), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return v < 0 ? "-" + out : out;
}

std::string format_sig(double v, int digits) {
  if (!std::isfinite(v)) return v != v ? "NaN" : (v > 0 ? "inf" : "-inf");
  char buf[64];
  const double a = std::abs(v);
  if (a >= 1000.0 && a < 1e15) return with_commas(std::llround(v));  // 1365.47 -> "1,365"
  if (a != 0.0 && a < 1e-3) {
    std::snprintf(buf, sizeof buf, "%.*e", digits - 1, v);
  } else {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  }
  return buf;
}

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "KB", "MB", "GB", "TB"};
  int u = 0;
  while (bytes >= 1000.0 && u < 4) bytes /= 1000.0, ++u;
  return format_sig(bytes, 3) + " " + units[u];
}

std::string in_language(std::string number, std::string_view lang) {
  if (lang != "id") return number;
  for (char& c : number) c = c == '.' ? ',' : c == ',' ? '.' : c;
  return number;
}

}  // namespace looplab
