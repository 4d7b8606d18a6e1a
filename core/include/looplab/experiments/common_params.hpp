// looplab/experiments/common_params.hpp — the parameters several experiments share, declared once:
// the same name and range wherever they appear, with each experiment's own default.
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

// Their help texts are in the catalogs, as each experiment's param.<experiment>.<name>.
// n: the number of training samples, from `min` to 1,000,000.
ParamSpec samples(long long def, long long min);
// batch: rows per training step, 1 to 10,000 (default 100).
ParamSpec batch();
// hidden: units of the one hidden layer, 1 to 512 (default 20).
ParamSpec hidden();
// lr: Adam's learning rate, in (0, 1] on a log scale (default 1e-3).
ParamSpec adam_lr();
// seed: 0 to 2^32 − 1 (default 1).
ParamSpec seed();
// max_seconds: after its configured work, a run with paired timings keeps timing rounds until
// every timing verdict is decided, for at most this many seconds more (counted from the end of
// that work); 0 to 600 (run.hpp).
ParamSpec max_seconds(double def = 10.0);
// band: how far from 1 a time ratio must be to count as a difference, 0.005 to 0.5 (default
// 0.05: ±5%; paired.hpp).
ParamSpec band();
// chunk_ms: the shortest timed chunk, 0.1 to 1000 ms on a log scale.
ParamSpec chunk_ms(double def);
// repeats: timed chunks per measurement, 1 to 101 (the median is kept).
ParamSpec repeats(long long def);

// The rule of every experiment that batches its data: batch ≤ n (n_name: what n is called in the
// message, "n" or a message such as "the CSV's rows"). Throws ConfigError naming batch. (Two
// functions, not a default argument: a default "n" would be a json built in the caller's frame.)
void check_batch_at_most_n(long long batch, long long n, const json& n_name);
void check_batch_at_most_n(long long batch, long long n);

}  // namespace looplab::common
