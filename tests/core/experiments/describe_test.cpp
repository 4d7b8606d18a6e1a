// describe_test.cpp — what `describe` says holds for every config: its explanation never states a
// parameter's default as if it were fixed (a student who changes n or loads a CSV would read a
// wrong number), nor the seed-004 data's constants; and every experiment maps its terms to
// TensorFlow's.
#include <gtest/gtest.h>

#include <cmath>
#include <regex>

#include "looplab/base/format.hpp"
#include "looplab/experiments/experiment.hpp"
#include "small_runs.hpp"

namespace looplab {
namespace {

// The explanation without its layer declarations ("Dense(256)"): a model's architecture is fixed
// by the experiment, not by the data, and may coincide with a default (matrix: rows_medium 256).
std::string explanation_text(const Experiment& e) {
  std::string all;
  for (const auto& [key, text] : e.explanation.items())
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
  const Experiment& e = find_experiment(GetParam());
  ASSERT_TRUE(e.tensorflow.is_array());
  EXPECT_GE(e.tensorflow.size(), 2u) << e.id;
  for (const json& t : e.tensorflow) {
    EXPECT_FALSE(t.value("looplab", "").empty()) << e.id;
    EXPECT_FALSE(t.value("tensorflow", "").empty()) << e.id;
  }
}

INSTANTIATE_TEST_SUITE_P(Describe, EveryDescription, testing::ValuesIn(experiment_ids()),
                         [](const auto& info) { return test_name(info.param); });

}  // namespace
}  // namespace looplab
