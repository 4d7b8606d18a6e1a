// call_granularity_test.cpp — the two causes of seed 001's slowness are separated by the traced
// per-call variant; every conclusion is a comparison; the static texts name no data. (That the
// default config shows train_on_batch slower than fit is a timing: timed_test.cpp.)
#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "looplab/api/api.hpp"
#include "test_util.hpp"

namespace looplab {
namespace {

json run_call_granularity(const std::string& extra) {
  return run_to_end(R"({"experiment": "call-granularity")" + extra + "}", 100.0);
}

TEST(CallGranularity, EveryConclusionIsAComparisonAndLossesAgreeWithinTheTolerance) {
  const json r = run_call_granularity(R"(, "n": 1000, "epochs": 3, "chunk_ms": 0.5)");
  std::set<std::string> ids;
  for (const json& c : r["summary"]["comparisons"]) {
    ids.insert(c["id"].get<std::string>());
    if (c["quantity"] == "loss") {
      EXPECT_EQ(c["verdict"], "same") << c.dump();
    }
  }
  EXPECT_EQ(ids, (std::set<std::string>{"train_on_batch_vs_fit", "eager_vs_traced_per_call",
                                        "per_call_vs_fit", "compiled_vs_traced_per_call",
                                        "final_loss_train_on_batch_vs_fit",
                                        "final_loss_train_on_batch_traced_vs_fit",
                                        "final_loss_train_on_batch_compiled_vs_fit"}));
  // The compiled step, per call, gives fit's traced losses at every step (within 1e-5 relative).
  const json& compiled = r["runs"][3];
  EXPECT_EQ(compiled["variant"], "train_on_batch_compiled");
  EXPECT_EQ(compiled["mode"], "compiled");
  EXPECT_EQ(compiled["steps"], r["runs"][0]["steps"]);
  EXPECT_LE(compiled["max_loss_gap_to_fit"].get<double>(), 1e-5);
  EXPECT_TRUE(compiled["same_losses_as_fit"].get<bool>());
  const std::string reading = r["summary"]["reading"];
  EXPECT_NE(reading.find("With one call per batch in both, "), std::string::npos) << reading;
  EXPECT_NE(reading.find("the same training."), std::string::npos) << reading;
  ASSERT_EQ(r["summary"]["beside_quoted"].size(), 1u);
}

// The explanation and parameter help are static: the run's numbers come from the run. The only
// numbers allowed name a distribution, a layer, a TensorFlow version or a thread.
// model=seed001_small: train_on_batch against fit on the model the seed timed, at its size. The
// four variants run the same steps: their losses agree (eager within the tolerance, the compiled
// step within 1e-5), and a per-call batch is a block of whole sequences.
TEST(CallGranularity, SeedSmallModelRunsEveryVariantWithTheSameLosses) {
  const json r = run_call_granularity(
      R"(, "model": "seed001_small", "n": 8, "batch": 4, "epochs": 2, "chunk_ms": 0.5, "max_seconds": 0)");
  ASSERT_EQ(r["runs"].size(), 4u);
  for (const json& run : r["runs"]) {
    EXPECT_EQ(run["steps"], 4) << run["variant"];  // 2 epochs of 2 batches
    EXPECT_GT(run["us_per_step"].get<double>(), 0.0);
  }
  for (const json& c : r["summary"]["comparisons"])
    if (c["quantity"] == "loss") EXPECT_EQ(c["verdict"], "same") << c.dump();
  EXPECT_LE(r["runs"][3]["max_loss_gap_to_fit"].get<double>(), 1e-5);
  const std::string why = r["summary"]["beside_quoted"][0]["why"];
  EXPECT_NE(why.find("seed 001's own small Conv1D model"), std::string::npos) << why;
  EXPECT_NE(error_of(R"({"experiment": "call-granularity", "model": "seed001_small"})")
                .find("over the 128 MB limit; lower n or batch"),
            std::string::npos);
}

TEST(CallGranularity, StaticTextsNameNoDataSpecificNumbers) {
  for (const char* id : {"call-granularity", "retracing"}) {
    const json d = json::parse(describe_json(id));
    std::string text;
    for (const auto& [k, v] : d["explanation"].items()) text += v.get<std::string>() + " ";
    for (const json& p : d["parameters"]) text += p["help"].get<std::string>() + " ";
    static const std::regex number(R"([0-9]+(?:[.,][0-9]+)*)");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), number);
         it != std::sregex_iterator(); ++it) {
      const std::string n = it->str();
      EXPECT_TRUE(n == "0" || n == "1" || n == "2.0" || n == "000")
          << id << " names " << n << " in: " << text;
    }
  }
}

TEST(CallGranularity, ResultShapeAndTheSameLosses) {
  const json r = run_to_end(
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
