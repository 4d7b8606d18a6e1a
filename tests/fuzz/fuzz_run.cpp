// fuzz_run — libFuzzer target: runs any experiment on a small random *valid* config.
//
// The fuzz bytes choose an experiment, its defaults or its small config, and, for each parameter,
// either that value or a value inside its declared range, biased towards the small end (integers
// like n, epochs or hidden span decades; uniform picks would almost always be huge). Configs the
// experiment's own checks reject are skipped, and so are configs whose Estimate exceeds a fuzzing
// budget: the runs must stay in the millisecond range for libFuzzer to make progress. Each run is
// advanced in small chunks up to a wall-time cap, then progress_json() and (when done)
// result_json() must parse and name the experiment. A crash, a sanitizer report, an exception other
// than ConfigError or an assertion below is a finding.
#include <fuzzer/FuzzedDataProvider.h>

#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "../core/experiments/result_contract.hpp"
#include "looplab/api/api.hpp"
#include "looplab/experiments/experiment.hpp"

namespace {

using looplab::json;
using looplab::ParamSpec;
using looplab::ParamType;

constexpr double kMaxSteps = 5'000;     // estimated steps per run
constexpr double kMaxBytes = 64e6;      // estimated bytes per run
constexpr double kMaxTimingMs = 300.0;  // estimated least time of its timed chunks
constexpr double kMaxWallMs = 300.0;    // then the run is dropped (cancel = stop advancing)

#define FUZZ_CHECK(cond)           \
  do {                             \
    if (!(cond)) __builtin_trap(); \
  } while (0)

// A value of spec's type inside its declared range, small values far more likely than large.
json pick(const ParamSpec& spec, FuzzedDataProvider& in) {
  switch (spec.type) {
    case ParamType::Choice:
      return spec.choices.at(in.ConsumeIntegralInRange<std::size_t>(0, spec.choices.size() - 1));
    case ParamType::Bool:
      return in.ConsumeBool();
    case ParamType::Integer: {
      const double u = in.ConsumeProbability<double>();
      return static_cast<long long>(spec.min +
                                    std::floor((spec.max - spec.min) * std::pow(u, 12.0)));
    }
    case ParamType::Number: {
      const int edge = in.ConsumeIntegralInRange<int>(0, 7);
      if (edge == 0 && !spec.min_exclusive) return spec.min;
      if (edge == 1 && !spec.max_exclusive) return spec.max;
      const double u = in.ConsumeProbability<double>();
      if (spec.log && spec.min >= 0.0) {  // log-uniform over (max·1e-9, max]
        const double lo = std::log(spec.max * 1e-9), hi = std::log(spec.max);
        const double v = std::exp(lo + (hi - lo) * u);
        return v > spec.min ? v : spec.max;
      }
      const double v = spec.min + (spec.max - spec.min) * u;
      return spec.min_exclusive && v <= spec.min ? spec.max : v;
    }
  }
  return nullptr;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const auto& all = looplab::experiments();
  const looplab::Experiment& e = all.at(in.ConsumeIntegralInRange<std::size_t>(0, all.size() - 1));
  // Half the inputs start from the experiment's small config (experiment.hpp), which runs in the
  // fuzzing budget as it is, the others from its defaults; then parameters change at random.
  json config = {{"experiment", e.id}};
  if (in.ConsumeBool()) config = looplab::with_assignments(config, e.small_config);
  for (const ParamSpec& spec : e.params)
    if (in.ConsumeBool()) config[spec.name] = pick(spec, in);
  const std::string text = config.dump();
  if (std::getenv("LOOPLAB_FUZZ_PRINT")) std::fprintf(stderr, "config: %s\n", text.c_str());

  try {
    const looplab::Params p = looplab::validate_params(e.id, e.params, config);
    if (e.check) e.check(p);
    if (e.estimate) {
      const looplab::Estimate est = e.estimate(p);
      if (est.steps > kMaxSteps || est.bytes > kMaxBytes || est.timing_ms > kMaxTimingMs) return 0;
    }
    looplab::validate_config_json(text);  // declared ranges and checks passed: the boundary agrees
  } catch (const looplab::ConfigError&) {
    return 0;  // a cross-parameter rule (batch <= n, ...) rejected it
  }

  auto run = looplab::start_run(text);
  const auto start = std::chrono::steady_clock::now();
  bool done = false;
  while (!done) {
    done = run->advance(2.0);
    const json progress = json::parse(run->progress_json());
    FUZZ_CHECK(progress.at("done").get<bool>() == done);
    FUZZ_CHECK(looplab::check_progress(progress).empty());  // the progress contract
    if (std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count() > kMaxWallMs)
      break;
  }
  if (done) {
    const json result = json::parse(run->result_json());
    FUZZ_CHECK(result.at("experiment") == e.id);
    FUZZ_CHECK(looplab::check_result(result).empty());  // the result contract, for any config
    FUZZ_CHECK(result.at("runs").is_array());
  }
  return 0;
}
