// params.cpp — validation of configs against parameter declarations.
#include "looplab/experiments/params.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "looplab/base/error.hpp"
#include "looplab/base/i18n.hpp"

namespace looplab {

namespace {

std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

[[noreturn]] void reject(const ParamSpec& spec, const json& got) {
  refuse("err.must_be",
         {{"name", spec.name}, {"allowed", spec.allowed_message()}, {"got", shown_value(got)}});
}

bool in_range(const ParamSpec& s, double v) {
  const bool lo = s.min_exclusive ? v > s.min : v >= s.min;
  const bool hi = s.max_exclusive ? v < s.max : v <= s.max;
  return lo && hi;
}

json check_value(const ParamSpec& spec, const json& v) {
  switch (spec.type) {
    case ParamType::Choice:
      if (v.is_string())
        for (const auto& c : spec.choices)
          if (v.get<std::string>() == c) return v;
      reject(spec, v);
    case ParamType::Bool:
      if (!v.is_boolean()) reject(spec, v);
      return v;
    case ParamType::Integer: {
      if (!v.is_number()) reject(spec, v);
      const double d = v.get<double>();
      if (!std::isfinite(d) || d != std::floor(d) || !in_range(spec, d)) reject(spec, v);
      return json(static_cast<long long>(d));
    }
    case ParamType::Number: {
      if (!v.is_number()) reject(spec, v);
      const double d = v.get<double>();
      if (!std::isfinite(d) || !in_range(spec, d)) reject(spec, v);
      return json(d);
    }
  }
  reject(spec, v);
}

}  // namespace

std::string ParamSpec::allowed() const { return english(allowed_message()); }

json ParamSpec::allowed_message() const {
  switch (type) {
    case ParamType::Choice:
      return msg("allowed.one_of", {{"choices", join(choices, " | ")}});
    case ParamType::Bool:
      return msg("allowed.bool");
    case ParamType::Integer:
    case ParamType::Number: {
      const std::string range = (min_exclusive ? "(" : "[") + format_number(min) + ", " +
                                format_number(max) + (max_exclusive ? ")" : "]");
      return msg(type == ParamType::Integer ? "allowed.integer_in" : "allowed.number_in",
                 {{"range", range}});
    }
  }
  return msg("allowed.bool");
}

json ParamSpec::describe(std::string help, std::string_view lang) const {
  static const char* kTypes[] = {"choice", "number", "integer", "bool"};
  json d = object({{"name", name},
                   {"type", kTypes[static_cast<int>(type)]},
                   {"default", default_value},
                   {"help", std::move(help)},
                   {"allowed", render(allowed_message(), lang)}});
  if (type == ParamType::Number || type == ParamType::Integer) {
    d["min"] = min;
    d["max"] = max;
    d["min_exclusive"] = min_exclusive;
    d["max_exclusive"] = max_exclusive;
    d["log"] = log;
  }
  if (type == ParamType::Choice) d["choices"] = choices;
  if (!when_param.empty()) d["when"] = {{when_param, when_value}};
  return d;
}

ParamSpec number(std::string_view name, double def, double min, double max) {
  ParamSpec s;
  s.name = name;
  s.type = ParamType::Number;
  s.default_value = def;
  s.min = min;
  s.max = max;
  return s;
}

ParamSpec integer(std::string_view name, long long def, long long min, long long max) {
  ParamSpec s =
      number(name, static_cast<double>(def), static_cast<double>(min), static_cast<double>(max));
  s.type = ParamType::Integer;
  s.default_value = def;
  return s;
}

ParamSpec choice(std::string_view name, std::string_view def, std::vector<std::string> choices) {
  ParamSpec s;
  s.name = name;
  s.type = ParamType::Choice;
  s.default_value = std::string(def);
  s.choices = std::move(choices);
  return s;
}

ParamSpec choice(std::string_view name, std::string_view def,
                 std::initializer_list<const char*> choices) {
  return choice(name, def, std::vector<std::string>(choices.begin(), choices.end()));
}

ParamSpec boolean(std::string_view name, bool def) {
  ParamSpec s;
  s.name = name;
  s.type = ParamType::Bool;
  s.default_value = def;
  return s;
}

Params validate_params(const std::string& experiment, const std::vector<ParamSpec>& specs,
                       const json& config) {
  if (!config.is_object()) refuse("err.config_object", {{"got", shown_value(config)}});
  json values = json::object();
  for (const auto& spec : specs) values[spec.name] = spec.default_value;
  for (const auto& [key, value] : config.items()) {
    if (key == "experiment") continue;
    const ParamSpec* spec = nullptr;
    for (const auto& s : specs)
      if (s.name == key) spec = &s;
    if (!spec) {
      std::vector<std::string> names;
      for (const auto& s : specs) names.push_back(s.name);
      refuse("err.unknown_param", {{"got", shown_value(json(key))},
                                   {"experiment", experiment},
                                   {"names", join(names, ", ")}});
    }
    values[key] = check_value(*spec, value);
  }
  return Params(std::move(values));
}

json parse_param_text(const ParamSpec& spec, const std::string& text) {
  switch (spec.type) {
    case ParamType::Choice:
      return json(text);
    case ParamType::Bool:
      if (text == "true" || text == "1") return json(true);
      if (text == "false" || text == "0") return json(false);
      break;
    case ParamType::Integer:
    case ParamType::Number: {
      const char* begin = text.c_str();
      char* end = nullptr;
      const double v = std::strtod(begin, &end);
      if (!text.empty() && end == begin + text.size() && std::isfinite(v)) return json(v);
      break;
    }
  }
  reject(spec, json(text));
}

}  // namespace looplab
