// params_test.cpp — every parameter of every experiment rejects bad values with a message that
// names it and its allowed range; bad configs of every other kind get a one-line ConfigError.
#include <gtest/gtest.h>

#include "looplab/api/api.hpp"
#include "looplab/experiments/experiment.hpp"
#include "test_util.hpp"

namespace looplab {
namespace {

std::string config_with(const std::string& experiment, const std::string& name, const json& value) {
  json c = {{"experiment", experiment}};
  c[name] = value;
  return c.dump();
}

// Values each parameter type must refuse.
std::vector<json> bad_values(const ParamSpec& p) {
  switch (p.type) {
    case ParamType::Choice:
      return {"no-such-choice", 3, true, nullptr};
    case ParamType::Bool:
      return {"yes", 1, nullptr};
    case ParamType::Integer:
      return {p.min - 1, p.max + 1, p.min + 0.5, "12", nullptr, json::array()};
    case ParamType::Number:
      return {p.min_exclusive ? p.min : p.min - 1, p.max * 2 + 1, "0.1", false, json::object()};
  }
  return {};
}

TEST(Params, EveryParameterRejectsBadValuesNamingItself) {
  int checked = 0;
  for (const auto& e : experiments())
    for (const auto& p : e.params)
      for (const json& bad : bad_values(p)) {
        const std::string msg = error_of(config_with(e.id, p.name, bad));
        SCOPED_TRACE(e.id + "." + p.name + " = " + bad.dump());
        EXPECT_EQ(msg.rfind(p.name + ": must be " + p.allowed() + ", got ", 0), 0u) << msg;
        EXPECT_EQ(msg.find('\n'), std::string::npos);
        ++checked;
      }
  EXPECT_GT(checked, 40);
}

TEST(Params, DefaultsAreValid) {
  for (const auto& e : experiments()) {
    const json resolved = json::parse(validate_config_json(json{{"experiment", e.id}}.dump()));
    for (const auto& p : e.params) EXPECT_EQ(resolved.at(p.name), p.default_value) << p.name;
  }
}

TEST(Params, RangesAreInclusiveOrExclusiveAsDeclared) {
  EXPECT_EQ(error_of(config_with("standardization", "lr_raw", 10.0)), "");
  EXPECT_NE(error_of(config_with("standardization", "lr_raw", 0.0)), "");
  EXPECT_EQ(error_of(config_with("standardization", "max_iterations", 1)), "");
  EXPECT_EQ(error_of(config_with("standardization", "max_iterations", 2.0)),
            "");  // 2.0 is an integer
  EXPECT_EQ(error_of(config_with("standardization", "lr_raw", 0.0)),
            "lr_raw: must be a number in (0, 10], got 0");
}

TEST(Params, OtherBadConfigs) {
  EXPECT_EQ(error_of("{").rfind("config: not valid JSON", 0), 0u) << error_of("{");
  EXPECT_EQ(error_of("[1,2]").rfind("config: must be a JSON object", 0), 0u);
  EXPECT_EQ(error_of("{}").rfind("experiment: missing", 0), 0u);
  EXPECT_EQ(error_of(R"({"experiment": 5})").rfind("experiment: must be a string", 0), 0u);
  const std::string unknown = error_of(R"({"experiment": "nope"})");
  EXPECT_EQ(unknown.rfind("experiment: must be one of standardization | ", 0), 0u) << unknown;
  EXPECT_NE(unknown.find(", got \"nope\""), std::string::npos) << unknown;
  EXPECT_EQ(error_of(R"({"experiment": "standardization", "lr": 1})")
                .rfind("unknown parameter \"lr\" for standardization", 0),
            0u);
  EXPECT_EQ(
      error_of(R"({"experiment": "standardization", "data": "synthetic", "x_min": 5, "x_max": 5})"),
      "x_max: must be greater than x_min (5), got 5");
  EXPECT_EQ(error_of(R"({"experiment": "standardization", "lr_raw": NaN})")
                .rfind("config: not valid JSON", 0),
            0u);
}

TEST(Params, TextValuesParseByType) {
  const Experiment& e = find_experiment("standardization");
  auto spec = [&](const std::string& name) -> const ParamSpec& {
    for (const auto& p : e.params)
      if (p.name == name) return p;
    throw std::logic_error(name);
  };
  EXPECT_EQ(parse_param_text(spec("lr_raw"), "1e-3"), json(1e-3));
  EXPECT_EQ(parse_param_text(spec("scaling"), "minmax"), json("minmax"));
  EXPECT_THROW(parse_param_text(spec("lr_raw"), "fast"), ConfigError);
  EXPECT_THROW(parse_param_text(spec("lr_raw"), "1e-3x"), ConfigError);
  EXPECT_THROW(parse_param_text(spec("lr_raw"), "inf"), ConfigError);
  EXPECT_THROW(parse_param_text(spec("max_iterations"), ""), ConfigError);
}

TEST(Params, DescribeCarriesEverythingTheControlsNeed) {
  const json d = json::parse(describe_json("standardization"));
  ASSERT_TRUE(d["parameters"].is_array());
  for (const auto& p : d["parameters"]) {
    for (const char* key : {"name", "type", "default", "help", "allowed"})
      EXPECT_TRUE(p.contains(key)) << key;
    if (p["type"] == "choice") {
      EXPECT_FALSE(p["choices"].empty());
    }
    if (p["type"] == "number") {
      EXPECT_TRUE(p.contains("min") && p.contains("max"));
    }
  }
  EXPECT_THROW(describe_json("nope"), ConfigError);
}

}  // namespace
}  // namespace looplab
