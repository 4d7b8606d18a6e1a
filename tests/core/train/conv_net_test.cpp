// conv_net_test.cpp — seed 001's Conv1D models: their shapes as Keras builds them, bad layers
// refused by name, eager == traced (bit for bit) == compiled (1e-5) over 20 Adam steps of the
// small model, dropout's masks, and (natively) the losses against an independent NumPy
// implementation of the same model (tests/core/models/seed_reference.py).
#include "looplab/train/conv_net.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "looplab/base/error.hpp"
#include "looplab/base/json.hpp"
#include "looplab/base/rng.hpp"
#include "looplab/engine/eager.hpp"
#include "looplab/train/session.hpp"

namespace looplab {
namespace {

TEST(ConvNet, SeedModelsHaveKerasShapesAndParameterCounts) {
  const std::vector<LayerSummary> small = summarize(seed001_model("small", 140, 1, 1));
  ASSERT_EQ(small.size(), 5u);  // Conv1D, pooling, Dropout, Dense(64), Dense(1)
  EXPECT_EQ(small[0].layer, "Conv1D(128, 40, strides=4, 'same')");
  EXPECT_EQ(small[0].steps, 35);  // ⌈140 / 4⌉
  EXPECT_EQ(small[0].parameters, 40 * 30 * 128 + 128);
  EXPECT_EQ(small[2].layer, "Dropout(0.5)");
  EXPECT_EQ(parameter_count(seed001_model("small", 140, 1, 1)), 153'728 + 8'256 + 65);
  const std::vector<LayerSummary> medium = summarize(seed001_model("medium", 1400, 1, 1));
  EXPECT_EQ(medium[5].steps, 1400 - 6 * 19);  // six 'valid' windows of 20
  EXPECT_GT(parameter_count(seed001_model("large", 14000, 1, 1)), 10'000'000);
  // Scaled: filters ÷ 4, lengths and kernels ÷ 10 (rounded up); strides and depth kept.
  const ConvNetSpec scaled = seed001_model("large", 14000, 4, 10);
  EXPECT_EQ(scaled.length, 1400);
  EXPECT_EQ(scaled.convs.size(), 45u);
  EXPECT_EQ(scaled.convs[0].filters, 16);
  EXPECT_EQ(scaled.convs[0].kernel, 40);
  EXPECT_EQ(scaled.convs[0].stride, 4);
}

TEST(ConvNet, ALayerThatDoesNotFitIsRefusedByName) {
  try {
    seed001_model("large", 140, 1, 1);  // the seed skips this cell: kernel 400 > 140 steps
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("seed001_large"), std::string::npos) << what;
    EXPECT_NE(what.find("layer 1"), std::string::npos) << what;
    EXPECT_NE(what.find("Conv1D(64, 400"), std::string::npos) << what;
    EXPECT_NE(what.find("140 steps"), std::string::npos) << what;
  }
}

// The seed's small model (filters ÷ 4 to keep the sanitizer build quick), 2 sequences of 140
// steps, N(0, 1) inputs and 0/1 targets, as the seed's make_data.
struct SmallSeed {
  SessionConfig config;
  std::vector<float> x, y;
  explicit SmallSeed(Mode mode, ConvNetSpec spec = seed001_model("small", 140, 4, 1)) {
    config.mode = mode;
    config.batch = 2;
    config.lr = 1e-3;  // the seed's 1e-4 moves the loss too little to compare over 20 steps
    config.seed = 3;
    config.conv = std::move(spec);
    Rng rng(5);
    x.resize(static_cast<std::size_t>(config.batch) * config.example_floats());
    for (float& v : x) v = static_cast<float>(rng.normal());
    for (int i = 0; i < config.batch; ++i) y.push_back(rng.uniform(0.0, 1.0) < 0.5 ? 0.0f : 1.0f);
  }
  std::vector<float> losses(int steps) const {
    TrainerSession s(config);
    std::vector<float> out;
    for (int i = 0; i < steps; ++i) out.push_back(s.train_on_batch(x.data(), y.data()));
    return out;
  }
};

TEST(ConvNet, EagerTracedAndCompiledAgreeOnTheSmallSeedModel) {
  const std::vector<float> eager = SmallSeed(Mode::Eager).losses(20);
  const std::vector<float> traced = SmallSeed(Mode::Traced).losses(20);
  const std::vector<float> compiled = SmallSeed(Mode::Compiled).losses(20);
  for (std::size_t i = 0; i < eager.size(); ++i) {
    EXPECT_EQ(traced[i], eager[i]) << "step " << i + 1;
    EXPECT_NEAR(compiled[i], traced[i], 1e-5 * std::abs(traced[i])) << "step " << i + 1;
  }
  EXPECT_LT(eager.back(), eager.front());  // it learns the two targets
}

// The hand-written loop (conv_reference.hpp) against the traced graph: the same losses to float32
// rounding, step after step, on the small model ('same' padding, stride 4, dropout after the
// pooling) and the medium one (six 'valid' Conv1D layers, dropout between the Dense layers).
TEST(ConvNet, HandWrittenReferenceAgreesWithTheGraph) {
  for (const ConvNetSpec& spec :
       {seed001_model("small", 140, 4, 1), seed001_model("medium", 1400, 16, 10)}) {
    SCOPED_TRACE(spec.name);
    const std::vector<float> traced = SmallSeed(Mode::Traced, spec).losses(20);
    const std::vector<float> reference = SmallSeed(Mode::Reference, spec).losses(20);
    for (std::size_t i = 0; i < traced.size(); ++i)
      EXPECT_NEAR(reference[i], traced[i], 2e-5 * std::abs(traced[i])) << "step " << i + 1;
    EXPECT_LT(reference.back(), reference.front());
  }
}

TEST(ConvNet, DropoutMasksDependOnTheStepAndNothingElse) {
  ConvNetSpec spec = seed001_model("small", 20, 4, 4);
  Rng rng(1);
  ConvNet net(spec, rng);
  Tensor x({2 * spec.length, spec.channels});
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(rng.normal());
  const auto logits = [&](float t) {
    EagerBuilder b;
    Tensor step({1, 1}, t);
    const Value out = net.forward_at(b, b.input(x, "x"), net.parameter_leaves(b),
                                     t > 0 ? b.input(step, "t") : Value{});
    return std::vector<float>(b.data(out), b.data(out) + 2);
  };
  EXPECT_EQ(logits(1.0f), logits(1.0f));
  EXPECT_NE(logits(1.0f), logits(2.0f));
  EXPECT_NE(logits(1.0f), logits(0.0f));  // without a step: no dropout
  int kept = 0;
  for (std::uint64_t i = 0; i < 10000; ++i) kept += dropout_keeps(1, 7, i, 0.5f);
  EXPECT_NEAR(kept, 5000, 200);  // a fair coin: 4σ = 200
}

#ifndef __EMSCRIPTEN__
// The NumPy implementation shares nothing with the engine but the spec, the initial weights, the
// data and the dropout hash; it works in float64 with its own im2col, pooling and Adam.
TEST(ConvNet, SmallSeedModelMatchesANumpyReference) {
  const SmallSeed seed(Mode::Traced);
  TrainerSession s(seed.config);
  json params = json::array();
  {
    Rng init(seed.config.seed + 1);  // the session's initial weights, made again
    ConvNet net(*seed.config.conv, init);
    for (Tensor* t : net.parameters())
      params.push_back({{"shape", {t->shape().rows, t->shape().cols}},
                        {"data", std::vector<float>(t->data(), t->data() + t->size())}});
  }
  std::vector<float> losses;
  for (int i = 0; i < 20; ++i) losses.push_back(s.train_on_batch(seed.x.data(), seed.y.data()));
  const ConvNetSpec& spec = *seed.config.conv;
  json convs = json::array();
  for (const ConvLayer& c : spec.convs)
    convs.push_back(
        {{"filters", c.filters}, {"kernel", c.kernel}, {"stride", c.stride}, {"same", c.same}});
  const json case_ = {{"length", spec.length},
                      {"channels", spec.channels},
                      {"convs", convs},
                      {"dense", spec.dense},
                      {"dropout_after", spec.dropout_after},
                      {"dropout_rate", spec.dropout_rate},
                      {"dropout_seed", spec.dropout_seed},
                      {"batch", seed.config.batch},
                      {"lr", seed.config.lr},
                      {"params", params},
                      {"x", seed.x},
                      {"y", seed.y},
                      {"losses", losses}};
  const std::string scratch = testing::TempDir() + "seed_reference_case";
  const std::string path = scratch + ".json";
  std::ofstream(path) << case_.dump();
  const std::string command = "/usr/bin/python3 " + std::string(LOOPLAB_SOURCE_DIR) +
                              "/tests/core/models/seed_reference.py " + path + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buf[256];
  while (std::fgets(buf, sizeof buf, pipe)) out += buf;
  const int status = pclose(pipe);
  EXPECT_EQ(status, 0) << "the NumPy reference disagrees or could not run (it needs Debian's "
                          "python3-numpy: `make test` installs it):\n"
                       << out;
  std::printf("%s", out.c_str());
}
#endif

}  // namespace
}  // namespace looplab
