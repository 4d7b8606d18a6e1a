// emit_test.cpp — the two code emitters of compiled mode on their own, on a synthetic IR that uses
// every operation, a scalar, a once-per-run scalar expression and every kind of reduction over a
// length that fills two blocks of partial sums and leaves a tail: the built step (C natively, a
// WebAssembly module in the wasm build) against an interpreter of the IR written here; natively
// the C compiles with -Wall -Werror; in the wasm build WebAssembly.validate accepts the module.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <vector>

#include "looplab/engine/detail/generated.hpp"
#include "looplab/engine/emit_c.hpp"
#include "looplab/engine/emit_wasm.hpp"
#include "looplab/engine/ops.hpp"

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#endif

namespace looplab {
namespace {

using kir::Op;
using IrRef = kir::Ref;  // ops_test.cpp has a Ref of its own (one unity batch)

constexpr int kEmitN = 37;  // two blocks of 16 and a tail of 5
constexpr Op kOps[] = {Op::Add,  Op::Sub,      Op::Mul,      Op::Div,      Op::Sqrt,
                       Op::Log,  Op::Tanh,     Op::TanhGrad, Op::Sigmoid,  Op::SigmoidGrad,
                       Op::Relu, Op::ReluGrad, Op::Clip,     Op::ClipGrad, Op::Copy};
constexpr int kIrOps = sizeof(kOps) / sizeof(kOps[0]);

// Slots: 0 x (in (0.1, 2.9)), 1 y (in (−1, 1)), 2 the scalar s, 3.. one output per op, then one
// per sink.
kir::Program every_op_program() {
  kir::Program p;
  kir::Loop L;
  L.n = kEmitN;
  L.scalar_loads = {2};
  kir::Expr half;  // register 1 = s / 2, computed once
  half.op = Op::Div;
  half.in = {IrRef{IrRef::Kind::Scalar, 0, 0.0f}, IrRef{IrRef::Kind::Const, 0, 2.0f}};
  L.scalar_exprs = {half};
  const IrRef x{IrRef::Kind::Vector, 0, 0.0f}, y{IrRef::Kind::Vector, 1, 0.0f};
  for (int j = 0; j < kIrOps; ++j) {
    kir::Expr e;
    e.op = kOps[j];
    e.in = {j % 2 ? x : y, j % 3 ? y : IrRef{IrRef::Kind::Scalar, 1, 0.0f}};
    if (e.op == Op::Sqrt || e.op == Op::Log) e.in[0] = x;  // positive operands
    if (e.op == Op::Div) e.in[1] = x;
    e.lo = -0.5f, e.hi = 0.25f;
    e.store = 3 + j;
    L.body.push_back(e);
  }
  const IrRef t0{IrRef::Kind::Temp, 0, 0.0f}, t6{IrRef::Kind::Temp, 6, 0.0f};
  L.sinks = {{kir::Sink::Kind::Sum, t6, {}, false, 3 + kIrOps},
             {kir::Sink::Kind::SumSquares, t0, {}, true, 4 + kIrOps},
             {kir::Sink::Kind::Dot, x, t6, false, 5 + kIrOps}};
  p.loops.push_back(L);
  kir::Stmt s;
  s.kind = kir::Stmt::Kind::Loop;
  s.note = "every op";
  p.stmts.push_back(s);
  p.slots = 6 + kIrOps;
  return p;
}

float apply_ir_op(Op op, float a, float b, float lo, float hi) {
  switch (op) {
    case Op::Add:
      return a + b;
    case Op::Sub:
      return a - b;
    case Op::Mul:
      return a * b;
    case Op::Div:
      return a / b;
    case Op::Sqrt:
      return std::sqrt(a);
    case Op::Log:
      return std::log(a);
    case Op::Tanh:
      return fast_tanh(a);
    case Op::TanhGrad:
      return b * (1.0f - a * a);
    case Op::Sigmoid:
      return 0.5f + 0.5f * fast_tanh(0.5f * a);
    case Op::SigmoidGrad:
      return b * a * (1.0f - a);
    case Op::Relu:
      return a > 0.0f ? a : 0.0f;
    case Op::ReluGrad:
      return a > 0.0f ? b : 0.0f;
    case Op::Clip:
      return a < lo ? lo : (a > hi ? hi : a);
    case Op::ClipGrad:
      return (a > lo && a < hi) ? b : 0.0f;
    case Op::Copy:
      return a;
  }
  return 0.0f;
}

TEST(Emitters, GeneratedStepComputesWhatTheIrSays) {
  const kir::Program p = every_op_program();
  std::vector<std::vector<float>> data(static_cast<std::size_t>(p.slots),
                                       std::vector<float>(kEmitN, 0.0f));
  for (int i = 0; i < kEmitN; ++i) {
    data[0][static_cast<std::size_t>(i)] = 0.1f + 2.8f * static_cast<float>(i) / kEmitN;
    data[1][static_cast<std::size_t>(i)] = std::sin(0.7f * static_cast<float>(i));
  }
  data[2][0] = 0.6f;
  std::vector<float*> slots;
  for (auto& d : data) slots.push_back(d.data());
  std::string text;
  const detail::StepFn fn = detail::build_step(p, text);
  fn(slots.data(), nullptr, 1);

  const kir::Loop& L = p.loops[0];
  const float r[] = {0.6f, 0.6f / 2.0f};
  double sums[3] = {};
  for (int i = 0; i < kEmitN; ++i) {
    std::vector<float> t;
    for (const kir::Expr& e : L.body) {
      auto value = [&](const IrRef& ref) {
        return ref.kind == IrRef::Kind::Vector
                   ? data[static_cast<std::size_t>(ref.index)][static_cast<std::size_t>(i)]
               : ref.kind == IrRef::Kind::Scalar ? r[ref.index]
               : ref.kind == IrRef::Kind::Temp   ? t[static_cast<std::size_t>(ref.index)]
                                                 : ref.value;
      };
      t.push_back(apply_ir_op(e.op, value(e.in[0]), value(e.in[1]), e.lo, e.hi));
      EXPECT_FLOAT_EQ(data[static_cast<std::size_t>(e.store)][static_cast<std::size_t>(i)],
                      t.back())
          << kir::op_name(e.op) << " element " << i;
    }
    sums[0] += t[6];
    sums[1] += static_cast<double>(t[0]) * t[0];
    sums[2] += static_cast<double>(data[0][static_cast<std::size_t>(i)]) * t[6];
  }
  EXPECT_NEAR(data[3 + kIrOps][0], sums[0], 1e-5 * std::abs(sums[0]) + 1e-6);
  EXPECT_NEAR(data[4 + kIrOps][0], sums[1] / kEmitN, 1e-5 * std::abs(sums[1] / kEmitN) + 1e-6);
  EXPECT_NEAR(data[5 + kIrOps][0], sums[2], 1e-5 * std::abs(sums[2]) + 1e-6);
}

TEST(Emitters, WebAssemblyModuleValidates) {
  WasmImports imports;
  imports.log_function = 1;
  const WasmModule m = emit_wasm(every_op_program(), imports);
  ASSERT_GT(m.bytes.size(), 8u);
  EXPECT_EQ(m.bytes[0], 0x00);
  EXPECT_EQ(m.bytes[1], 'a');
  EXPECT_NE(m.text.find("f32x4.mul"), std::string::npos) << m.text;
#ifdef __EMSCRIPTEN__
  const int valid = EM_ASM_INT({ return WebAssembly.validate(HEAPU8.slice($0, $0 + $1)) ? 1 : 0; },
                               m.bytes.data(), static_cast<int>(m.bytes.size()));
  EXPECT_EQ(valid, 1);
#endif
}

TEST(Emitters, GeneratedCCompilesWithWallWerror) {
#ifdef __EMSCRIPTEN__
  GTEST_SKIP() << "no C compiler at run time in WebAssembly";
#else
  const std::string path = ::testing::TempDir() + "looplab_emit_test.c";
  std::ofstream(path) << emit_c(every_op_program());
  const std::string command =
      "cc -std=gnu11 -Wall -Wextra -Werror -fsyntax-only '" + path + "' 2>&1";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  std::remove(path.c_str());
#endif
}

}  // namespace
}  // namespace looplab
