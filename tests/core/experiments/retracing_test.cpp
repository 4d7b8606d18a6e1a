// retracing_test.cpp — trace counts and reasons in every retracing scenario, and the relaxed
// batch dimension computing exactly what per-shape programs compute.
#include <gtest/gtest.h>

#include <cmath>

#include "looplab/api/api.hpp"
#include "test_util.hpp"

namespace looplab {
namespace {

json run_retracing(const std::string& extra) {
  return run_to_end(R"({"experiment": "retracing")" + extra + "}", 100.0);
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

TEST(Retracing, ATraceAgainstAReplayIsDecidedFromPairedRounds) {
  const json r = run_retracing("");
  const json& cmp = r["summary"]["comparisons"];
  ASSERT_EQ(cmp.size(), 1u);
  EXPECT_EQ(cmp[0]["id"], "trace_vs_replay");
  EXPECT_EQ(cmp[0]["a"]["label"], "a replay");
  EXPECT_EQ(cmp[0]["b"]["label"], "a training trace");
  // After the script, at least the rounds of a first look: the verdict has its 95% interval.
  EXPECT_GE(cmp[0]["rounds"].get<int>(), kMinDecidingRounds);
  EXPECT_LE(cmp[0]["ci"][0].get<double>(), cmp[0]["ratio"].get<double>());
  EXPECT_GE(cmp[0]["ci"][1].get<double>(), cmp[0]["ratio"].get<double>());
  EXPECT_GT(cmp[0]["a"]["value"].get<double>(), 0.0);
  // The rounds' replays and traces are not the script's calls: the counts stay the script's.
  EXPECT_EQ(r["summary"]["calls"], 40);
  EXPECT_EQ(r["summary"]["traces"], 5);
}
}  // namespace
}  // namespace looplab
