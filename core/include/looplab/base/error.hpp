// looplab/base/error.hpp — the one error users see.
//
// Bad input anywhere (a config value, an experiment id, a CSV cell, a size over the limits) throws
// ConfigError; its what() is the one-line message the CLI prints, the page shows and the widget
// shows, naming the parameter and what it allows:
//
//   throw ConfigError("lr_raw: must be a number in (0, 10], got -1");
#pragma once

#include <stdexcept>

namespace looplab {

// A config value or experiment id that is not allowed. what() is the one-line message users see.
struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace looplab
