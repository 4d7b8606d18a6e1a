// describe_test.cpp — what `describe` says holds for every config: its explanation never states a
// parameter's default as if it were fixed (a student who changes n or loads a CSV would read a
// wrong number), nor the seed-004 data's constants; every experiment maps its terms to
// TensorFlow's; and every text comes from the catalogs, in every language.
#include <gtest/gtest.h>

#include <cmath>
#include <regex>

#include "looplab/base/format.hpp"
#include "looplab/base/i18n.hpp"
#include "looplab/experiments/experiment.hpp"
#include "small_runs.hpp"

namespace looplab {
namespace {

// The explanation without its layer declarations ("Dense(256)"): a model's architecture is fixed
// by the experiment, not by the data, and may coincide with a default (matrix: rows_medium 256).
std::string explanation_text(const Experiment& e) {
  std::string all;
  const json explanation = e.describe()["explanation"];
  for (const auto& [key, text] : explanation.items())
    if (text.is_string()) all += text.get<std::string>() + "\n";
  return std::regex_replace(all, std::regex(R"(Dense\([^)]*\))"), "Dense(…)");
}

// The ways a default may be written: 10000, 10,000 (numbers of 100 and more: smaller ones, like
// an epoch count of 5, collide with ordinary words such as "k = 5").
std::vector<std::string> spellings(const json& v) {
  if (!v.is_number()) return {};
  const double d = v.get<double>();
  if (std::abs(d) < 100.0 || d != std::floor(d)) return {};
  const auto n = static_cast<long long>(d);
  return {std::to_string(n), with_commas(n)};
}

class EveryDescription : public testing::TestWithParam<std::string> {};

TEST_P(EveryDescription, ExplanationStatesNoDefaultAsAFact) {
  const Experiment& e = find_experiment(GetParam());
  const std::string text = explanation_text(e);
  ASSERT_FALSE(text.empty());
  for (const ParamSpec& p : e.params)
    for (const std::string& s : spellings(p.default_value))
      EXPECT_EQ(text.find(s), std::string::npos)
          << e.id << ": the explanation states " << p.name << "'s default " << s << ":\n"
          << text;
  for (const char* seed_constant : {"13,299", "13,300", "132,9", "10⁵", "from 0 to 100"})
    EXPECT_EQ(text.find(seed_constant), std::string::npos)
        << e.id << ": a constant of the seed-004 data: " << seed_constant;
}

TEST_P(EveryDescription, MapsItsTermsToTensorFlow) {
  const json tensorflow = find_experiment(GetParam()).describe()["tensorflow"];
  ASSERT_TRUE(tensorflow.is_array());
  EXPECT_GE(tensorflow.size(), 2u) << GetParam();
  for (const json& t : tensorflow) {
    EXPECT_FALSE(t.value("looplab", "").empty()) << GetParam();
    EXPECT_FALSE(t.value("tensorflow", "").empty()) << GetParam();
  }
}

// Every text of the declaration is in every catalog (describe throws when English lacks one), and
// each language says it in its own words: a describe in Chinese or Indonesian has the same
// structure as in English, and its title and help texts are that catalog's.
TEST_P(EveryDescription, EveryTextComesFromTheCatalogOfItsLanguage) {
  const Experiment& e = find_experiment(GetParam());
  const json en = e.describe("en");
  for (const std::string& lang : languages()) {
    SCOPED_TRACE(lang);
    const json d = e.describe(lang);
    EXPECT_EQ(d["title"], catalog(lang).at("exp." + e.id + ".title"));
    ASSERT_EQ(d["parameters"].size(), e.params.size());
    for (const json& p : d["parameters"])
      EXPECT_EQ(p["help"], catalog(lang).at("param." + e.id + "." + p["name"].get<std::string>()));
    ASSERT_EQ(d["plots"].size(), en["plots"].size());
    for (std::size_t i = 0; i < d["plots"].size(); ++i) {
      EXPECT_FALSE(d["plots"][i]["title"].get<std::string>().empty());
      if (lang != "en") {
        EXPECT_NE(d["plots"][i]["title"], en["plots"][i]["title"]);
      }
    }
    EXPECT_EQ(d["tensorflow"].size(), en["tensorflow"].size());
    EXPECT_EQ(d["quoted"].size(), e.quoted_sources.size());
  }
}

INSTANTIATE_TEST_SUITE_P(Describe, EveryDescription, testing::ValuesIn(experiment_ids()),
                         [](const auto& info) { return test_name(info.param); });

}  // namespace
}  // namespace looplab
