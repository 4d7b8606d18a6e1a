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

TEST(Retracing, RelaxedProgramComputesWhatPerShapeProgramsCompute) {
  Tensor x({130, 1}), y({130, 1});
  Rng rng(2);
  for (std::size_t i = 0; i < 130; ++i)
    x[i] = static_cast<float>(rng.normal()), y[i] = static_cast<float>(rng.normal());
  std::vector<float> losses[2];
  for (int relaxed = 0; relaxed < 2; ++relaxed) {
    Rng init(4);
    Mlp mlp(1, {6}, 1, Activation::Tanh, init);
    Adam adam(1e-2, mlp.parameters());
    TraceCache cache(mlp, adam, {1, relaxed == 1, 50});
    for (int epoch = 0; epoch < 3; ++epoch)
      for (int start = 0; start < 130; start += 50) {
        const int rows = std::min(50, 130 - start);  // 50, 50, 30
        losses[relaxed].push_back(cache.call(x.data() + start, y.data() + start, rows, true));
      }
    EXPECT_EQ(cache.traces(), relaxed ? 1 : 2);
  }
  for (std::size_t i = 0; i < losses[0].size(); ++i)
    EXPECT_FLOAT_EQ(losses[0][i], losses[1][i]) << i;
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
