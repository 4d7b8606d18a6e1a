// looplab/experiments/common_params.hpp — the parameters several experiments share, declared once:
// the same name, range and help text wherever they appear, with each experiment's own default.
//
//   e.params = {
//       common::samples(10000, 100),   // n: "number of samples, x and y ~ N(0, 1)", [100, 1e6]
//       common::batch(),               // batch: 100, [1, 10000]
//       common::hidden(),              // hidden: 20, [1, 512]
//       common::adam_lr(),             // lr: 1e-3, (0, 1], log
//       common::seed(),                // seed: 1, [0, 2^32 − 1]
//   };
//
// Parameters whose ranges differ from experiment to experiment (epochs, unroll, mode) stay in the
// experiment's file, declared with number / integer / choice (params.hpp).
#pragma once

#include <string>

#include "looplab/experiments/params.hpp"

namespace looplab::common {

inline constexpr const char* kSamplesHelp = "number of samples, x and y ~ N(0, 1)";
inline constexpr const char* kBatchHelp = "batch size (the last partial batch is dropped)";
inline constexpr const char* kSeedHelp = "seed of the data and the initial weights";
inline constexpr const char* kChunkHelp = "each timed chunk of steps lasts at least this long";

// n: the number of training samples, from `min` to 1,000,000.
ParamSpec samples(long long def, long long min, std::string help = kSamplesHelp);
// batch: rows per training step, 1 to 10,000 (default 100).
ParamSpec batch(std::string help = kBatchHelp);
// hidden: units of the one hidden layer, 1 to 512 (default 20).
ParamSpec hidden();
// lr: Adam's learning rate, in (0, 1] on a log scale (default 1e-3).
ParamSpec adam_lr();
// seed: 0 to 2^32 − 1 (default 1).
ParamSpec seed(std::string help = kSeedHelp);
// chunk_ms: the shortest timed chunk, 0.1 to 1000 ms on a log scale.
ParamSpec chunk_ms(double def, std::string help = kChunkHelp);
// repeats: timed chunks per measurement, 1 to 101; help "timed chunks per <per> (the median is
// kept)".
ParamSpec repeats(long long def, const std::string& per);

}  // namespace looplab::common
