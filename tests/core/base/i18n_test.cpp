// The catalogs and the message renderer (base/i18n.hpp): every key in every language with the same
// placeholders, the number formats, the fallbacks, and a ConfigError said in each language.
#include "looplab/base/i18n.hpp"

#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>

#include "looplab/base/error.hpp"
#include "looplab/base/format.hpp"

namespace looplab {
namespace {

std::multiset<std::string> placeholders(const std::string& text) {
  static const std::regex kPlaceholder(R"(\{[a-z0-9_]+(:[a-z0-9_]+)?\})");
  std::multiset<std::string> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kPlaceholder);
       it != std::sregex_iterator(); ++it)
    out.insert(it->str());
  return out;
}

TEST(I18n, EveryCatalogHasEveryKeyWithTheSamePlaceholders) {
  ASSERT_EQ(languages(), (std::vector<std::string>{"en", "zh-CN", "id"}));
  const Catalog& en = catalog("en");
  EXPECT_GT(en.size(), 400u);
  for (const std::string& lang : languages()) {
    const Catalog& c = catalog(lang);
    EXPECT_EQ(c.size(), en.size()) << lang;
    for (const auto& [key, text] : en) {
      const auto it = c.find(key);
      ASSERT_TRUE(it != c.end()) << lang << " lacks " << key;
      EXPECT_EQ(placeholders(it->second), placeholders(text)) << lang << ": " << key;
    }
  }
}

TEST(I18n, LanguageTagsNormalize) {
  EXPECT_EQ(normalize_lang("zh"), "zh-CN");
  EXPECT_EQ(normalize_lang("zh_CN.UTF-8"), "zh-CN");
  EXPECT_EQ(normalize_lang("id_ID.UTF-8"), "id");
  EXPECT_EQ(normalize_lang("C.UTF-8"), "en");
  EXPECT_EQ(normalize_lang(""), "en");
}

TEST(I18n, NumbersFollowThePlaceholderFormat) {
  const json m = msg("std.h_why_value", {{"rho", 0.99994993}, {"k", 132575}, {"measured", "x"}});
  EXPECT_EQ(render(m, "en"), "ρ = 0.9999499 → k ≈ 132,575 (measured x)");
  EXPECT_EQ(render(msg("std.h_iter", {{"tol", 1e-6}}), "en"),
            "Iterations to a 1.0e-06 relative gap");
  EXPECT_EQ(render(msg("cmp.value_spread", {{"v", 18.83}, {"s", 0.42}}), "en"), "18.8 ± 0.42");
}

// The same signs as the page's Intl.NumberFormat: Chinese writes 1,234.5 as English does,
// Indonesian 1.234,5.
// Chinese spaces Han from Latin text, never Han from Han: the template's spaces beside a label go
// when the label is Chinese, and stay when it is an id.
TEST(I18n, ChineseHasNoSpaceBetweenTwoHanCharacters) {
  EXPECT_EQ(render(msg("std.h_why", {{"label", "raw x"}}), "zh-CN"),
            "为什么原始 x 需要这么多次迭代");
  EXPECT_EQ(render(msg("std.h_why", {{"label", "fit"}}), "zh-CN"), "为什么 fit 需要这么多次迭代");
  EXPECT_EQ(render(msg("std.h_why", {{"label", "raw x"}}), "en"), "Why raw x needs its iterations");
}

TEST(I18n, NumbersAreWrittenWithTheLanguagesSigns) {
  const json n = msg("std.iter", {{"n", 132956}});
  EXPECT_EQ(render(n, "en"), "132,956");
  EXPECT_EQ(render(n, "zh-CN"), "132,956");
  EXPECT_EQ(render(n, "id"), "132.956");
  const json v = msg("cmp.value_spread", {{"v", 1234.5}, {"s", 0.0421}});
  EXPECT_EQ(render(v, "en"), "1,235 ± 0.042");
  EXPECT_EQ(render(v, "id"), "1.235 ± 0,042");
  EXPECT_EQ(render(msg("cmp.value", {{"v", 0.8124}}), "id"), "0,812");
  EXPECT_EQ(render(msg("std.h_iter", {{"tol", 1e-6}}), "id").find("1,0e-06") != std::string::npos,
            true);
  EXPECT_EQ(render(msg("cmp.short.time", {{"a", "k = 5"}, {"factor", 7400.0}}), "id"),
            "k = 5 7.400× lebih cepat");
  EXPECT_EQ(render(msg("cmp.short.time", {{"a", "k = 5"}, {"factor", 7400.0}}), "zh-CN"),
            "k = 5 速度为 7,400 倍");
  EXPECT_EQ(in_language("NaN", "id"), "NaN");
  EXPECT_EQ(format_bytes(2.4e9), "2.4 GB");
  EXPECT_EQ(
      render(msg("err.limit_bytes",
                 {{"need", 2.45e9}, {"limit", 1e9}, {"build", "wasm"}, {"drivers", ""}}),
             "id"),
      "config: butuh sekitar 2,45 GB memori (perkiraan), melebihi batas 1 GB pada build wasm");
}

TEST(I18n, LabelsAndUnitsAreLookedUpAndMissingKeysShow) {
  const json m =
      msg("cmp.short.count", {{"a", "standardized x"}, {"factor", 3409.0}, {"unit", "iterations"}});
  EXPECT_EQ(render(m, "en"), "standardized x 3,409× fewer iterations");
  EXPECT_EQ(render(m, "id"), "x terstandardisasi 3.409× lebih sedikit iterasi");
  EXPECT_EQ(render(msg("no.such.key"), "zh-CN"), "\u27e6no.such.key\u27e7");
  EXPECT_EQ(render(msg("cmp.short.time", {{"a", "k = 5"}, {"factor", 2.0}}), "en"),
            "k = 5 2× faster");
}

TEST(I18n, AConfigErrorNamesTheParameterByItsCliNameInEveryLanguage) {
  const ConfigError e(
      msg("err.must_be", {{"name", "lr_raw"},
                          {"allowed", msg("allowed.number_in", {{"range", "(0, 10]"}})},
                          {"got", "-1"}}));
  EXPECT_STREQ(e.what(), "lr_raw: must be a number in (0, 10], got -1");
  for (const std::string& lang : languages())
    EXPECT_EQ(render(e.message(), lang).rfind("lr_raw: ", 0), 0u) << lang;
  // An English-only error keeps its text in every language.
  EXPECT_EQ(render(ConfigError("csv: bad").message(), "zh-CN"), "csv: bad");
}

}  // namespace
}  // namespace looplab
