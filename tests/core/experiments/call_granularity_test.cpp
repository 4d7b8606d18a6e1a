// call_granularity_test.cpp — the two causes of seed 001's slowness are separated by the traced
// per-call variant; every conclusion is a comparison; the static texts name no data. (That the
// default config shows train_on_batch slower than fit is a timing: timed_test.cpp.)
#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "looplab/api/api.hpp"

namespace looplab {
namespace {

json run_call_granularity(const std::string& extra) {
  auto run = start_run(R"({"experiment": "call-granularity")" + extra + "}");
  while (!run->advance(100.0)) {
  }
  return json::parse(run->result_json());
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

}  // namespace
}  // namespace looplab
