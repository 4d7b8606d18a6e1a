// looplab/experiments/params.hpp — parameter declarations: one list per experiment drives
// validation, the CLI's --set, the page's controls and the widget attributes.
//
//   const std::vector<ParamSpec> specs = {
//       number("lr_raw", 1e-4, 0, 10).exclusive_min().log_scale(),
//       choice("scaling", "standardize", {"standardize", "minmax"}),
//   };
//   // Each parameter's help text is in the catalogs: param.<experiment>.<name>.
//   Params p = validate_params("standardization", specs, config);   // throws ConfigError
//   double lr = p.number("lr_raw");
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "looplab/base/error.hpp"
#include "looplab/base/format.hpp"
#include "looplab/base/json.hpp"

namespace looplab {

enum class ParamType { Choice, Number, Integer, Bool };

struct ParamSpec {
  std::string name;
  ParamType type = ParamType::Number;
  json default_value;
  double min = 0.0, max = 0.0;  // Number and Integer
  bool min_exclusive = false, max_exclusive = false;
  bool log = false;                  // a hint for controls: the value spans decades
  std::vector<std::string> choices;  // Choice
  std::string when_param;  // shown only when another parameter has this value (or one of these)
  json when_value;

  ParamSpec& exclusive_min() {
    min_exclusive = true;
    return *this;
  }
  ParamSpec& exclusive_max() {
    max_exclusive = true;
    return *this;
  }
  ParamSpec& log_scale() {
    log = true;
    return *this;
  }
  ParamSpec& only_when(std::string param, json value) {
    when_param = std::move(param);
    when_value = std::move(value);
    return *this;
  }
  std::string allowed() const;   // "a number in (0, 10]", "one of eager | reference", ...
  json allowed_message() const;  // the same as a message (base/i18n.hpp)
  json describe(std::string help, std::string_view lang) const;  // `allowed` in lang
};

// Names and literal choices come as views and a flat list: every declaration is a call with
// constants, not strings built at the call site (the nine experiments declare ~130 parameters).
ParamSpec number(std::string_view name, double def, double min, double max);
ParamSpec integer(std::string_view name, long long def, long long min, long long max);
ParamSpec choice(std::string_view name, std::string_view def, std::vector<std::string> choices);
ParamSpec choice(std::string_view name, std::string_view def,
                 std::initializer_list<const char*> choices);
ParamSpec boolean(std::string_view name, bool def);

// A validated, complete set of values (defaults filled in).
class Params {
 public:
  explicit Params(json values) : values_(std::move(values)) {}
  double number(const std::string& name) const { return values_.at(name).get<double>(); }
  long long integer(const std::string& name) const { return values_.at(name).get<long long>(); }
  std::string choice(const std::string& name) const { return values_.at(name).get<std::string>(); }
  bool flag(const std::string& name) const { return values_.at(name).get<bool>(); }
  const json& values() const { return values_; }

 private:
  json values_;
};

// Checks every key of `config` (except "experiment") against `specs`: unknown keys, types and
// ranges. Throws ConfigError with a one-line message naming the parameter and what it allows.
Params validate_params(const std::string& experiment, const std::vector<ParamSpec>& specs,
                       const json& config);

// Turns the text of `--set name=value` (or a URL/attribute value) into a JSON value of the
// parameter's type. Throws ConfigError if it does not parse.
json parse_param_text(const ParamSpec& spec, const std::string& text);

}  // namespace looplab
