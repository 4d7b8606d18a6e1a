// fuzz_config — libFuzzer target for the JSON boundary: any bytes → validate_config_json and
// start_run (construction only; fuzz_run advances runs).
//
// Bad input must come back as looplab::ConfigError; any other exception, a crash or a sanitizer
// report is a finding. create() is called only for configs the limits accept, which also bounds
// what one input may allocate (the limits are part of what is tested).
#include <cstddef>
#include <cstdint>
#include <string>

#include "looplab/api/api.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    looplab::validate_config_json(text);
  } catch (const looplab::ConfigError&) {
    return 0;  // the expected answer to bad input
  }
  try {
    auto run = looplab::start_run(text);
    run->progress_json();
  } catch (const looplab::ConfigError&) {
    // validate accepted it, so create must too
    __builtin_trap();
  }
  return 0;
}
