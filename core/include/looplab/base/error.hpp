// looplab/base/error.hpp — the one error users see.
//
// Bad input anywhere (a config value, an experiment id, a CSV cell, a size over the limits) throws
// ConfigError; its what() is the one-line English message the CLI prints, the page shows and the
// widget shows, naming the parameter and what it allows. Thrown with a message (i18n.hpp), it
// also carries the key and arguments, so the CLI and the page can say it in another language:
//
//   throw ConfigError(msg("err.must_be", {{"name", "lr_raw"}, {"allowed", ...}, {"got", "-1"}}));
//   throw ConfigError("lr_raw: must be a number in (0, 10], got -1");   // English only
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

#include "looplab/base/json.hpp"

namespace looplab {

// A config value or experiment id that is not allowed. what() is the one-line message users see.
struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
  explicit ConfigError(const json& message);
  // The message as {key, args}; for an English-only error, {key: "err.text", args: {text}}.
  json message() const;

 private:
  std::shared_ptr<const json> message_;  // shared: an exception's copy must not throw
};

}  // namespace looplab
