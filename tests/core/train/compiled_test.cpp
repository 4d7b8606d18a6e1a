// compiled_test.cpp — compiled mode end to end: the generated step (C natively, a WebAssembly
// module in the wasm build) gives traced mode's loss curve within 1e-5 relative over 1,000 steps,
// for every activation, both losses, batches that do and do not fill the partial-sum blocks, and
// unrolled programs; gradients through a compiled program match central differences.
//
// NOTE: each distinct program is built once per process (and natively cached on disk), so the
// cases below are chosen to cover activations, losses and batch sizes with few programs.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "looplab/base/error.hpp"
#include "looplab/base/i18n.hpp"
#include "looplab/base/rng.hpp"
#include "looplab/engine/program.hpp"
#include "looplab/engine/tracer.hpp"
#include "looplab/train/graph_trainer.hpp"
#include "looplab/train/linear.hpp"
#include "looplab/train/linear_trainer.hpp"
#include "looplab/train/model.hpp"
#include "looplab/train/optim.hpp"

namespace looplab {
namespace {

struct CompiledCase {
  Activation act;
  Loss loss;
  int batch;
  int unroll;
};

// The losses of `steps` steps of a Dense(8, act) → Dense(1) network (or `inputs` features through
// `hidden` layers) with Adam, cycling over 3 batches of N(0, 1) data.
std::vector<float> curve_of(Mode mode, const CompiledCase& c, int steps, int inputs = 1,
                            const std::vector<int>& hidden = {8}, std::string* code = nullptr) {
  const int n = 3 * c.batch;
  Tensor x({n, inputs}), y({n, 1});
  Rng rng(21);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(rng.normal());
  for (int i = 0; i < n; ++i) {
    const float xi = x[static_cast<std::size_t>(i * inputs)];
    y[static_cast<std::size_t>(i)] =
        c.loss == Loss::Bce ? (xi > 0.2f ? 1.0f : 0.0f) : static_cast<float>(std::sin(3.0 * xi));
  }
  Rng init(9);
  Mlp mlp(inputs, hidden, 1, c.act, init);
  Adam adam(1e-2, mlp.parameters());
  GraphTrainer t(mode, mlp, adam, {c.batch, inputs}, {c.batch, 1}, c.unroll, true, c.loss);
  if (code) *code = t.generated_code();
  std::vector<float> out;
  std::vector<float> l(static_cast<std::size_t>(c.unroll));
  for (int s = 0; s < steps; s += c.unroll) {
    std::vector<const float*> xs, ys;
    for (int j = 0; j < c.unroll; ++j) {
      xs.push_back(x.data() + ((s + j) % 3) * c.batch * inputs);
      ys.push_back(y.data() + ((s + j) % 3) * c.batch);
    }
    t.run(xs.data(), ys.data(), l.data());
    out.insert(out.end(), l.begin(), l.end());
  }
  return out;
}

TEST(Compiled, GivesTracedLossCurveForEveryActivationLossAndBatch) {
  // Four programs (a cold cache builds each with cc -O3, about 0.7 s of CPU apiece): every
  // activation, both losses, batches 5, 64 and 1037, and an unrolled program.
  const CompiledCase cases[] = {{Activation::Tanh, Loss::Mse, 5, 1},
                                {Activation::Relu, Loss::Bce, 64, 1},
                                {Activation::Sigmoid, Loss::Mse, 1037, 1},
                                {Activation::Sigmoid, Loss::Bce, 64, 3}};
  for (const CompiledCase& c : cases) {
    SCOPED_TRACE("activation " + std::to_string(static_cast<int>(c.act)) + ", loss " +
                 std::to_string(static_cast<int>(c.loss)) + ", batch " + std::to_string(c.batch) +
                 ", unroll " + std::to_string(c.unroll));
    const std::vector<float> traced = curve_of(Mode::Traced, c, 1000);
    const std::vector<float> compiled = curve_of(Mode::Compiled, c, 1000);
    ASSERT_EQ(traced.size(), compiled.size());
    for (std::size_t i = 0; i < traced.size(); ++i)
      ASSERT_NEAR(compiled[i], traced[i], 1e-5 * std::abs(traced[i]) + 1e-7) << "step " << i;
    EXPECT_LT(traced.back(), 0.8f * traced.front()) << "training should make progress";
  }
}

// Batch 1 with binary cross-entropy: every fused loop has one element, so a member's output is
// [1 x 1] like a scalar, and a value computed once before its loop must not read one (fuzzing
// found generated C that did not compile: a hoisted MeanGrad read the Scale computed in the loop).
// Traced follows eager to 1e-5, compiled to 1e-3 (the loss falls to about 1e-3 in 60 steps).
TEST(Compiled, ABatchOfOneGivesTheEagerLossCurve) {
  for (const Activation act : {Activation::Linear, Activation::Tanh}) {
    SCOPED_TRACE("activation " + std::to_string(static_cast<int>(act)));
    const CompiledCase c{act, Loss::Bce, 1, 1};
    const std::vector<float> eager = curve_of(Mode::Eager, c, 60);
    const std::vector<float> traced = curve_of(Mode::Traced, c, 60);
    const std::vector<float> compiled = curve_of(Mode::Compiled, c, 60);
    ASSERT_EQ(eager.size(), traced.size());
    ASSERT_EQ(eager.size(), compiled.size());
    for (std::size_t i = 0; i < eager.size(); ++i) {
      ASSERT_NEAR(traced[i], eager[i], 1e-5 * std::abs(eager[i]) + 1e-7) << "step " << i;
      // the generated code rounds its sums in another order: drift, not a wrong value
      ASSERT_NEAR(compiled[i], eager[i], 1e-3 * std::abs(eager[i]) + 1e-7) << "step " << i;
    }
  }
}

// The matrix products, Dense groups and column sums as generated nests (no kernel calls for them):
// several inputs (an inner size K > 1 forward), two hidden layers (a product of two matrices,
// and a gradient through a transposed weight), widths that are not multiples of 4, batches 5,
// 64 and 1037, every activation.
TEST(Compiled, DenseNestsGiveTracedLossCurve) {
  const CompiledCase cases[] = {{Activation::Tanh, Loss::Mse, 5, 1},
                                {Activation::Relu, Loss::Mse, 64, 1},
                                {Activation::Sigmoid, Loss::Bce, 1037, 1}};
  for (const CompiledCase& c : cases) {
    SCOPED_TRACE("activation " + std::to_string(static_cast<int>(c.act)) + ", batch " +
                 std::to_string(c.batch));
    std::string code;
    const std::vector<float> traced = curve_of(Mode::Traced, c, 1000, 3, {7, 5});
    const std::vector<float> compiled = curve_of(Mode::Compiled, c, 1000, 3, {7, 5}, &code);
    for (const char* op : {"MatMul", "SumRows", "AddRow"}) {  // a kernel call's note, C or wasm
      EXPECT_EQ(code.find(std::string(op) + " kernel */"), std::string::npos) << code;
      EXPECT_EQ(code.find(";; " + std::string(op) + " kernel\n"), std::string::npos) << code;
    }
    ASSERT_EQ(traced.size(), compiled.size());
    for (std::size_t i = 0; i < traced.size(); ++i)
      ASSERT_NEAR(compiled[i], traced[i], 1e-5 * std::abs(traced[i]) + 1e-7) << "step " << i;
    EXPECT_LT(traced.back(), 0.8f * traced.front()) << "training should make progress";
  }
}

TEST(Compiled, LinearRegressionFollowsTracedOnRawData) {
  const LinearData d = sine_trend_data();
  auto traced = make_linear_trainer(Mode::Traced, d.x, d.y);
  auto compiled = make_linear_trainer(Mode::Compiled, d.x, d.y);
  ASSERT_TRUE(compiled->setup_info().contains("codegen_ms"));
  // The gradient's factors 2 and 1/N leave the loop over the points (kernel_ir.cpp): its body is
  // the residual, r = w·x + b − y, in three expressions, and the sums are scaled after it.
  const std::string code = compiled->setup_info()["generated_code"];
#ifndef __EMSCRIPTEN__  // (the C text; in WebAssembly the emitter test covers the factors)
  EXPECT_EQ(code.find("const float t3"), std::string::npos) << code;
  EXPECT_NE(code.find("sum1 *= "), std::string::npos) << code;
#endif
  for (int i = 0; i < 1000; ++i) {
    const float a = traced->step(1e-4f), b = compiled->step(1e-4f);
    ASSERT_NEAR(b, a, 1e-5 * std::abs(a)) << "iteration " << i;
  }
  EXPECT_NEAR(compiled->weights().w[0], traced->weights().w[0], 1e-5);
}

// The engine says whether a compiler ran: a program never seen before is built (code_cached
// false), the same program compiled again is found built. The constant makes the code new.
TEST(Compiled, SaysWhetherTheCodeWasBuiltOrFoundInTheCache) {
  const auto unique =
      static_cast<float>(std::chrono::steady_clock::now().time_since_epoch().count() % 1000003);
  Tensor x({64, 1}, 1.5f);
  CompileOptions generate;
  generate.generate = true;
  bool cached[2] = {};
  for (bool& c : cached) {
    Tracer t;
    const Value v = t.input(x, "x");
    Program p = compile(t, {t.sum(t.add_const(v, unique))}, {}, generate);
    c = p.stats().code_cached;
    p.run();
    EXPECT_FLOAT_EQ(p.output(0), 64.0f * (1.5f + unique));
  }
  EXPECT_FALSE(cached[0]) << "a new program's code is built";
  EXPECT_TRUE(cached[1]) << "the same program's code is found built";
}

// A relaxed batch: a call with fewer rows derives the shapes again and, in compiled mode, generates
// the code again (a loop's length is a constant of it); alternating shapes come from the cache.
TEST(Compiled, NewBatchShapesGenerateTheCodeAgain) {
  const CompiledCase c{Activation::Tanh, Loss::Mse, 100, 1};
  Tensor x({100, 1}), y({100, 1});
  for (std::size_t i = 0; i < 100; ++i) {
    x[i] = 0.02f * static_cast<float>(i) - 1.0f;
    y[i] = std::sin(2.0f * x[i]);
  }
  std::vector<float> curves[2];
  for (Mode mode : {Mode::Traced, Mode::Compiled}) {
    Rng init(9);
    Mlp mlp(1, {8}, 1, c.act, init);
    Adam adam(1e-2, mlp.parameters());
    GraphTrainer t(mode, mlp, adam, {c.batch, 1}, {c.batch, 1});
    const float* xs[] = {x.data()};
    const float* ys[] = {y.data()};
    for (int s = 0; s < 40; ++s) {
      float loss = 0.0f;
      t.run(xs, ys, &loss, s % 2 ? 100 : 70);
      curves[mode == Mode::Compiled].push_back(loss);
    }
  }
  for (std::size_t i = 0; i < curves[0].size(); ++i)
    ASSERT_NEAR(curves[1][i], curves[0][i], 1e-5 * std::abs(curves[0][i])) << "step " << i;
}

// Gradients of a fused loss (one loop with reductions) read from a compiled program's outputs,
// against central differences of the compiled program's own loss.
TEST(Compiled, GradientsMatchCentralDifferences) {
  constexpr int n = 100;
  Tensor x({n, 1}), y({n, 1}), w({1, 1}, 0.7f), b({1, 1}, -0.2f);
  Rng rng(4);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(rng.normal());
    y[i] = static_cast<float>(std::tanh(1.5 * x[i]));
  }
  Tracer t;
  const Value xv = t.input(x, "x"), wv = t.parameter(w, "w"), bv = t.parameter(b, "b");
  const Value loss = t.mse(t.tanh(t.add_row(t.matmul(xv, wv), bv)), t.input(y, "y"));
  const auto g = gradients(t, loss, {wv, bv});
  CompileOptions generate;
  generate.generate = true;
  Program p = compile(t, {loss, g[0], g[1]}, {}, generate);
  ASSERT_FALSE(p.generated_code().empty());
  p.run();
  const float analytic[] = {p.output(1), p.output(2)};
  Tensor* params[] = {&w, &b};
  for (int k = 0; k < 2; ++k) {
    const float saved = (*params[k])[0], h = 1e-2f;
    (*params[k])[0] = saved + h;
    p.run();
    const double up = p.output(0);
    (*params[k])[0] = saved - h;
    p.run();
    const double down = p.output(0);
    (*params[k])[0] = saved;
    const double numeric = (up - down) / (2.0 * h);
    EXPECT_NEAR(analytic[k], numeric, 2e-3 + 2e-3 * std::abs(numeric)) << "parameter " << k;
  }
}

#ifndef __EMSCRIPTEN__
// Natively, no C compiler is a ConfigError naming what is missing, in every language; never a
// silent fallback to the traced program. (Nothing is compiled: the compiler is looked up first.)
TEST(Compiled, WithoutACCompilerSaysWhatIsMissing) {
  std::vector<std::pair<std::string, std::optional<std::string>>> saved;  // restored below
  for (const char* var : {"PATH", "CC", "LOOPLAB_CC"}) {
    const char* v = std::getenv(var);
    saved.emplace_back(var, v ? std::optional<std::string>(v) : std::nullopt);
    unsetenv(var);
  }
  setenv("PATH", "/nonexistent", 1);
  Tensor x({7, 1}, 0.5f), w({1, 1}, 2.0f);  // a program no other test builds
  Tracer t;
  const Value loss = t.mean(t.matmul(t.input(x, "x"), t.parameter(w, "w")));
  CompileOptions generate;
  generate.generate = true;
  json message;
  try {
    compile(t, {loss}, {}, generate);
  } catch (const ConfigError& e) {
    message = e.message();
  }
  for (const auto& [var, value] : saved)
    if (value) setenv(var.c_str(), value->c_str(), 1);
  ASSERT_EQ(message.value("key", ""), "err.no_c_compiler");
  EXPECT_EQ(render(message, "en").rfind("mode: compiled needs a C compiler", 0), 0u);
  for (const std::string& lang : languages())
    EXPECT_EQ(render(message, lang).find("\u27e6"), std::string::npos) << lang;
}
#endif

}  // namespace
}  // namespace looplab
