// looplab/engine/ops.hpp — the one op vocabulary shared by eager and traced execution.
//
// Each op has, in one place (ops.cpp, one block per op and one row of the table): its shape rule,
// its forward kernel (raw float pointers viewed through Eigen maps), its gradient rule (written
// with Builder ops, so the same rule runs eagerly or appends nodes to a traced graph), its FLOP
// count and its fusion role (how the compiler may fuse it), which holds its loop form (the
// kir::Op compiled mode generates for it in a loop). Only primitives live here; mse and dense are
// compositions in builder.hpp.
//
// To add an op: a line in LOOPLAB_OPS, a block and a table row in ops.cpp, a row in ops_test.cpp
// (optionally a Builder shorthand). Autodiff, the eager executor, the compiler and the executor
// read the table; the only ops they name are in two loop peepholes (fusion.hpp: a Square folded
// into a sum, a Mul by a once-per-run value run as MulScalar).
//
//   const OpDef& d = op_def(OpKind::MatMul);
//   Shape out = d.shape(in_shapes, attrs);
//   d.forward({inputs, in_shapes, out_ptr, out, attrs});
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "looplab/base/tensor.hpp"
#include "looplab/engine/kir_op.hpp"

namespace looplab {

// X(name, arity). The enum and the name table both come from this list.
#define LOOPLAB_OPS(X) \
  X(MatMul, 2)         \
  X(AddRow, 2)         \
  X(Add, 2)            \
  X(Sub, 2)            \
  X(Mul, 2)            \
  X(Scale, 1)          \
  X(MulScalar, 2)      \
  X(Square, 1)         \
  X(Mean, 1)           \
  X(SumRows, 1)        \
  X(Sum, 1)            \
  X(MeanGrad, 2)       \
  X(Fill, 2)           \
  X(RepeatRows, 2)     \
  X(AddConst, 1)       \
  X(Div, 2)            \
  X(Sqrt, 1)           \
  X(Tanh, 1)           \
  X(TanhGrad, 2)       \
  X(Sigmoid, 1)        \
  X(SigmoidGrad, 2)    \
  X(Relu, 1)           \
  X(ReluGrad, 2)       \
  X(Log, 1)            \
  X(Clip, 1)           \
  X(ClipGrad, 2)       \
  X(SubFrom, 1)        \
  X(WindowGather, 1)   \
  X(WindowScatter, 1)  \
  X(GroupMean, 1)      \
  X(GroupMeanGrad, 1)  \
  X(Dropout, 2)        \
  X(Softplus, 1)

enum class OpKind {
#define LOOPLAB_ENUM(name, arity) name,
  LOOPLAB_OPS(LOOPLAB_ENUM)
#undef LOOPLAB_ENUM
};

#define LOOPLAB_COUNT(name, arity) +1
inline constexpr int kOpCount = 0 LOOPLAB_OPS(LOOPLAB_COUNT);
#undef LOOPLAB_COUNT

constexpr int kMaxArity = 2;

// A batch of sequences is one matrix: `length` time steps of each sequence in consecutive rows,
// its channels in the columns ([batch·length x channels], sequence b's step t at row b·length + t).
// A Conv1D layer's windows over it: output step o reads input steps o·stride − pad ... + kernel − 1
// (steps outside 0 .. length − 1 read zeros). conv_window() makes one as Keras pads.
struct Window {
  int length = 1;  // input steps per sequence
  int kernel = 1;  // steps per window
  int stride = 1;
  int pad = 0;  // zeros before step 0 ('same': half the padding Keras needs, rounded down)
  int out = 1;  // output steps per sequence
};
// 'valid': the windows that fit, (length − kernel) / stride + 1; 'same': ⌈length / stride⌉.
// nullopt when no window fits or a size is below 1: what a model's check asks (train/conv_net.cpp),
// without a throw through the engine, which the WebAssembly build compiles without unwinding code.
std::optional<Window> conv_window_if_fits(int length, int kernel, int stride, bool same);
// The same, for sizes known to fit: throws std::invalid_argument naming the numbers when not.
Window conv_window(int length, int kernel, int stride, bool same);

// Static attributes of a node, fixed when it is built.
struct OpAttrs {
  float scale = 1.0f;  // Scale: y = scale·x; AddConst: y = x + scale; SubFrom: scale − x;
                       // Dropout: the rate
  float lo = 0.0f, hi = 0.0f;  // Clip: y = min(max(x, lo), hi)
  bool transpose_a = false;    // MatMul: op(A) = A^T
  bool transpose_b = false;    // MatMul: op(B) = B^T
  Window window{};             // WindowGather, WindowScatter; GroupMean(Grad): window.length
  std::uint32_t seed = 0;      // Dropout: which mask (dropout_keeps)
};
// NOTE: no op keeps a batch size in its attributes. Every output shape follows from the input
// shapes (and a window's per-sequence sizes), so a program compiled with a relaxed batch
// dimension can re-derive all shapes for a new batch.

// Whether Dropout keeps element i of a tensor at step t: a hash of (seed, t, i) (SplitMix64's
// mixer), uniform in [0, 1) from its top 24 bits, at least the rate. A pure function, so the
// mask is the same in eager, traced and compiled mode and in the backward pass, with nothing
// stored between them (tests/core/models/seed_reference.py computes the same mask).
inline bool dropout_keeps(std::uint32_t seed, std::uint32_t t, std::uint64_t i, float rate) {
  std::uint64_t z = ((static_cast<std::uint64_t>(seed) << 32) | t) + (i + 1) * 0x9E3779B97F4A7C15u;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
  z ^= z >> 31;
  return static_cast<float>(z >> 40) * (1.0f / 16777216.0f) >= rate;
}

struct KernelArgs {
  std::array<const float*, kMaxArity> in{};
  std::array<Shape, kMaxArity> in_shape{};
  float* out = nullptr;
  Shape out_shape{};
  const OpAttrs* attrs = nullptr;
};

class Builder;
struct Value;

// How the compiler may fuse an op (fusion.hpp reads this; it has no per-op cases):
//   Opaque       one instruction of its own;
//   Elementwise  output element i from element i of each Vector operand (element 0 of a Scalar
//                one): a member of a fused loop, which runs this same kernel tile by tile;
//   Reduction    sums its input's elements into its output (all of them, or each column's;
//                `mean`: divided by their count); when the output is [1 x 1] it can be a loop's
//                sink, summed tile by tile as the loop runs;
//   Contraction  a matrix product: heads a Dense group (then a Bias, then an Activation). In a
//                loop, a column times a [1 x 1] is elementwise and aᵀb of two columns a dot
//                product sink.
enum class FusionKind : unsigned char { Opaque, Elementwise, Reduction, Contraction };
// How a loop member reads an operand: a vector of the loop's length; element 0 of a [1 x 1]
// tensor (a broadcast); a row repeated down the rows, which a loop takes only when it is [1 x 1]
// (then as a Scalar); only its shape (the output takes its size from it); not at all.
enum class LoopOperand : unsigned char { None, Vector, Scalar, Row, ShapeOnly };
// What a Dense group may take after its matrix product: a bias, then an activation.
enum class Epilogue : unsigned char { None, Bias, Activation };
// Where an operand of a loop-body expression comes from: the op's first or second operand, its
// `scale` attribute as a constant, or the loop's length n as a constant.
enum class LoopIn : unsigned char { A, B, Scale, Length };
// What an Elementwise op (and a Contraction in a loop: a column times a [1 x 1]) computes in a
// generated loop's body: one kir::Op over its operands normalized, e.g. Square is Mul(A, A),
// AddConst Add(A, Scale), MeanGrad Div(A, Length). Clip and ClipGrad's lo and hi come along from
// the attributes. The lowering (kernel_ir.cpp) reads this and names no op, so an op whose form is
// an existing kir::Op needs nothing in compiled mode. A Reduction is a flat loop's sink and keeps
// the default (never read), except the column sums' Sum, which a nest computes down the rows.
struct LoopForm {
  kir::Op op = kir::Op::Copy;
  std::array<LoopIn, kMaxArity> in{LoopIn::A, LoopIn::B};
  constexpr LoopForm() = default;
  constexpr LoopForm(kir::Op o, LoopIn a = LoopIn::A, LoopIn b = LoopIn::B) : op(o), in{a, b} {}
};
struct FusionRole {
  FusionKind kind = FusionKind::Opaque;
  std::array<LoopOperand, kMaxArity> operand{LoopOperand::None, LoopOperand::None};
  Epilogue epilogue = Epilogue::None;
  bool mean = false;  // a Reduction divided by the number of elements it sums
  LoopForm loop{};
};

// What a gradient rule sees: the node's inputs and output as Values of the builder it runs in,
// and the incoming gradient dout. It sets din[i] for every input that needs one.
struct GradArgs {
  std::array<Value*, kMaxArity> din{};
  std::array<const Value*, kMaxArity> in{};
  const Value* out = nullptr;
  const Value* dout = nullptr;
  const OpAttrs* attrs = nullptr;
};

struct OpDef {
  std::string_view name;
  int arity;
  // Throws ShapeError (std::invalid_argument) when the inputs do not fit.
  Shape (*shape)(const std::array<Shape, kMaxArity>& in, const OpAttrs& attrs);
  void (*forward)(const KernelArgs& args);
  void (*gradient)(Builder& b, const GradArgs& args);
  double (*flops)(const std::array<Shape, kMaxArity>& in, Shape out, const OpAttrs& attrs);
  FusionRole fusion;
};

const OpDef& op_def(OpKind kind);

// The coefficients of fast_tanh (Eigen's generic_fast_tanh_float) and its steps in order: the
// generated code of compiled mode (emit_c.cpp, emit_wasm.cpp) prints kSteps, each step in its own
// language, so it computes what fast_tanh() does, operation for operation.
struct FastTanh {
  enum class Step : unsigned char {
    ClampAbove,     // x = a > kClamp ? kClamp : a
    ClampBelow,     // x = x < -kClamp ? -kClamp : x
    Square,         // x2 = x * x
    Numerator,      // p = kP[0], then p = p * x2 + kP[i] for i = 1, 2, ..., then p = p * x
    Denominator,    // q = kQ[0], then q = q * x2 + kQ[i] for i = 1, 2, ...
    Ratio,          // r = p / q (always: the select below then needs no branch)
    SmallIsItself,  // |a| < kLinearBelow ? a : r, the result
  };
  static constexpr Step kSteps[] = {Step::ClampAbove,   Step::ClampBelow,  Step::Square,
                                    Step::Numerator,    Step::Denominator, Step::Ratio,
                                    Step::SmallIsItself};
  static constexpr float kClamp = 7.99881172180175781f;  // tanh(±kClamp) rounds to ±1
  static constexpr float kP[7] = {-2.76076847742355e-16f, 2.00018790482477e-13f,
                                  -8.60467152213735e-11f, 5.12229709037114e-08f,
                                  1.48572235717979e-05f,  6.37261928875436e-04f,
                                  4.89352455891786e-03f};  // numerator, in x², then times x
  static constexpr float kQ[4] = {1.19825839466702e-06f, 1.18534705686654e-04f,
                                  2.26843463243900e-03f, 4.89352518554385e-03f};  // denominator
  static constexpr float kLinearBelow = 0.0004f;  // |a| below this: tanh(a) = a
};

// tanh by a rational approximation, |error| < 1e-6, in FastTanh::kSteps' order. NOTE: libm's tanh
// is not vectorizable and would be most of a small MLP's step; this is inline and branch-free so
// loops over it vectorize (SSE natively, simd128 in WebAssembly).
inline float fast_tanh(float a) {
  using T = FastTanh;
  float x = a > T::kClamp ? T::kClamp : a;
  x = x < -T::kClamp ? -T::kClamp : x;
  const float x2 = x * x;
  float p = T::kP[0];
  p = p * x2 + T::kP[1];
  p = p * x2 + T::kP[2];
  p = p * x2 + T::kP[3];
  p = p * x2 + T::kP[4];
  p = p * x2 + T::kP[5];
  p = p * x2 + T::kP[6];
  p = p * x;
  float q = T::kQ[0];
  q = q * x2 + T::kQ[1];
  q = q * x2 + T::kQ[2];
  q = q * x2 + T::kQ[3];
  const float r = p / q;  // computed unconditionally: the selects below then need no branch
  const float magnitude = a < 0.0f ? -a : a;
  return magnitude < T::kLinearBelow ? a : r;
}
inline std::string_view op_name(OpKind kind) { return op_def(kind).name; }

}  // namespace looplab
