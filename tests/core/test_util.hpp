// test_util.hpp — small helpers shared by the GoogleTest files.
#pragma once

#include <string>

#include "looplab/api/api.hpp"

namespace looplab {

// The ConfigError message validation gives for a config, or "" when it is valid.
inline std::string error_of(const std::string& config) {
  try {
    validate_config_json(config);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace looplab
