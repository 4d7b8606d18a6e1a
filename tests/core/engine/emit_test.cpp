// emit_test.cpp — the two code emitters of compiled mode on their own, on a synthetic IR that uses
// every operation, a scalar, a once-per-run scalar expression and every kind of reduction over a
// length that fills two blocks of partial sums and leaves a tail, and two nests (a transposed
// product with a bias and an activation; sums over gathered operands), each as wide as a block of
// eight columns, one of four and a tail: the built step (C natively,
// a WebAssembly module in the wasm build) against an interpreter of the IR written here; natively
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
static_assert(kIrOps == kir::kOpCount - 2, "every kir::Op but the nests' Sum and Dot is in kOps");

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
  // Factors after the sums: (Σ t6)·(s/2)/4 and (Σ x·t6)·2.
  const IrRef half_s{IrRef::Kind::Scalar, 1, 0.0f}, four{IrRef::Kind::Const, 0, 4.0f},
      two{IrRef::Kind::Const, 0, 2.0f};
  L.sinks = {{kir::Sink::Kind::Sum, t6, {}, false, 3 + kIrOps, {{half_s, false}, {four, true}}},
             {kir::Sink::Kind::SumSquares, t0, {}, true, 4 + kIrOps, {}},
             {kir::Sink::Kind::Dot, x, t6, false, 5 + kIrOps, {{two, false}}}};
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
    case Op::Sum:  // nests only (checked below)
    case Op::Dot:
      break;
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
  sums[0] *= r[1] / 4.0;
  sums[2] *= 2.0;
  EXPECT_NEAR(data[3 + kIrOps][0], sums[0], 1e-5 * std::abs(sums[0]) + 1e-6);
  EXPECT_NEAR(data[4 + kIrOps][0], sums[1] / kEmitN, 1e-5 * std::abs(sums[1] / kEmitN) + 1e-6);
  EXPECT_NEAR(data[5 + kIrOps][0], sums[2], 1e-5 * std::abs(sums[2]) + 1e-6);
}

// A loop of one selecting gradient, its second operand read by nothing else, on a condition that
// changes inside a block of 16: gcc 12.2 -O3 -mavx2 loaded that operand with two masked loads
// that both used the first half's mask (see emit_c.cpp's prelude), and this test failed.
TEST(Emitters, SelectingGradientsPassTheRightElements) {
  constexpr int kN = 48;
  for (Op op : {Op::ReluGrad, Op::ClipGrad}) {
    kir::Program p;
    kir::Loop L;
    L.n = kN;
    kir::Expr e;
    e.op = op;
    e.in = {IrRef{IrRef::Kind::Vector, 0, 0.0f}, IrRef{IrRef::Kind::Vector, 1, 0.0f}};
    e.lo = -0.5f, e.hi = 0.25f;
    e.store = 2;
    L.body.push_back(e);
    p.loops.push_back(L);
    p.stmts.push_back({});
    p.slots = 3;
    std::vector<float> a(kN), b(kN), out(kN, -1.0f);
    for (int i = 0; i < kN; ++i)
      a[static_cast<std::size_t>(i)] = std::sin(0.9f * static_cast<float>(i)),
      b[static_cast<std::size_t>(i)] = 1.0f + static_cast<float>(i);
    float* slots[] = {a.data(), b.data(), out.data()};
    std::string text;
    detail::build_step(p, text)(slots, nullptr, 1);
    for (std::size_t i = 0; i < kN; ++i)
      ASSERT_EQ(out[i], apply_ir_op(op, a[i], b[i], e.lo, e.hi))
          << kir::op_name(op) << " element " << i << "\n"
          << text;
  }
}

// Two nests. Slots: 0 A [4 x 9] read transposed, 1 B [4 x 15], 2 a bias row [1 x 15], 3 the
// output tanh(op(A)·B + bias) [9 x 15] (a product with inner size 4: a block of 8 columns, one of 4
// and a tail of 3); 4 C [13 x 5], 5 the output sigmoid(Σ_k C[j][k]) + C[j][0]·bias[j] as a 1 x 13
// nest (its operands gathered across the columns, stride 5; 8 + 4 + 1 columns), 6 relu of that.
kir::Program nest_program() {
  using K = IrRef::Kind;
  kir::Program p;
  kir::Loop dense;
  dense.rows = 9;
  dense.n = 15;
  kir::Expr dot;
  dot.op = Op::Dot;
  dot.depth = 4;
  dot.in = {IrRef{K::Strided, 0, 0.0f, {1, 0, 9}}, IrRef{K::Strided, 1, 0.0f, {0, 1, 15}}};
  kir::Expr bias;
  bias.op = Op::Add;
  bias.in = {IrRef{K::Temp, 0, 0.0f}, IrRef{K::Strided, 2, 0.0f, {0, 1, 0}}};
  kir::Expr act;
  act.op = Op::Tanh;
  act.in[0] = IrRef{K::Temp, 1, 0.0f};
  act.store = 3;
  dense.body = {dot, bias, act};
  kir::Loop rows;
  rows.rows = 1;
  rows.n = 13;
  kir::Expr sum;
  sum.op = Op::Sum;
  sum.depth = 5;
  sum.in[0] = IrRef{K::Strided, 4, 0.0f, {0, 5, 1}};
  kir::Expr sig;
  sig.op = Op::Sigmoid;
  sig.in[0] = IrRef{K::Temp, 0, 0.0f};
  kir::Expr mul;
  mul.op = Op::Mul;
  mul.in = {IrRef{K::Strided, 4, 0.0f, {0, 5, 0}}, IrRef{K::Strided, 2, 0.0f, {0, 1, 0}}};
  kir::Expr add;
  add.op = Op::Add;
  add.in = {IrRef{K::Temp, 1, 0.0f}, IrRef{K::Temp, 2, 0.0f}};
  add.store = 5;
  kir::Expr relu;
  relu.op = Op::Relu;
  relu.in[0] = IrRef{K::Temp, 3, 0.0f};
  relu.store = 6;
  rows.body = {sum, sig, mul, add, relu};
  // A product whose second operand is gathered along the columns (A·Bᵀ, both read along k, as W2's
  // output layer after the column becomes a row), its value stored as it is: [3 x 6], inner size 7.
  kir::Loop gathered;
  gathered.rows = 3;
  gathered.n = 6;
  kir::Expr abt;
  abt.op = Op::Dot;
  abt.depth = 7;
  abt.in = {IrRef{K::Strided, 0, 0.0f, {7, 0, 1}}, IrRef{K::Strided, 1, 0.0f, {0, 7, 1}}};
  abt.store = 7;
  gathered.body = {abt};
  p.loops = {dense, rows, gathered};
  for (int i = 0; i < 3; ++i) {
    kir::Stmt s;
    s.index = i;
    s.note = i == 2 ? "gathered product" : i ? "gathered sum" : "dense";
    p.stmts.push_back(s);
  }
  p.slots = 8;
  return p;
}

// A nest's reduction as kernel_ir.hpp defines it: term(k) into float partial sum
// k % partials(depth), the partial sums added in order.
template <class Term>
float partial_sums(int depth, Term term) {
  const int parts = kir::partials(depth);
  float sums[kir::kNestPartials] = {};
  for (int k = 0; k < depth; ++k) sums[k % parts] = k < parts ? term(k) : sums[k % parts] + term(k);
  float total = sums[0];
  for (int p = 1; p < parts; ++p) total += sums[p];
  return total;
}

// The nests against the same sums in the same order, written out here.
TEST(Emitters, GeneratedNestsComputeWhatTheIrSays) {
  const kir::Program p = nest_program();
  std::vector<std::vector<float>> data(8, std::vector<float>(160, -9.0f));
  for (int i = 0; i < 160; ++i) {
    data[0][static_cast<std::size_t>(i)] = std::sin(0.3f * static_cast<float>(i));
    data[1][static_cast<std::size_t>(i)] = std::cos(0.7f * static_cast<float>(i));
    data[2][static_cast<std::size_t>(i)] = 0.1f * static_cast<float>(i % 7) - 0.3f;
    data[4][static_cast<std::size_t>(i)] = std::sin(1.1f * static_cast<float>(i) + 0.5f);
  }
  std::vector<float*> slots;
  for (auto& d : data) slots.push_back(d.data());
  std::string text;
  const detail::StepFn fn = detail::build_step(p, text);
  fn(slots.data(), nullptr, 1);
  auto at = [&](int s, int i) {
    return data[static_cast<std::size_t>(s)][static_cast<std::size_t>(i)];
  };
  for (int i = 0; i < 9; ++i)
    for (int j = 0; j < 15; ++j) {
      const float t = partial_sums(4, [&](int k) { return at(0, i + 9 * k) * at(1, j + 15 * k); });
      EXPECT_EQ(at(3, i * 15 + j), fast_tanh(t + at(2, j))) << i << ", " << j;
    }
  for (int j = 0; j < 13; ++j) {
    const float t = partial_sums(5, [&](int k) { return at(4, 5 * j + k); });
    const float v = (0.5f + 0.5f * fast_tanh(0.5f * t)) + at(4, 5 * j) * at(2, j);
    EXPECT_EQ(at(5, j), v) << j;
    EXPECT_EQ(at(6, j), v > 0.0f ? v : 0.0f) << j;
  }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 6; ++j) {
      const float t = partial_sums(7, [&](int k) { return at(0, 7 * i + k) * at(1, 7 * j + k); });
      EXPECT_EQ(at(7, i * 6 + j), t) << i << ", " << j;
    }
  EXPECT_EQ(at(7, 18), -9.0f) << "wrote past the output";
  EXPECT_EQ(at(3, 135), -9.0f) << "wrote past the output";
  EXPECT_EQ(at(5, 13), -9.0f) << "wrote past the output";
  EXPECT_EQ(at(6, 13), -9.0f) << "wrote past the output";
}

// A nest's reduction sums term k into partial sum k % 4 (kir::partials) and adds the four in
// order at the end. Terms chosen so that the order shows: 1e20 swallows a 1. Column
// pattern A, [1e20, 1, 1, 1, 1, 1, -1e20]: partial sums 1e20, 2, -1e20, 1 → 1 (in order from
// k = 0: 0). Pattern B, [1e20, 1, 1, 1, -1e20, 0, 0]: 0, 1, 1, 1 → 3 (in order: 0). Nine columns:
// a block of eight and a tail of one in WebAssembly.
TEST(Emitters, NestReductionsSumInFourPartialSumsOverK) {
  using K = IrRef::Kind;
  kir::Program p;
  kir::Loop rows;
  rows.rows = 1;
  rows.n = 9;
  kir::Expr sum;
  sum.op = Op::Sum;
  sum.depth = 7;
  sum.in[0] = IrRef{K::Strided, 0, 0.0f, {0, 7, 1}};
  sum.store = 1;
  rows.body = {sum};
  p.loops = {rows};
  p.stmts.push_back(kir::Stmt{});
  p.slots = 2;
  const std::vector<float> a = {1e20f, 1, 1, 1, 1, 1, -1e20f}, b = {1e20f, 1, 1, 1, -1e20f, 0, 0};
  std::vector<float> in, out(10, -9.0f);
  for (int j = 0; j < 9; ++j)
    in.insert(in.end(), j % 2 ? b.begin() : a.begin(), j % 2 ? b.end() : a.end());
  float* slots[] = {in.data(), out.data()};
  std::string text;
  detail::build_step(p, text)(slots, nullptr, 1);
  for (int j = 0; j < 9; ++j)
    EXPECT_EQ(out[static_cast<std::size_t>(j)], j % 2 ? 3.0f : 1.0f) << "column " << j << "\n"
                                                                     << text;
  EXPECT_EQ(out[9], -9.0f) << "wrote past the output";
}

TEST(Emitters, WebAssemblyModuleValidates) {
  WasmImports imports;
  imports.log_function = 1;
  for (const kir::Program& p : {every_op_program(), nest_program()}) {
    const WasmModule m = emit_wasm(p, imports);
    ASSERT_GT(m.bytes.size(), 8u);
    EXPECT_EQ(m.bytes[0], 0x00);
    EXPECT_EQ(m.bytes[1], 'a');
    EXPECT_NE(m.text.find("f32x4.mul"), std::string::npos) << m.text;
#ifdef __EMSCRIPTEN__
    const int valid =
        EM_ASM_INT({ return WebAssembly.validate(HEAPU8.slice($0, $0 + $1)) ? 1 : 0; },
                   m.bytes.data(), static_cast<int>(m.bytes.size()));
    EXPECT_EQ(valid, 1);
#endif
  }
}

// The sizes of a module's function bodies, from its code section (id 10).
std::vector<std::size_t> function_sizes(const std::vector<unsigned char>& m) {
  std::size_t at = 8;  // after the magic and the version
  auto uleb = [&] {
    std::size_t v = 0;
    for (int shift = 0;; shift += 7) {
      const unsigned char b = m.at(at++);
      v |= static_cast<std::size_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
  };
  std::vector<std::size_t> sizes;
  while (at < m.size()) {
    const unsigned char id = m[at++];
    const std::size_t size = uleb(), end = at + size;
    if (id == 10)
      for (std::size_t f = uleb(); f > 0; --f) sizes.push_back(uleb()), at += sizes.back();
    at = end;
  }
  return sizes;
}

// Loops in a row share a function up to 4 KB (emit_wasm.cpp: each function costs its own stretch
// of unoptimized steps); a statement between two loops keeps them apart, so the order holds.
TEST(Emitters, WebAssemblyPacksLoopsInARowIntoFunctionsUpTo4KB) {
  // Slots: 0 x, 1 y, 2 x + y, 3 a copy of x.
  kir::Program p;
  kir::Loop add;
  add.n = kEmitN;
  kir::Expr sum;
  sum.op = Op::Add;
  sum.in = {IrRef{IrRef::Kind::Vector, 0, 0.0f}, IrRef{IrRef::Kind::Vector, 1, 0.0f}};
  sum.store = 2;
  add.body = {sum};
  p.loops = {add};
  p.slots = 4;
  const int copy_at = 30, loops = 40;
  for (int i = 0; i < loops; ++i) {
    if (i == copy_at) {
      kir::Stmt copy;
      copy.kind = kir::Stmt::Kind::Copy;
      copy.src = 0, copy.dst = 3, copy.n = kEmitN;
      p.stmts.push_back(copy);
    }
    p.stmts.push_back(kir::Stmt{});
    p.stmts.back().note = "loop " + std::to_string(i) + ";";
  }
  WasmImports imports;
  imports.log_function = 1;
  const WasmModule m = emit_wasm(p, imports, true);
  const std::vector<std::size_t> sizes = function_sizes(m.bytes);
  kir::Program one = p;
  one.stmts.resize(1);
  const std::size_t one_loop = function_sizes(emit_wasm(one, imports).bytes).at(1);
  ASSERT_LT(2 * one_loop, 4096u) << "the test needs two loops to fit in one function";

  // Function i's loops, from the text: each function's lines follow its "(func $loop", each
  // loop's lines start with its note (the step's text, before them, calls the functions).
  std::vector<std::vector<int>> held;
  for (std::size_t f = m.text.find("(func $loop"); f != std::string::npos;) {
    const std::size_t next_f = m.text.find("(func $loop", f + 1);
    held.emplace_back();
    for (std::size_t at = m.text.find(";; loop ", f); at < next_f && at != std::string::npos;
         at = m.text.find(";; loop ", at + 1))
      held.back().push_back(std::atoi(m.text.c_str() + at + 8));
    f = next_f;
  }
  ASSERT_EQ(held.size() + 1, sizes.size()) << m.text;
  int next = 0;
  for (std::size_t f = 0; f < held.size(); ++f) {
    for (int i : held[f]) EXPECT_EQ(i, next++) << "loops out of order\n" << m.text;
    const bool both_sides = held[f].front() < copy_at && held[f].back() >= copy_at;
    EXPECT_FALSE(both_sides) << "function " << f + 1 << " spans the copy\n" << m.text;
    if (held[f].size() > 1) EXPECT_LE(sizes[f + 1], 4096u + 16u) << "function " << f + 1;
    if (f + 1 < held.size() && held[f + 1].front() != copy_at)  // full: the next loop did not fit
      EXPECT_GT(sizes[f + 1] + one_loop, 4096u) << "function " << f + 1 << " had room";
  }
  EXPECT_EQ(next, loops);
  EXPECT_LT(held.size(), static_cast<std::size_t>(loops)) << "no loops were packed";
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
  for (const kir::Program& p : {every_op_program(), nest_program()}) {
    const std::string path = ::testing::TempDir() + "looplab_emit_test.c";
    std::ofstream(path) << emit_c(p);
    const std::string command =
        "cc -std=gnu11 -Wall -Wextra -Werror -fsyntax-only '" + path + "' 2>&1";
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
    std::remove(path.c_str());
  }
#endif
}

}  // namespace
}  // namespace looplab
