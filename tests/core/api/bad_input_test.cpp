// bad_input_test.cpp — the bad inputs of tests/bad-inputs/cases.json through the JSON boundary
// (validate_config_json and start_run), plus regression tests for what fuzzing and the
// list found. The same file is checked through the CLI (tests/bad-inputs/check_cli.py) and the wasm
// module (wasm/test/reliability.test.mjs): one message per bad input, everywhere.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "looplab/api/api.hpp"
#include "looplab/base/i18n.hpp"
#include "looplab/experiments/experiment.hpp"

namespace looplab {
namespace {

json load_cases() {
  std::ifstream in(std::string(LOOPLAB_SOURCE_DIR) + "/tests/bad-inputs/cases.json",
                   std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return json::parse(s.str())["cases"];
}

std::string hex_bytes(const std::string& hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return out;
}

// The config text of a case, or nullopt for a CLI-arguments case.
std::optional<std::string> config_text(const json& c) {
  if (c.contains("config")) return c["config"].get<std::string>();
  if (c.contains("config_hex")) return hex_bytes(c["config_hex"].get<std::string>());
  if (c.contains("config_fill")) {
    const json& f = c["config_fill"];
    std::string text = f["prefix"].get<std::string>();
    for (int i = 0; i < f["count"].get<int>(); ++i) text += f["fill"].get<std::string>();
    return text + f["suffix"].get<std::string>();
  }
  return std::nullopt;
}

template <class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(BadInput, EveryConfigCaseGivesItsMessageFromValidateAndCreate) {
  const json cases = load_cases();
  int checked = 0;
  for (const json& c : cases) {
    const auto text = config_text(c);
    if (!text) continue;
#ifdef __EMSCRIPTEN__
    const std::string want = c.value("message_wasm", c["message"]).get<std::string>();
#else
    if (c.contains("wasm_only")) continue;  // accepted natively: the native limits are higher
    const std::string want = c["message"].get<std::string>();
#endif
    EXPECT_EQ(message_of([&] { validate_config_json(*text); }), want) << c["name"];
    EXPECT_EQ(message_of([&] { start_run(*text); }), want) << c["name"];
    EXPECT_EQ(want.find('\n'), std::string::npos) << c["name"] << ": one line";
    ++checked;
  }
  EXPECT_GE(checked, 50);
  EXPECT_GE(cases.size(), 50u);
}

// The same cases in every language: each error is a message {key, args}, never English text
// (err.text), that renders in English as the message above and in Chinese and Indonesian as a
// sentence of that language, naming the parameter by its CLI name as the English does.
TEST(BadInput, EveryConfigCaseIsSaidInEveryLanguage) {
  int checked = 0;
  for (const json& c : load_cases()) {
    const auto text = config_text(c);
    if (!text) continue;
    json m;
    try {
      validate_config_json(*text);
    } catch (const ConfigError& e) {
      m = e.message();
      EXPECT_EQ(english(m), e.what()) << c["name"];
    }
    if (m.is_null()) continue;  // accepted here (a wasm-only case)
    EXPECT_NE(m["key"], "err.text") << c["name"] << ": English only: " << english(m);
    const std::string en = english(m);
    const std::size_t colon = en.find(": ");
    const bool named =
        colon != std::string::npos && colon > 0 &&
        en.substr(0, colon).find_first_not_of("abcdefghijklmnopqrstuvwxyz_.-") == std::string::npos;
    for (const char* lang : {"zh-CN", "id"}) {
      const std::string said = render(m, lang);
      EXPECT_NE(said, en) << c["name"] << " in " << lang;
      EXPECT_EQ(said.find("\u27e6"), std::string::npos) << said;
      if (named) {
        EXPECT_EQ(said.rfind(en.substr(0, colon + 1), 0), 0u) << c["name"] << ": " << said;
      }
    }
    ++checked;
  }
  EXPECT_GE(checked, 50);
}

// Found while writing the list: 1e400 is a json::out_of_range, not a parse_error, and escaped as an
// "internal error" (CLI exit 1, wasm Error instead of ConfigError).
TEST(BadInput, NumberBeyondDoubleIsAConfigError) {
  const std::string m =
      message_of([] { validate_config_json(R"({"experiment": "unroll", "lr": 1e400})"); });
  EXPECT_EQ(m, "config: the number '1e400' is beyond the range of a double (about ±1.8e308)");
}

// Found while writing the list: messages dumped the offending value whole, and dump() recurses per
// level (a value nested 200,000 deep segfaulted natively; wasm's stack is smaller). Values are now
// named by kind, and text over 100 KB is refused before parsing, which bounds the depth too.
TEST(BadInput, DeeplyNestedValueIsNamedByKindNotDumped) {
  const std::string text =
      R"({"experiment": )" + std::string(40000, '[') + std::string(40000, ']') + "}";
  EXPECT_EQ(message_of([&] { validate_config_json(text); }),
            "experiment: must be a string, got an array");
  const std::string deep_param =
      R"({"experiment": "unroll", "n": )" + std::string(30000, '[') + std::string(30000, ']') + "}";
  EXPECT_EQ(message_of([&] {
              validate_config_json(deep_param);
            }).rfind("n: must be an integer in [100, 1000000], got an array", 0),
            0u);
}

// Found while writing the list: text that is not UTF-8 (a CLI --set value, a key) made json::dump()
// throw type_error 316 while building a message. Messages now show U+FFFD instead.
TEST(BadInput, InvalidUtf8InAMessageIsReplacedNotThrown) {
  EXPECT_EQ(shown_value(json(std::string("a\xff"
                                         "b"))),
            "\"a\xEF\xBF\xBD"
            "b\"");
  const std::string m = message_of([] { find_experiment(std::string("\xc3\x28")); });
  EXPECT_NE(m.find("got \"\xEF\xBF\xBD("), std::string::npos) << m;
}

TEST(BadInput, LongValuesAreCutAtACharacterBoundary) {
  std::string s;
  for (int i = 0; i < 30; ++i) s += "\xC3\xA9";  // é, two bytes each
  const std::string shown = shown_value(json(s));
  EXPECT_EQ(shown.substr(shown.size() - 3), "...");
  EXPECT_NO_THROW(json(shown).dump());  // still valid UTF-8
}

TEST(BadInput, OversizedTextIsRefusedUnparsed) {
  const std::string text = R"({"experiment": "unroll", "x": ")" + std::string(200000, 'a') + "\"}";
  EXPECT_EQ(message_of([&] { validate_config_json(text); }),
            "config: too long (200,033 bytes; at most 100,000)");
}

}  // namespace
}  // namespace looplab
