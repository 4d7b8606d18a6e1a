// looplab/engine/kir_op.hpp — the scalar operations of compiled mode's loop bodies (kir::Op).
//
// Its own small header so that the op table (ops.hpp) can name, in each op's row, the kir::Op the
// op becomes in a loop (LoopForm), without the op vocabulary including the whole lowering IR
// (kernel_ir.hpp, which includes this). Each Op has one formula in each emitter (emit_c.cpp,
// emit_wasm.cpp) and one in emit_test.cpp's interpreter; a new op of the table whose loop form is
// one of these needs none of them.
//
//   kir::Expr e;  e.op = op_def(OpKind::Square).fusion.loop.op;  // kir::Op::Mul
//   kir::op_name(e.op);                                           // "mul"
#pragma once

namespace looplab::kir {

// The elementwise operations a loop body uses: the ops of the table, normalized (each op's
// LoopForm in ops.cpp says how: MulScalar, a column times a scalar and Square are Mul; AddRow and
// AddConst are Add; Scale is Mul by a constant; MeanGrad is Div by the length; Fill and
// RepeatRows are Copy).
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
  // Nests only: Σ over k < depth of a (Sum) or a·b (Dot, a matrix product's element), in float32
  // partial sums over k (kernel_ir.hpp, partials()). (The kernels sum in double, in 16 lanes, and
  // hand a product whose every size is ≥ 8 to Eigen's float GEMM: the losses agree within 1e-5.)
  Sum,
  Dot,
};
// Dot stays last. NOTE: no Count enumerator, as the emitters switch over every Op without a
// default, so that the compiler names any Op one of them lacks.
inline constexpr int kOpCount = static_cast<int>(Op::Dot) + 1;

const char* op_name(Op op);
int arity(Op op);
inline bool is_reduction(Op op) { return op == Op::Sum || op == Op::Dot; }

}  // namespace looplab::kir
