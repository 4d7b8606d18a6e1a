// i18n.cpp — the catalogs (embedded from core/i18n/*.json by CMake, or supplied by the program)
// and the message renderer.
#include "looplab/base/i18n.hpp"

#include <cmath>
#include <cstdio>
#include <iterator>
#include <stdexcept>
#include <utility>

#include "looplab/base/error.hpp"
#include "looplab/base/format.hpp"

namespace looplab {
namespace {

// The catalog languages, English first (core/i18n/<lang>.json; the embedded table in
// catalogs/embedded.cpp has the same order).
constexpr const char* kLanguages[] = {"en", "zh-CN", "id"};
constexpr std::size_t kLanguageCount = std::size(kLanguages);

// Reads a flat JSON object of strings straight into a Catalog. NOTE: not through json::parse: an
// ordered_json object checks every new key against all the keys before it, so parsing the three
// catalogs (~1,000 keys each) cost half a second per process in the sanitizer build, and every
// CLI test paid it.
class CatalogReader final : public nlohmann::json_sax<json> {
 public:
  explicit CatalogReader(Catalog& out) : out_(out) {}
  bool key(string_t& k) override {
    key_ = std::move(k);
    return true;
  }
  bool string(string_t& v) override {
    if (depth_ != 1) return not_flat();
    out_.insert_or_assign(std::move(key_), std::move(v));
    return true;
  }
  bool start_object(std::size_t) override { return ++depth_ == 1 || not_flat(); }
  bool end_object() override { return --depth_ == 0 || not_flat(); }
  bool null() override { return not_flat(); }
  bool boolean(bool) override { return not_flat(); }
  bool number_integer(number_integer_t) override { return not_flat(); }
  bool number_unsigned(number_unsigned_t) override { return not_flat(); }
  bool number_float(number_float_t, const string_t&) override { return not_flat(); }
  bool binary(binary_t&) override { return not_flat(); }
  bool start_array(std::size_t) override { return not_flat(); }
  bool end_array() override { return not_flat(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  static bool not_flat() { return false; }
  Catalog& out_;
  string_t key_;
  int depth_ = 0;
};

std::size_t language_index(std::string_view lang) {
  for (std::size_t i = 0; i < kLanguageCount; ++i)
    if (kLanguages[i] == lang) return i;
  return kLanguageCount;
}

// Catalog texts given to provide_catalog(), for a program built without embedded ones (or an
// embedded one, while it is parsed), until parsed; and which languages were supplied.
std::string g_supplied[kLanguageCount];
bool g_provided[kLanguageCount] = {};

// Language i's catalog, from the embedded text (detail::embedded_catalog) or the one supplied.
Catalog read_catalog(std::size_t i) {
  const char* text = detail::embedded_catalog(kLanguages[i]);
  if (!text && g_supplied[i].empty())
    throw std::logic_error(std::string("no catalog for ") + kLanguages[i] +
                           ": this program embeds none, and none was supplied (provide_catalog)");
  Catalog table;
  CatalogReader reader(table);
  // The catalogs are checked in (tests/core/base/i18n_test.cpp); a broken one stops here. As a
  // std::string: the input every parse of the core gives nlohmann (base/json.hpp), one lexer.
  if (text) g_supplied[i] = text;
  if (!json::sax_parse(g_supplied[i], &reader))
    throw std::logic_error(std::string("core/i18n/") + kLanguages[i] +
                           ".json: not a flat object of strings");
  g_supplied[i] = std::string();  // parsed: the text is not needed again
  return table;
}

// A language's catalog, parsed the first time it is asked for: a process that speaks English
// parses only English. One function-local static per language rather than std::call_once, which
// brings std::system_error and the C library's table of error texts into the WebAssembly module
// (about 4 KB, docs/size.md); a static whose initializer throws is tried again on the next call,
// as call_once's function was.
template <std::size_t I>
const Catalog& parsed_catalog() {
  static const Catalog table = read_catalog(I);
  return table;
}
static_assert(kLanguageCount == 3, "parsed_catalog: one static per language");
const Catalog& parsed_catalog(std::size_t i) {
  return i == 0 ? parsed_catalog<0>() : i == 1 ? parsed_catalog<1>() : parsed_catalog<2>();
}

// ρ with as many digits as it takes to tell it from 1: 0.8, 0.9999499.
std::string rho_text(double rho) {
  if (!std::isfinite(rho)) return format_sig(rho);
  const double d = std::abs(1.0 - rho);
  if (rho < 1e-6) return "0";
  if (rho < 0.99 || d == 0.0) return format_sig(rho, 3);
  return format_sig(rho, 2 + static_cast<int>(std::ceil(-std::log10(d))));
}

std::string english_number_text(double v, const std::string& fmt) {
  if (fmt == "int") return std::isfinite(v) ? with_commas(std::llround(v)) : format_sig(v);
  if (fmt == "num") return format_sig(v, 3);
  if (fmt == "spread") return v >= 100.0 ? format_sig(std::round(v), 3) : format_sig(v, 2);
  if (fmt == "rho") return rho_text(v);
  if (fmt == "bytes") return format_bytes(v);
  if (fmt.size() == 4 && fmt.compare(0, 3, "sig") == 0 && fmt[3] >= '1' && fmt[3] <= '9')
    return format_sig(v, fmt[3] - '0');
  return format_number(v);
}

// The number as the page's renderer writes it in `lang` (web/util/i18n.js, formatNumberAs).
std::string number_text(double v, const std::string& fmt, std::string_view lang) {
  return in_language(english_number_text(v, fmt), lang);
}

bool name_char(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; }

std::string render_arg(const json& v, const std::string& fmt, std::string_view lang) {
  if (v.is_null()) return "";
  if (v.is_array()) {
    std::string out;
    for (const json& item : v) out += render_arg(item, fmt, lang);
    return out;
  }
  if (v.is_object()) return render(v, lang);
  if (v.is_boolean()) return render(msg(v.get<bool>() ? "word.yes" : "word.no"), lang);
  if (v.is_number()) return number_text(v.get<double>(), fmt, lang);
  const std::string s = v.is_string() ? v.get<std::string>() : v.dump();
  if (fmt == "label" || fmt == "unit") {
    if (s.empty()) return s;
    const std::string* t = catalog_text(fmt + "." + s, lang);
    if (t) return *t;
    // A unit that ends in a count, "µs per step at N = 1,000": unit.µs per step at N = # in
    // English too, with the count as {n}.
    std::size_t i = s.size();
    while (i > 0 && ((s[i - 1] >= '0' && s[i - 1] <= '9') || s[i - 1] == ',')) --i;
    if (fmt == "unit" && i > 0 && i < s.size() &&
        catalog_text("unit." + s.substr(0, i) + "#", "en")) {
      std::string digits;
      for (char c : s.substr(i))
        if (c != ',') digits += c;
      return render(msg("unit." + s.substr(0, i) + "#", {{"n", std::stoll(digits)}}), lang);
    }
    return s;
  }
  return s;
}

// Whether the three bytes at s[i] are a CJK ideograph or full-width punctuation in UTF-8
// (U+3000–U+9FFF, U+FF00–U+FF7F).
bool wide_at(const std::string& s, std::size_t i) {
  if (i + 3 > s.size()) return false;
  const auto b0 = static_cast<unsigned char>(s[i]), b1 = static_cast<unsigned char>(s[i + 1]);
  return (b0 >= 0xE3 && b0 <= 0xE9) || (b0 == 0xEF && (b1 == 0xBC || b1 == 0xBD));
}

// Chinese puts a space between Han and Latin text ("用 eager 执行"), none between two Han
// characters: a template's space beside a label that is itself Chinese ("为什么 {label} 需要" with
// 原始 x) is dropped.
std::string without_spaces_between_wide(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == ' ' && out.size() >= 3 && wide_at(out, out.size() - 3) && wide_at(s, i + 1))
      continue;
    out += s[i];
  }
  return out;
}

}  // namespace

const std::vector<std::string>& languages() {
  static const std::vector<std::string> langs(std::begin(kLanguages), std::end(kLanguages));
  return langs;
}

std::string normalize_lang(std::string_view tag) {
  std::string t;
  for (char c : tag) t += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  const std::string primary = t.substr(0, t.find_first_of("-_.@"));
  if (primary == "zh") return "zh-CN";
  if (primary == "id" || primary == "in") return "id";
  return "en";
}

const Catalog& catalog(std::string_view lang) {
  const std::size_t i = language_index(lang);
  return parsed_catalog(i < kLanguageCount ? i : 0);
}

bool has_catalog(std::string_view lang) {
  const std::size_t i = language_index(lang);
  return i < kLanguageCount && (detail::embedded_catalog(kLanguages[i]) || g_provided[i]);
}

void provide_catalog(std::string_view lang, std::string text) {
  const std::size_t i = language_index(lang);
  if (i == kLanguageCount)
    throw ConfigError("lang: no catalog language \"" + std::string(lang) + "\"");
  if (detail::embedded_catalog(kLanguages[i]) || g_provided[i]) return;  // has it already
  g_supplied[i] = std::move(text);
  parsed_catalog(i);  // parsed now, so a broken text fails here, not in the middle of a sentence
  g_provided[i] = true;
}

const std::string* catalog_text(const std::string& key, std::string_view lang) {
  const Catalog& table = catalog(lang);
  if (const auto it = table.find(key); it != table.end()) return &it->second;
  return lang != "en" ? catalog_text(key, "en") : nullptr;
}

json msg(std::string_view key, json args) {
  json out = json::object();
  out["key"] = std::string(key);
  out["args"] = std::move(args);
  return out;
}

json msg(std::string_view key) { return msg(key, json::object()); }

json msg(std::string_view key, std::initializer_list<Arg> args) { return msg(key, object(args)); }

json msg(const char* key) { return msg(std::string_view(key)); }

json msg(const char* key, std::initializer_list<Arg> args) {
  return msg(std::string_view(key), args);
}

json object(std::initializer_list<Arg> fields) {
  json out = json::object();
  for (const Arg& f : fields) out[f.name] = std::move(f.value);
  return out;
}

json separated(const json& items, const std::string& sep_key) {
  json out = json::array();
  for (const json& item : items) {
    if (!out.empty()) out.push_back(msg(sep_key));
    out.push_back(item);
  }
  return out;
}

json joined(const json& items, const std::string& sep_key) {
  return msg("seq", {{"items", separated(items, sep_key)}});
}

json plural(const std::string& key, long long k) {
  return msg(key + (k == 1 ? "_1" : "_n"), {{"k", k}});
}

bool is_message(const json& v) {
  return v.is_object() && v.size() == 2 && v.contains("key") && v["key"].is_string() &&
         v.contains("args") && v["args"].is_object();
}

std::string render(const json& m, std::string_view lang) {
  if (!m.is_object() || !m.contains("key") || !m["key"].is_string()) return "";
  const std::string key = m["key"].get<std::string>();
  const std::string* tmpl = catalog_text(key, lang);
  if (!tmpl) return "\u27e6" + key + "\u27e7";
  static const json kNoArgs = json::object();
  const json& args = m.contains("args") && m["args"].is_object() ? m["args"] : kNoArgs;
  std::string out;
  const std::string& t = *tmpl;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t[i] == '{') {
      std::size_t j = i + 1;
      while (j < t.size() && name_char(t[j])) ++j;
      std::string fmt;
      std::size_t k = j;
      if (k < t.size() && t[k] == ':') {
        ++k;
        while (k < t.size() && name_char(t[k])) ++k;
        fmt = t.substr(j + 1, k - j - 1);
      }
      if (j > i + 1 && k < t.size() && t[k] == '}') {
        const std::string name = t.substr(i + 1, j - i - 1);
        out += args.contains(name) ? render_arg(args[name], fmt, lang) : "{" + name + "}";
        i = k;
        continue;
      }
    }
    out += t[i];
  }
  return lang == "zh-CN" ? without_spaces_between_wide(out) : out;
}

}  // namespace looplab

namespace looplab {

void refuse(const char* key, std::initializer_list<Arg> args) { throw ConfigError(msg(key, args)); }

ConfigError::ConfigError(const json& m)
    : std::runtime_error(render(m, "en")), message_(std::make_shared<const json>(m)) {}

json ConfigError::message() const {
  return message_ ? *message_ : looplab::msg("err.text", {{"text", what()}});
}

}  // namespace looplab
