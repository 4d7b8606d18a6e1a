// session_test.cpp — train_on_batch (copy + one step per call) computes exactly what fit computes,
// in every mode, through the sessions the page's JavaScript variants drive. (The call-granularity
// experiment: tests/core/experiments/call_granularity_test.cpp.)
#include <gtest/gtest.h>

#include "looplab/api/api.hpp"
#include "looplab/api/sessions.hpp"
#include "test_util.hpp"

namespace looplab {
namespace {

std::vector<float> per_batch(TrainerSession& s, const LinearData& d, int n, int epochs) {
  std::vector<float> losses;
  const int batch = s.config().batch;
  for (int e = 0; e < epochs; ++e)
    for (int b = 0; b + batch <= n; b += batch)
      losses.push_back(s.train_on_batch(d.x.data() + b, d.y.data() + b));
  return losses;
}

class SessionModes : public ::testing::TestWithParam<Mode> {};

TEST_P(SessionModes, TrainOnBatchGivesTheSameLossesAsFit) {
  const LinearData d = normal_data(1030, 7);  // 20 full batches of 50 and a partial one, dropped
  SessionConfig c;
  c.mode = GetParam();
  c.hidden = 12;
  c.batch = 50;
  c.lr = 1e-2;
  TrainerSession fit(c), calls(c);
  const std::vector<float> a = fit.fit(d.x.data(), d.y.data(), 1030, 3);
  const std::vector<float> b = per_batch(calls, d, 1030, 3);
  ASSERT_EQ(a.size(), 60u);
  EXPECT_EQ(a, b) << "same steps, same batches, same order: bit-identical losses";
  EXPECT_EQ(fit.steps(), 60);
  EXPECT_NE(a.front(), a.back()) << "the model trains";
}

INSTANTIATE_TEST_SUITE_P(AllModes, SessionModes,
                         ::testing::Values(Mode::Eager, Mode::Traced, Mode::Reference),
                         [](const auto& info) { return mode_name(info.param); });

TEST(Session, TrainOnBatchCopiesTheBatchIn) {
  SessionConfig c;
  c.batch = 4;
  TrainerSession s(c);
  std::vector<float> x = {1, 2, 3, 4}, y = {0, 0, 0, 0};
  s.train_on_batch(x.data(), y.data());
  x[0] = 99;  // the caller's buffer changes after the call; the session's copy does not
  EXPECT_EQ(s.staged_x()[0], 1.0f);
  EXPECT_EQ(s.staged_x()[3], 4.0f);
}

TEST(Session, CreatedFromTheExperimentConfigWithItsValidation) {
  auto s = create_session(R"({"experiment": "call-granularity", "batch": 25, "hidden": 3})");
  EXPECT_EQ(s->config().batch, 25);
  EXPECT_EQ(s->config().hidden, 3);
  EXPECT_EQ(s->config().mode, Mode::Traced) << "the browser's sessions run fit's traced step";
  EXPECT_EQ(session_data(R"({"experiment": "call-granularity", "n": 300})").x.shape().rows, 300);
  try {
    create_session(R"({"experiment": "call-granularity", "hidden": 0})");
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("hidden: must be", 0), 0u) << e.what();
  }
  EXPECT_THROW(create_session(R"({"experiment": "overhead"})"), ConfigError);
}

TEST(Session, LinearSessionStepsLikeTheTrainerOnTheSameData) {
  const LinearData d = overhead_data(1000);
  EXPECT_FLOAT_EQ(d.x[10], 1.0f);  // x_i = 100 i / n: the seed-004 grid for n = 1000
  for (Mode m : {Mode::Eager, Mode::Traced, Mode::Reference}) {
    LinearSession s(m, 1000);
    auto t = make_linear_trainer(m, d.x, d.y);
    for (int i = 0; i < 5; ++i) {
      std::copy(d.x.data(), d.x.data() + 1000, s.staged_x());
      std::copy(d.y.data(), d.y.data() + 1000, s.staged_y());
      EXPECT_EQ(s.step(1e-4f), t->step(1e-4f)) << mode_name(m) << " step " << i;
    }
  }
}

}  // namespace
}  // namespace looplab
