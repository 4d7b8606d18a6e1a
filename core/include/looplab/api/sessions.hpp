// looplab/api/sessions.hpp — a training session from a call-granularity config, for callers that
// drive training one batch per call themselves (the browser's JavaScript variants).
//
//   auto s = looplab::create_session(R"({"experiment": "call-granularity", "batch": 50})");
//   LinearData d = looplab::session_data(R"({"experiment": "call-granularity", "n": 300})");
#pragma once

#include <memory>
#include <string>

#include "looplab/data/xy_data.hpp"
#include "looplab/train/session.hpp"

namespace looplab {

// Validated by the experiment's parameter declarations; throws ConfigError naming the parameter.
std::unique_ptr<TrainerSession> create_session(const std::string& config_json);
LinearData session_data(const std::string& config_json);  // n examples (train/session.hpp)

}  // namespace looplab
