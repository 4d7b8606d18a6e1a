// timed_test.cpp — the pass/fail tests that assert a ratio of timings, because an issue asks for
// the effect on the default config. Their suites are named Timed*: `make test` runs them at its
// end, alone (natively and in wasm), not beside the other trees' compilers. Nothing else here.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "looplab/api/api.hpp"
#include "test_util.hpp"

namespace looplab {
namespace {

json run_timed(const std::string& config) { return run_to_end(config, 100.0); }

// NOTE: a timing in a pass/fail test, because issue 11 asks that the default show the seed's
// cause. Measured on the default config (µs per step, train_on_batch / fit) on the shared 2-core
// machine: natively 1.65, 1.84, 1.84 (load ~5) and 1.86, 2.15, 2.29, 1.89, 6.08 (load ~13); in
// wasm under node 1.64, 1.65, 1.84. The margin sits about 20% below the smallest ratio seen, so
// only a lost effect fails it. Its suite is named Timed*: `make test` runs it at the end, alone,
// not beside the other trees' compilers (there it once read 1.29 in wasm).
constexpr double kMinEagerPerCallOverFit = 1.3;

TEST(TimedCallGranularity, DefaultShowsTrainOnBatchSlowerThanFitBecauseItRunsEagerly) {
  const json r = run_timed(R"({"experiment": "call-granularity"})");
  const json& s = r["summary"];
  const double fit = s["us_per_step"]["fit"], tob = s["us_per_step"]["train_on_batch"];
  EXPECT_GE(tob / fit, kMinEagerPerCallOverFit) << tob << " vs " << fit << " µs per step";
  // The verdicts also weigh the chunks' spread, which a loaded machine widens: the answer must
  // follow them, whichever they are.
  const json& headline = s["comparisons"][0];
  EXPECT_EQ(headline["id"], "train_on_batch_vs_fit");
  EXPECT_EQ(s["comparisons"][1]["id"], "eager_vs_traced_per_call");
  const std::string answer = s["answer"];
  if (headline["verdict"] == "inconclusive") {
    EXPECT_EQ(answer.rfind("On this run, there is not enough evidence yet", 0), 0u) << answer;
  } else if (headline["verdict"] != "b") {
    EXPECT_EQ(answer.rfind("On this run train_on_batch was not measurably slower", 0), 0u)
        << answer;
  } else if (s["comparisons"][1]["verdict"] == "b") {  // the traced step faster
    EXPECT_NE(answer.find("mainly because it ran its step eagerly"), std::string::npos) << answer;
  }
  EXPECT_TRUE(s["same_losses"].get<bool>());
}

#ifndef __EMSCRIPTEN__  // no threads in this wasm build: the load tests skip there
// Competing load in the same process: one spinning thread per core, so the run's thread is
// preempted at random moments for the whole run (natively; wasm here has no threads).
class BusyThreads {
 public:
  BusyThreads() {
    const unsigned n = std::max(1u, std::thread::hardware_concurrency());
    for (unsigned i = 0; i < n; ++i)
      threads_.emplace_back([this] {
        volatile double x = 1.0;
        while (!stop_.load(std::memory_order_relaxed)) x = x * 1.0000001 + 1e-9;
      });
  }
  ~BusyThreads() {
    stop_ = true;
    for (std::thread& t : threads_) t.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

const json* comparison_named(const json& summary, const std::string& id) {
  for (const json& c : summary["comparisons"])
    if (c["id"] == id) return &c;
  return nullptr;
}
#endif

// NOTE: issue 24 asks that the paired rounds still decide the seed's effect under a competing
// load. The runs take extra rounds until the verdicts are decided, here for up to 20 s (the
// default is 10): on the shared 2-core machine under a load average of 5-8 one run in several
// needed more than 10 s to decide call-granularity's 2x effect.
TEST(TimedPairedUnderLoad, CallGranularityStillFindsTheEagerStepSlower) {
#ifdef __EMSCRIPTEN__
  GTEST_SKIP() << "no threads in this wasm build";
#else
  const BusyThreads load;
  const json r = run_timed(R"({"experiment": "call-granularity", "max_seconds": 20})");
  for (const char* id : {"train_on_batch_vs_fit", "eager_vs_traced_per_call"}) {
    const json* c = comparison_named(r["summary"], id);
    ASSERT_NE(c, nullptr) << id;
    EXPECT_EQ((*c)["verdict"], "b") << c->dump();  // fit / the traced step faster
  }
#endif
}

TEST(TimedPairedUnderLoad, PipelinesStillFindPrebatchedFaster) {
#ifdef __EMSCRIPTEN__
  GTEST_SKIP() << "no threads in this wasm build";
#else
  const BusyThreads load;
  const json r = run_timed(R"({"experiment": "pipelines", "max_seconds": 20})");
  const json* c = comparison_named(r["summary"], "pipeline_prebatched_vs_slices");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ((*c)["verdict"], "a") << c->dump();  // the pipeline alone: 20-25x
#endif
}

// Seed 004's overhead: at N = 10 the traced step was ~18x faster than eager's, at N = 10^6 ~120x
// (natively, 2026-12-04); the paired rounds at the smallest and the largest N must still say so.
TEST(TimedPairedUnderLoad, OverheadStillFindsTracedFasterThanEager) {
#ifdef __EMSCRIPTEN__
  GTEST_SKIP() << "no threads in this wasm build";
#else
  const BusyThreads load;
  const json r = run_timed(R"({"experiment": "overhead", "max_seconds": 20})");
  for (const char* id : {"traced_vs_eager_at_n_min", "traced_vs_eager_at_n_max"}) {
    const json* c = comparison_named(r["summary"], id);
    ASSERT_NE(c, nullptr) << id;
    EXPECT_EQ((*c)["verdict"], "a") << c->dump();  // traced faster
  }
#endif
}

}  // namespace
}  // namespace looplab
