// looplab/engine/kernel_ir.hpp — the lowering IR of compiled mode: one step as loops of scalar
// expressions, for the code emitters (emit_c.hpp, emit_wasm.hpp).
//
// A traced program's instructions call a generic kernel per op (per tile, in a fused loop), so
// every intermediate goes through memory. Compiled mode lowers the same fused, planned program
// once more, into this IR, and generates code for it: a fused Loop becomes ONE loop whose body is
// a list of scalar expressions, intermediates in registers (`Temp`), reductions into several
// partial sums; anything that is not a loop (a matrix product, a Dense group, a column sum) stays
// a call of the op's own kernel, as XLA calls a GEMM library. Data are reached through slots: the
// generated function gets an array of pointers (`slots`) and reads slot i's data at s[i], so the
// same code serves any buffers and is cached by its text.
//
//   std::unique_ptr<detail::Code> code = ...;       // a lowered program (lowering.hpp)
//   kir::Step step = kir::build(*code);              // its loops, calls and copies
//   std::string c = emit_c(step.ir);                 // or emit_wasm(step.ir, ...)
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

namespace looplab::kir {

// The elementwise operations a loop body uses: the ops of the table, normalized (MulScalar, a
// column times a scalar and Square are Mul; AddRow and AddConst are Add; Scale is Mul by a
// constant; MeanGrad is Div by the length; Fill and RepeatRows are Copy).
enum class Op : unsigned char {
  Add,
  Sub,
  Mul,
  Div,
  Sqrt,
  Log,
  Tanh,
  TanhGrad,     // b·(1 − a·a)
  Sigmoid,      // 0.5 + 0.5·tanh(0.5·a)
  SigmoidGrad,  // (b·a)·(1 − a)
  Relu,
  ReluGrad,  // a > 0 ? b : 0
  Clip,      // a < lo ? lo : (a > hi ? hi : a)
  ClipGrad,  // lo < a < hi ? b : 0
  Copy,
};
const char* op_name(Op op);
int arity(Op op);

// An operand: element i of a slot's vector, a scalar register (loaded or computed before the
// loop), an earlier expression's result for this element, or a constant.
struct Ref {
  enum class Kind : unsigned char { Vector, Scalar, Temp, Const } kind = Kind::Const;
  int index = 0;       // slot (Vector), scalar register (Scalar), expression (Temp)
  float value = 0.0f;  // Const
};

struct Expr {
  Op op = Op::Copy;
  std::array<Ref, 2> in{};
  float lo = 0.0f, hi = 0.0f;  // Clip, ClipGrad
  int store = -1;              // a slot the result is also written to (a materialized value)
};

// Σ over the loop of a (Sum), a·a (SumSquares) or a·b (Dot), into partial sums; the total (÷ n
// when mean) is written to element 0 of slot `out`.
struct Sink {
  enum class Kind : unsigned char { Sum, SumSquares, Dot } kind = Kind::Sum;
  Ref a, b;
  bool mean = false;
  int out = -1;
};

struct Loop {
  std::size_t n = 0;               // elements
  std::vector<int> scalar_loads;   // scalar register r < size: element 0 of slot scalar_loads[r]
  std::vector<Expr> scalar_exprs;  // register size + j: computed once before the loop (scalars)
  std::vector<Expr> body;          // per element; expression j is Temp j
  std::vector<Sink> sinks;
  std::string note;  // the ops it came from, for the reader of the code
  int scalars() const { return static_cast<int>(scalar_loads.size() + scalar_exprs.size()); }
};

// The step: statements in order, run `steps` times.
struct Stmt {
  enum class Kind : unsigned char { Loop, Call, Copy } kind = Kind::Loop;
  int index = 0;  // Loop: into loops; Call: into the call table (a kernel and its arguments)
  int dst = -1, src = -1;  // Copy: slot to slot, n floats (a parameter update)
  std::size_t n = 0;
  std::string note;
};

struct Program {
  std::vector<Loop> loops;
  std::vector<Stmt> stmts;
  int slots = 0;
  int calls = 0;
  bool uses_log() const;
};

// The partial sums of a sink: element i of a block of kLanes goes to partial sum i % kLanes; the
// tail (n % kLanes elements) to a last one; at the end they are added in lane order, then the
// tail. Both emitters keep this order, so native and WebAssembly round alike.
constexpr int kLanes = 16;

}  // namespace looplab::kir
