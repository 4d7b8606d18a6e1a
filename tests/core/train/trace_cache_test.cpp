// trace_cache_test.cpp — the trace cache (train/trace_cache.hpp) and the relaxed-batch program
// it can trace: what each mode traces and that the losses agree. (The retracing experiment built on
// it is tested in tests/core/experiments/retracing_test.cpp.)
#include "looplab/train/trace_cache.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "looplab/base/rng.hpp"
#include "looplab/train/graph_trainer.hpp"
#include "looplab/train/model.hpp"
#include "looplab/train/optim.hpp"

namespace looplab {
namespace {

// Three epochs of 130 rows in batches of 50, 50, 30 through a TraceCache of a seeded MLP with Adam;
// with `evaluate`, one more call on the first batch with training=false. Every call's loss.
struct CacheRun {
  std::vector<float> losses;
  int traces = 0;
};
CacheRun train_through_cache(const TraceCacheOptions& options, bool evaluate) {
  Tensor x({130, 1}), y({130, 1});
  Rng rng(2);
  for (std::size_t i = 0; i < 130; ++i)
    x[i] = static_cast<float>(rng.normal()), y[i] = static_cast<float>(rng.normal());
  Rng init(4);
  Mlp mlp(1, {6}, 1, Activation::Tanh, init);
  Adam adam(1e-2, mlp.parameters());
  TraceCache cache(mlp, adam, options);
  CacheRun run;
  for (int epoch = 0; epoch < 3; ++epoch)
    for (int start = 0; start < 130; start += 50) {
      const int rows = std::min(50, 130 - start);
      run.losses.push_back(cache.call(x.data() + start, y.data() + start, rows, true));
    }
  if (evaluate) run.losses.push_back(cache.call(x.data(), y.data(), 50, false));
  run.traces = cache.traces();
  return run;
}

TEST(TraceCache, RelaxedProgramComputesWhatPerShapeProgramsCompute) {
  const CacheRun per_shape = train_through_cache({1, false, 50}, false);
  const CacheRun relaxed = train_through_cache({1, true, 50}, false);
  EXPECT_EQ(per_shape.traces, 2);
  EXPECT_EQ(relaxed.traces, 1);
  ASSERT_EQ(relaxed.losses.size(), per_shape.losses.size());
  for (std::size_t i = 0; i < per_shape.losses.size(); ++i)
    EXPECT_FLOAT_EQ(per_shape.losses[i], relaxed.losses[i]) << i;
}

// Compiled mode traces where traced mode does and trains the same: every call's loss within 1e-5
// relative of traced mode's.
TEST(TraceCache, CompiledModeTracesWhereTracedModeTracesWithTheSameLosses) {
  const CacheRun t = train_through_cache({1, false, 50, Mode::Traced}, true);
  const CacheRun c = train_through_cache({1, false, 50, Mode::Compiled}, true);
  EXPECT_EQ(t.traces, 3);
  EXPECT_EQ(c.traces, 3);
  ASSERT_EQ(c.losses.size(), t.losses.size());
  for (std::size_t i = 0; i < t.losses.size(); ++i)
    EXPECT_NEAR(c.losses[i], t.losses[i], 1e-5 * std::abs(t.losses[i])) << i;
}

TEST(TraceCache, RelaxedProgramRefusesABatchBeyondItsCapacity) {
  Tensor x({64, 1}, 1.0f), y({64, 1});
  Rng init(1);
  Mlp mlp(1, {4}, 1, Activation::Tanh, init);
  Adam adam(1e-3, mlp.parameters());
  GraphTrainer t(Mode::Traced, mlp, adam, {32, 1}, {32, 1});
  const float* xs[] = {x.data()};
  const float* ys[] = {y.data()};
  float loss;
  EXPECT_NO_THROW(t.run(xs, ys, &loss, 16));
  EXPECT_THROW(t.run(xs, ys, &loss, 64), CapacityError);
}

// Each trace says why, as a reason the experiments translate and reason_text() says in English.
TEST(TraceCache, EveryTraceRecordsItsReason) {
  Tensor x({64, 1}, 1.0f), y({64, 1});
  Rng init(1);
  Mlp mlp(1, {4}, 1, Activation::Tanh, init);
  Adam adam(1e-3, mlp.parameters());
  TraceCache cache(mlp, adam, {1, false, 0});
  cache.call(x.data(), y.data(), 64, true);
  cache.call(x.data(), y.data(), 64, true);
  cache.call(x.data(), y.data(), 50, true);
  cache.call(x.data(), y.data(), 50, false);
  std::vector<std::string> said;
  for (const TraceEvent& e : cache.events()) said.push_back(reason_text(e, 1));
  EXPECT_EQ(said, (std::vector<std::string>{"first call", "", "new batch shape [50 x 1]",
                                            "new static argument training=false"}));
  EXPECT_EQ(cache.events()[1].reason, TraceReason::None);

  TraceCache relaxed(mlp, adam, {1, true, 64});
  relaxed.call(x.data(), y.data(), 50, true);
  EXPECT_EQ(relaxed.events()[0].relaxed_rows, 64);
  EXPECT_EQ(reason_text(relaxed.events()[0], 1), "first call (relaxed batch: traced for 64 rows)");
}

}  // namespace
}  // namespace looplab
