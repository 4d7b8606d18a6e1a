// sessions.cpp — sessions from call-granularity configs (sessions.hpp).
#include "looplab/api/sessions.hpp"

#include <cstdint>

#include "looplab/api/api.hpp"
#include "looplab/base/i18n.hpp"
#include "looplab/base/json.hpp"

namespace looplab {

namespace {

json call_granularity_config(const std::string& config_json) {
  const json c = parse_json(validate_config_json(config_json));
  if (c["experiment"] != "call-granularity")
    throw ConfigError(msg("err.session_config", {{"got", c["experiment"].dump()}}));
  return c;
}

}  // namespace

std::unique_ptr<TrainerSession> create_session(const std::string& config_json) {
  return std::make_unique<TrainerSession>(session_config(call_granularity_config(config_json)));
}

LinearData session_data(const std::string& config_json) {
  const json c = call_granularity_config(config_json);
  return session_data(session_config(c), c["n"].get<int>(), c["seed"].get<std::uint64_t>());
}

}  // namespace looplab
