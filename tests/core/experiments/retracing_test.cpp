// retracing_test.cpp — trace counts and reasons in every retracing scenario, and the relaxed
// batch dimension computing exactly what per-shape programs compute.
#include <gtest/gtest.h>

#include <cmath>

#include "looplab/api/api.hpp"
#include "looplab/train/trace_cache.hpp"

namespace looplab {
namespace {

json run_retracing(const std::string& extra) {
  auto run = start_run(R"({"experiment": "retracing")" + extra + "}");
  while (!run->advance(100.0)) {
  }
  return json::parse(run->result_json());
}

std::vector<std::string> reasons(const json& r) {
  std::vector<std::string> out;
  for (const auto& t : r["runs"]) out.push_back(t["reason"].get<std::string>());
  return out;
}

TEST(Retracing, EveryNewSignatureTracesOnceWithItsReason) {
  const json r = run_retracing("");  // n 1050, batch 100 x 2 epochs, then 64, then evaluate
  EXPECT_EQ(r["summary"]["calls"], 11 * 2 + 17 + 1);
  EXPECT_EQ(reasons(r), (std::vector<std::string>{
                            "first call", "new batch shape [50 x 1]", "new batch shape [64 x 1]",
                            "new batch shape [26 x 1]", "new static argument training=false"}));
  EXPECT_EQ(r["runs"][1]["call"], 10);  // the partial batch at the end of the first epoch
  int traced = 0;
  for (const auto& c : r["calls"]) traced += c["traced"].get<bool>();
  EXPECT_EQ(traced, 5);
  EXPECT_EQ(r["calls"][21]["traced"], false) << "the second epoch's partial batch replays";
}

TEST(Retracing, DropRemainderRemovesThePartialBatchTraces) {
  const json r = run_retracing(R"(, "drop_remainder": true)");
  EXPECT_EQ(reasons(r), (std::vector<std::string>{"first call", "new batch shape [64 x 1]",
                                                  "new static argument training=false"}));
}

TEST(Retracing, RelaxedBatchTracesOncePerStaticArgument) {
  const json r = run_retracing(R"(, "relaxed_batch": true)");
  ASSERT_EQ(r["summary"]["traces"], 2);
  EXPECT_EQ(r["runs"][0]["reason"].get<std::string>().rfind("first call", 0), 0u);
  EXPECT_EQ(
      r["runs"][1]["reason"].get<std::string>().rfind("new static argument training=false", 0), 0u);
  const json quiet =
      run_retracing(R"(, "relaxed_batch": true, "evaluate": false, "second_batch": 100)");
  EXPECT_EQ(quiet["summary"]["traces"], 1);
}

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

TEST(Retracing, RelaxedProgramComputesWhatPerShapeProgramsCompute) {
  const CacheRun per_shape = train_through_cache({1, false, 50}, false);
  const CacheRun relaxed = train_through_cache({1, true, 50}, false);
  EXPECT_EQ(per_shape.traces, 2);
  EXPECT_EQ(relaxed.traces, 1);
  ASSERT_EQ(relaxed.losses.size(), per_shape.losses.size());
  for (std::size_t i = 0; i < per_shape.losses.size(); ++i)
    EXPECT_FLOAT_EQ(per_shape.losses[i], relaxed.losses[i]) << i;
}

// Compiled mode traces where traced mode does, for the same reasons, generates code at every
// trace, and trains the same: every call's loss within 1e-5 relative of traced mode's.
TEST(Retracing, CompiledModeRetracesAndRecompilesWhereTracedModeRetraces) {
  const json traced = run_retracing(R"(, "n": 300, "batch": 64, "second_batch": 50)");
  const json compiled =
      run_retracing(R"(, "n": 300, "batch": 64, "second_batch": 50, "mode": "compiled")");
  EXPECT_EQ(reasons(compiled), reasons(traced));
  for (const auto& t : compiled["runs"]) EXPECT_GT(t["codegen_ms"].get<double>(), 0.0);
  EXPECT_FALSE(traced["runs"][0].contains("codegen_ms"));
  const double a = traced["summary"]["last_finite_loss"],
               b = compiled["summary"]["last_finite_loss"];
  EXPECT_NEAR(b, a, 1e-5 * std::abs(a));
  const std::string reading = compiled["summary"]["reading"];
  EXPECT_NE(reading.find("In compiled mode every trace also produced the step as code"),
            std::string::npos)
      << reading;
  // Whether a compiler ran, per program, as the engine says: all, none or some of them.
  long long cached = 0;
  for (const auto& t : compiled["runs"]) cached += t["code_cached"].get<bool>() ? 1 : 0;
  const long long programs = static_cast<long long>(compiled["runs"].size());
  const char* says = cached == 0          ? "Each time, that is generating the code and running"
                     : cached == programs ? "No compiler ran: every program had been built before"
                                          : "had been built before (by an earlier run";
  EXPECT_NE(reading.find(says), std::string::npos) << cached << " of " << programs << reading;
  EXPECT_NE(reading.find("relaxed_batch cannot help in compiled mode"), std::string::npos)
      << reading;

  const CacheRun t = train_through_cache({1, false, 50, Mode::Traced}, true);
  const CacheRun c = train_through_cache({1, false, 50, Mode::Compiled}, true);
  EXPECT_EQ(t.traces, 3);
  EXPECT_EQ(c.traces, 3);
  ASSERT_EQ(c.losses.size(), t.losses.size());
  for (std::size_t i = 0; i < t.losses.size(); ++i)
    EXPECT_NEAR(c.losses[i], t.losses[i], 1e-5 * std::abs(t.losses[i])) << i;
}

TEST(Retracing, RelaxedBatchIsForTracedModeOnly) {
  try {
    start_run(R"({"experiment": "retracing", "relaxed_batch": true, "mode": "compiled"})");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "relaxed_batch: compiled code is generated for one batch shape, so relaxed_batch "
                 "needs mode = traced");
  }
}

TEST(Retracing, RelaxedProgramRefusesABatchBeyondItsCapacity) {
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

}  // namespace
}  // namespace looplab

namespace looplab {
namespace {

TEST(Unroll, EveryFactorTrainsTheSameAndProgramsGrowWithK) {
  auto run = start_run(R"({"experiment": "unroll", "n": 1000, "epochs": 2})");
  while (!run->advance(100.0)) {
  }
  const json r = json::parse(run->result_json());
  std::vector<int> ks;
  for (const auto& f : r["runs"]) ks.push_back(f["k"].get<int>());
  EXPECT_EQ(ks, (std::vector<int>{
                    1, 2, 5, 10}));  // 10 batches: the factors below 10 that divide it, then all
  const double loss = r["runs"][0]["final_loss"].get<double>();
  for (const auto& f : r["runs"]) {
    EXPECT_NEAR(f["final_loss"].get<double>(), loss, 1e-5 * loss) << "k = " << f["k"];
    EXPECT_EQ(f["instructions"].get<long long>(),
              f["k"].get<long long>() * r["runs"][0]["instructions"].get<long long>());
  }
}

}  // namespace
}  // namespace looplab

namespace looplab {
namespace {

std::string reading(const json& r) { return r["summary"]["reading"].get<std::string>(); }
bool says(const json& r, const std::string& words) {
  return reading(r).find(words) != std::string::npos;
}

TEST(Retracing, ReplaysAreTimedInChunksNeverOneCallAlone) {
  const json r = run_retracing("");  // runs of 9, 11 and 15 replays: none alone
  EXPECT_EQ(r["summary"]["untimed_replays"], 0);
  EXPECT_GE(r["summary"]["chunks"].get<int>(), 3) << "one chunk at least per run of replays";
  int replays = 0;
  for (const auto& c : r["calls"])
    if (!c["traced"].get<bool>()) {
      ++replays;
      ASSERT_TRUE(c["ms"].is_number()) << "replay " << c["call"] << " was not timed";
      EXPECT_GT(c["ms"].get<double>(), 0.0) << "a chunk never reads 0";
    }
  EXPECT_EQ(r["series"]["replayed"]["call"].size(), static_cast<std::size_t>(replays));
  // A replay between two traces (second_batch = 6 over n = 20: 6, 6, 6 and a traced short 2 ...)
  // is run but never timed alone.
  const json lone =
      run_retracing(R"(, "n": 20, "batch": 10, "epochs": 1, "second_batch": 6, "evaluate": false)");
  // epoch 1: [10] traced, [10] lone replay; epoch 2: [6] traced, [6] [6] replays, [2] traced
  EXPECT_EQ(lone["summary"]["untimed_replays"], 1);
  EXPECT_TRUE(lone["calls"][1]["ms"].is_null());
  EXPECT_TRUE(lone["calls"][3]["ms"].is_number());
}

TEST(Retracing, HintsFollowTheConfigAndTheReasonsSeen) {
  const json r = run_retracing("");
  EXPECT_TRUE(says(r,
                   "drop_remainder would remove the 2 traces of a short last batch "
                   "([50 x 1], [26 x 1])"))
      << reading(r);
  EXPECT_TRUE(says(r,
                   "relaxed_batch would serve every batch size with one program: 3 traces "
                   "fewer"))
      << reading(r);
  EXPECT_TRUE(says(r, "second_batch = batch")) << reading(r);
  EXPECT_EQ(r["summary"]["answer"].get<std::string>().rfind(
                "It got slow because 5 of its 40 calls traced a new program, 3 of them", 0),
            0u)
      << r["summary"]["answer"];

  const json dropped = run_retracing(R"(, "drop_remainder": true)");
  EXPECT_FALSE(says(dropped, "drop_remainder")) << "already on: " << reading(dropped);
  EXPECT_TRUE(says(dropped, "relaxed_batch would")) << reading(dropped);

  const json relaxed = run_retracing(R"(, "relaxed_batch": true)");
  EXPECT_FALSE(says(relaxed, "relaxed_batch would")) << reading(relaxed);
  EXPECT_FALSE(says(relaxed, "drop_remainder would"))
      << "no short batch traced: " << reading(relaxed);
  EXPECT_TRUE(says(relaxed, "every trace here was needed")) << reading(relaxed);

  // A batch that divides n, one batch size, no evaluation: one trace, nothing to fix.
  const json quiet =
      run_retracing(R"(, "n": 1000, "batch": 100, "second_batch": 100, "evaluate": false)");
  EXPECT_EQ(quiet["summary"]["traces"], 1);
  EXPECT_FALSE(says(quiet, "would")) << reading(quiet);
  EXPECT_EQ(quiet["summary"]["answer"].get<std::string>().rfind("It traced only on its first", 0),
            0u)
      << quiet["summary"]["answer"];
}

TEST(Retracing, ATraceAgainstAReplayIsAComparisonOfMeasuredSides) {
  const json r = run_retracing("");
  const json& cmp = r["summary"]["comparisons"];
  ASSERT_EQ(cmp.size(), 1u);
  EXPECT_EQ(cmp[0]["id"], "trace_vs_replay");
  EXPECT_EQ(cmp[0]["b"]["label"], "the cheapest training trace");
  EXPECT_EQ(cmp[0]["b"]["spread"], r["environment"]["clock_resolution_ns"].get<double>() * 1e-6)
      << "one timing: uncertain by a clock tick";
  EXPECT_GT(cmp[0]["a"]["value"].get<double>(), 0.0);
  EXPECT_GE(cmp[0]["a"]["spread"].get<double>(), 0.0);
}

}  // namespace
}  // namespace looplab
