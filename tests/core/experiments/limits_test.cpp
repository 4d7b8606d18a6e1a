// limits_test.cpp — every experiment estimates memory and steps before allocating (Experiment::
// estimate), api.cpp refuses configs over the build's limits with a message stating limit and
// estimate, and the estimates are checked against the heap the runs really use.
#include <gtest/gtest.h>

#include <algorithm>

// Under AddressSanitizer (g++ defines __SANITIZE_ADDRESS__, clang has the feature test) malloc is
// ASan's, and glibc's mallinfo2() does not see it: no measurement there.
#if defined(__SANITIZE_ADDRESS__)
#define LOOPLAB_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LOOPLAB_ASAN 1
#endif
#endif
#if defined(__EMSCRIPTEN__) || (defined(__GLIBC__) && !defined(LOOPLAB_ASAN))
#include <malloc.h>
#define LOOPLAB_CAN_MEASURE_HEAP 1
#endif

#include "looplab/api/api.hpp"
#include "looplab/experiments/experiment.hpp"
#include "test_util.hpp"

namespace looplab {
namespace {

Estimate estimate_of(const std::string& config_text) {
  const json config = json::parse(config_text);
  const Experiment& e = find_experiment(config["experiment"].get<std::string>());
  return e.estimate(validate_params(e.id, e.params, config));
}

// The four experiments this file was written with must have an estimate; experiments added later
// should too (experiment.hpp), and are checked here as soon as they do.
TEST(Limits, EveryOriginalExperimentHasAnEstimate) {
  for (const char* id : {"standardization", "execution-modes", "unroll", "retracing"})
    EXPECT_TRUE(static_cast<bool>(find_experiment(id).estimate)) << id;
}

// The page runs the defaults in wasm, so they must fit the smaller (wasm) limits.
TEST(Limits, DefaultsFitTheWasmLimits) {
  for (const auto& e : experiments()) {
    if (!e.estimate) continue;
    const Estimate est = estimate_of(json{{"experiment", e.id}}.dump());
    EXPECT_GT(est.bytes, 0.0) << e.id;
    // overhead and matrix time chunks of adaptive length: they are bounded by time, not steps (0).
    if (e.id != "overhead" && e.id != "matrix") {
      EXPECT_GT(est.steps, 0.0) << e.id;
    }
    EXPECT_LE(est.bytes, kWasmLimits.bytes) << e.id;
    EXPECT_LE(est.steps, kWasmLimits.steps) << e.id;
  }
  // And the matrix's seed 001 models at their own defaults, four modes alive.
  EXPECT_LE(estimate_of(R"({"experiment": "matrix", "models": "seed001"})").bytes,
            kWasmLimits.bytes);
}

// No config of the four experiments needs more than the native 4 GB (their parameter ranges and
// checks bound them), so the memory limit bites in the wasm build: refused there, accepted here.
TEST(Limits, OverTheWasmMemoryLimitIsRefusedThereWithLimitAndEstimate) {
  const std::string config =
      R"({"experiment": "execution-modes", "n": 120000, "batch": 10000, "hidden": 512, "unroll": 12})";
  const Estimate est = estimate_of(config);
  ASSERT_GT(est.bytes, kWasmLimits.bytes);
  ASSERT_LT(est.bytes, kNativeLimits.bytes);
  const std::string m = error_of(config);
#ifdef __EMSCRIPTEN__
  EXPECT_EQ(
      m,
      "config: needs about 826 MB of memory (estimated), over the 400 MB limit of the wasm build; "
      "it depends on n, batch, hidden, epochs and unroll");
  try {  // create() refuses it the same way, before allocating
    start_run(config);
    ADD_FAILURE() << "create accepted a config over the limit";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), m);
  }
#else
  EXPECT_EQ(m, "");
#endif
}

TEST(Limits, OverTheStepLimitIsRefusedWithLimitAndEstimate) {
  const std::string config =
      R"({"experiment": "execution-modes", "n": 1000000, "batch": 1, "epochs": 1000, "unroll": 1})";
  EXPECT_EQ(estimate_of(config).steps, 5e9);  // five modes
  const std::string m = error_of(config);
  EXPECT_EQ(m.rfind("config: needs about 5,000,000,000 steps (estimated), over the ", 0), 0u) << m;
}

// Estimates are upper bounds of what the run allocates, and not wildly above it: the heap in use
// is sampled after creation and after every ~1 ms chunk, and its peak growth compared.
#ifdef LOOPLAB_CAN_MEASURE_HEAP
double heap_in_use() {
#ifdef __EMSCRIPTEN__
  const struct mallinfo m = mallinfo();
  return static_cast<double>(m.uordblks);
#else
  const struct mallinfo2 m = mallinfo2();
  return static_cast<double>(m.uordblks + m.hblkhd);
#endif
}

TEST(Limits, EstimatesBoundTheMeasuredHeap) {
  const char* configs[] = {
      // seed 001's Conv1D models: three graph modes and the hand-written loop alive per cell.
      R"({"experiment": "matrix", "models": "seed001", "sequences": 8, "channel_divisor": 16, "length_divisor": 20, "repeats": 1, "chunk_ms": 0.2, "max_seconds": 0})",
      R"({"experiment": "standardization", "data": "synthetic", "n": 200000, "max_iterations": 30, "mode": "eager"})",
      R"({"experiment": "standardization", "data": "synthetic", "n": 200000, "max_iterations": 30, "mode": "traced"})",
      R"({"experiment": "optimizers", "data": "synthetic", "n": 200000, "max_iterations": 30, "mode": "eager"})",
      R"({"experiment": "optimizers", "data": "synthetic", "n": 200000, "max_iterations": 30, "mode": "traced"})",
      R"({"experiment": "execution-modes", "n": 20000, "batch": 1000, "hidden": 128, "unroll": 20, "epochs": 1})",
      R"({"experiment": "unroll", "n": 20000, "batch": 100, "hidden": 64, "epochs": 1})",
      R"({"experiment": "retracing", "n": 20000, "batch": 1000, "second_batch": 700, "hidden": 256, "epochs": 1})",
  };
  for (const char* config : configs) {
    const Estimate est = estimate_of(config);
    const double before = heap_in_use();
    double peak = 0.0;
    {
      auto run = start_run(config);
      peak = std::max(peak, heap_in_use() - before);
      while (!run->advance(20.0)) peak = std::max(peak, heap_in_use() - before);
      peak = std::max(peak, heap_in_use() - before);
      run->result_json();
    }
    std::printf("  estimate %.3g bytes, measured peak %.3g bytes: %s\n", est.bytes, peak, config);
    EXPECT_LE(peak, est.bytes) << config;
    EXPECT_LE(est.bytes, 40.0 * peak + 8e6) << "estimate far above the measured heap: " << config;
  }
}
#endif

}  // namespace
}  // namespace looplab
