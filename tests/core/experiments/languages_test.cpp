// languages_test.cpp — every sentence every experiment states, rendered in Chinese and Indonesian,
// carries the run's numbers in that language's signs: the numbers of its English rendering, with
// ',' and '.' swapped for Indonesian (1,000× off otherwise: "3,409" is 3.4 to an Indonesian) and
// as they are for Chinese; and no Chinese sentence is left with a run of English words.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <set>

#include "looplab/base/format.hpp"
#include "looplab/base/i18n.hpp"
#include "looplab/experiments/comparison.hpp"
#include "small_runs.hpp"

namespace looplab {
namespace {

// The numbers of a text as written: "3,409", "1.73", "1.0e-06" → "3,409", "1.73", "1.0e-06";
// a version ("TensorFlow 2.1") is a name, not a number.
std::multiset<std::string> numbers_in(std::string text) {
  static const std::regex number(R"(\d(?:[\d.,]*\d)?(?:e[-+]\d+)?)");
  static const std::regex version(R"(TensorFlow \d+(\.\d+)*)");
  text = std::regex_replace(text, version, "TensorFlow");
  std::multiset<std::string> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), number);
       it != std::sregex_iterator(); ++it)
    out.insert(it->str());
  return out;
}

// Every message of a result's summary (summary.messages, nested arrays and objects) and every
// comparison's sentence.
void collect_messages(const json& v, std::vector<json>& out) {
  if (is_message(v)) return out.push_back(v);
  if (v.is_array() || v.is_object())
    for (const json& item : v) collect_messages(item, out);
}

std::vector<json> sentences_of(const json& result) {
  std::vector<json> out;
  const json& s = result["summary"];
  if (s.contains("messages")) collect_messages(s["messages"], out);
  for (const json& c : s.value("comparisons", json::array())) {
    out.push_back(comparison_message(c));
    out.push_back(comparison_short_message(c));
  }
  return out;
}

class EverySentence : public testing::TestWithParam<std::string> {};

void expect_numbers_in_every_language(const std::vector<json>& said) {
  for (const json& m : said) {
    const std::string en = render(m, "en");
    const std::multiset<std::string> zh = numbers_in(render(m, "zh-CN")),
                                     id = numbers_in(render(m, "id"));
    for (const std::string& n : numbers_in(en)) {
      EXPECT_TRUE(zh.count(n)) << n << " of \"" << en << "\" is not in \"" << render(m, "zh-CN")
                               << "\"";
      EXPECT_TRUE(id.count(in_language(n, "id")))
          << in_language(n, "id") << " (" << n << " of \"" << en << "\") is not in \""
          << render(m, "id") << "\"";
    }
  }
}

void expect_no_english_run_in_chinese(const std::vector<json>& said) {
  // Three or more English words in a row, outside code such as tf.data or train_on_batch.
  static const std::regex english_run(R"((?:\b[A-Za-z]{2,}\b[ ,]+){2,}\b[A-Za-z]{2,}\b)");
  static const std::set<std::string> allowed = {"batch x hidden"};  // an expression of parameters
  for (const json& m : said) {
    const std::string zh = render(m, "zh-CN");
    std::smatch found;
    if (std::regex_search(zh, found, english_run) && !allowed.count(found.str()))
      ADD_FAILURE() << "\"" << found.str() << "\" in \"" << zh << "\"";
  }
}

// The run's numbers, in every language's signs; and no run of English words left in Chinese.
// (One run for both checks: a small run is the expensive part.)
TEST_P(EverySentence, CarriesTheRunsNumbersInTheLanguagesSignsAndNoEnglishInChinese) {
  const std::vector<json> said = sentences_of(run_small(GetParam(), 2.0).result);
  ASSERT_FALSE(said.empty());
  expect_numbers_in_every_language(said);
  expect_no_english_run_in_chinese(said);
}

INSTANTIATE_TEST_SUITE_P(Languages, EverySentence, testing::ValuesIn(experiment_ids()),
                         [](const auto& info) { return test_name(info.param); });

}  // namespace
}  // namespace looplab
