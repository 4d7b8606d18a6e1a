// session_test.cpp — train_on_batch (copy + one step per call) computes exactly what fit computes,
// in every mode; the call-granularity experiment's result shape and its validation.
#include <gtest/gtest.h>

#include "looplab/api/api.hpp"
#include "looplab/api/sessions.hpp"

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

json run_experiment(const std::string& config) {
  auto run = start_run(config);
  while (!run->advance(50.0)) {
  }
  return json::parse(run->result_json());
}

TEST(CallGranularity, ResultShapeAndTheSameLosses) {
  const json r = run_experiment(
      R"({"experiment": "call-granularity", "n": 200, "batch": 20, "epochs": 3, "chunk_ms": 0.1})");
  ASSERT_EQ(r["runs"].size(), 4u);
  EXPECT_EQ(r["runs"][0]["variant"], "fit");
  EXPECT_EQ(r["runs"][0]["mode"], "traced");
  EXPECT_EQ(r["runs"][1]["variant"], "train_on_batch");
  EXPECT_EQ(r["runs"][1]["mode"], "eager");
  EXPECT_EQ(r["runs"][2]["variant"], "train_on_batch_traced");
  EXPECT_EQ(r["runs"][2]["mode"], "traced");
  EXPECT_EQ(r["runs"][3]["variant"], "train_on_batch_compiled");
  EXPECT_EQ(r["runs"][3]["mode"], "compiled");
  for (const auto& v : r["runs"]) {
    EXPECT_EQ(v["steps"], 30);
    EXPECT_TRUE(v["same_losses_as_fit"].get<bool>());
    EXPECT_GT(v["us_per_step"].get<double>(), 0.0);
    EXPECT_FALSE(v["diverged"].get<bool>());
  }
  EXPECT_DOUBLE_EQ(
      r["runs"][1]["overhead_us_per_call"].get<double>(),
      r["runs"][1]["us_per_step"].get<double>() - r["runs"][0]["us_per_step"].get<double>());
  // Traced per call and traced in fit run one program on the same batches: bit-identical. The
  // eager step agrees to float32 rounding (summary.loss_tolerance, relative).
  EXPECT_EQ(r["runs"][0]["final_loss"], r["runs"][2]["final_loss"]);
  EXPECT_EQ(r["runs"][2]["max_loss_gap_to_fit"], 0.0);
  EXPECT_LE(r["runs"][1]["max_loss_gap_to_fit"].get<double>(),
            r["summary"]["loss_tolerance"].get<double>());
  EXPECT_LE(r["runs"][3]["max_loss_gap_to_fit"].get<double>(), 1e-5);  // compiled vs traced
  EXPECT_TRUE(r["summary"]["same_losses"].get<bool>());
  EXPECT_EQ(r["series"]["fit"]["step"].size(), 30u);
}

TEST(CallGranularity, RefusesBadConfigsWithTheParameterNamed) {
  EXPECT_THROW(start_run(R"({"experiment": "call-granularity", "batch": 500, "n": 100})"),
               ConfigError);
  try {
    start_run(R"({"experiment": "call-granularity", "n": 1000000, "batch": 10000, "hidden": 512})");
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("128 MB limit"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind("batch:", 0), 0u) << e.what();
  }
}

}  // namespace
}  // namespace looplab
