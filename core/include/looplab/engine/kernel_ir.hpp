// looplab/engine/kernel_ir.hpp — the lowering IR of compiled mode: one step as loops of scalar
// expressions, for the code emitters (emit_c.hpp, emit_wasm.hpp).
//
// A traced program's instructions call a generic kernel per op (per tile, in a fused loop), so
// every intermediate goes through memory. Compiled mode lowers the same fused, planned program
// once more, into this IR, and generates code for it: a fused Loop becomes ONE loop whose body is
// a list of scalar expressions, intermediates in registers (`Temp`), reductions into several
// partial sums. A matrix product, a Dense group (product, bias, activation) or a column sum
// becomes a nest: a Loop over rows x columns whose operands are strided views of their slots (a
// matrix, a row repeated down the rows, a column repeated across them) and whose reductions (Sum,
// Dot) run along a third axis k, in registers, in a few partial sums over k; but a product of
// 2^16 multiply-adds or more (every size ≥ 8) stays a call of its kernel, Eigen's GEMM
// (kernel_ir.cpp, library_product). Anything else that is
// not a loop stays a call of the op's own kernel. Data are reached through slots: the generated
// function gets an array of pointers (`slots`) and reads slot i's data at s[i], so the same code
// serves any buffers and is cached by its text.
//
//   std::unique_ptr<detail::Code> code = ...;          // a lowered program (lowering.hpp)
//   detail::Lowered low = detail::lower_to_kir(*code);  // its loops, calls and copies
//   std::string c = emit_c(low.ir);                     // or emit_wasm(low.ir, ...)
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "looplab/engine/kir_op.hpp"

namespace looplab::kir {

// An operand: element i of a slot's vector, a scalar register (loaded or computed before the
// loop), an earlier expression's result for this element, a constant, or (nests only) element
// i·stride[0] + j·stride[1] + k·stride[2] of a slot, for row i, column j and, inside a Sum or Dot,
// step k of the reduction (k = 0 elsewhere): a matrix (cols, 1, 0), a row repeated down the rows
// (0, 1, 0), a column repeated across them (1, 0, 0), op(A) of a product (lda, 0, 1) or (1, 0,
// lda).
struct Ref {
  enum class Kind : unsigned char { Vector, Scalar, Temp, Const, Strided };
  Kind kind = Kind::Const;
  int index = 0;       // slot (Vector, Strided), scalar register (Scalar), expression (Temp)
  float value = 0.0f;  // Const
  std::array<int, 3> stride{};  // Strided
  constexpr Ref() = default;
  constexpr Ref(Kind k, int i, float v, std::array<int, 3> s = {})
      : kind(k), index(i), value(v), stride(s) {}
};

struct Expr {
  Op op = Op::Copy;
  std::array<Ref, 2> in{};
  float lo = 0.0f, hi = 0.0f;  // Clip, ClipGrad
  int store = -1;              // a slot the result is also written to (a materialized value)
  int depth = 0;               // Sum, Dot: the length of the reduction (its operands are Strided)
};

// Σ over the loop of a (Sum), a·a (SumSquares) or a·b (Dot), into partial sums; the total (÷ n
// when mean) is written to element 0 of slot `out`.
struct Sink {
  enum class Kind : unsigned char { Sum, SumSquares, Dot } kind = Kind::Sum;
  Ref a, b;
  bool mean = false;
  int out = -1;
  // Loop-invariant factors taken out of the sum (Σ c·t = c·Σ t, as a person writes it): the total
  // is multiplied (or divided) by each, in order, before the mean.
  struct Factor {
    Ref by;  // Const or Scalar
    bool divide = false;
  };
  std::vector<Factor> after;
};

// A flat loop runs its body for i < n. A nest (rows > 0) runs it for every row i < rows and
// column j < n, row by row; a store writes element i·n + j; it has no sinks. Both emitters
// vectorize a nest along the columns, so an m x 1 product is built as a 1 x m nest.
struct Loop {
  std::size_t n = 0;               // elements; in a nest, the columns
  std::size_t rows = 0;            // 0: a flat loop; else a nest of rows x n
  std::vector<int> scalar_loads;   // scalar register r < size: element 0 of slot scalar_loads[r]
  std::vector<Expr> scalar_exprs;  // register size + j: computed once before the loop (scalars)
  std::vector<Expr> body;          // per element; expression j is Temp j
  std::vector<Sink> sinks;
  std::string note;  // the ops it came from, for the reader of the code
  int scalars() const { return static_cast<int>(scalar_loads.size() + scalar_exprs.size()); }
  bool nest() const { return rows > 0; }
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

// What a loop touches, for both emitters. A slot read or written element by element (through a
// pointer: a Vector or Strided operand, a store), each once, in order of first use: per body
// expression its operands (up to its arity), then its store; then per sink its operands (b only
// in a Dot). emit_c gives each a restrict pointer, read-only unless stored; emit_wasm a local.
struct ElementSlot {
  int slot = -1;
  bool stored = false;  // some expression stores it (an activation in place also reads it)
};
std::vector<ElementSlot> element_slots(const Loop& L);
// The loop with its slots numbered 0, 1, ... in order of first use (its scalar loads, its
// once-expressions' operands, then as element_slots() with each sink's out after its operands);
// `slots` gets the original numbers, so the loop's code can read them through an array of its own.
Loop with_local_slots(Loop L, std::vector<int>& slots);

// The partial sums of a sink: element i of a block of kLanes goes to partial sum i % kLanes; the
// tail (n % kLanes elements) to a last one; at the end they are added in lane order, then the
// tail. flat_order() spells this out for both emitters, so native and WebAssembly round alike.
constexpr int kLanes = 16;

// A flat loop's order, which both emitters print: elements below `blocks` run in blocks of kLanes
// (element i adds to its sink's partial sum i % kLanes), elements blocks .. n - 1 are the tail
// (adding to partial sum kTail), and a sink's total is its partial sums added in `finish`'s order
// (the lanes in turn, then the tail), then multiplied or divided by its factors (Sink::after) in
// turn, then divided by n for a mean.
struct FlatOrder {
  static constexpr int kTail = kLanes;  // the tail's partial sum, after the lanes'
  std::size_t n = 0, blocks = 0;
  std::vector<int> finish;
};
FlatOrder flat_order(std::size_t n);

// A nest's reduction over depth terms: term k goes to partial sum k % partials(depth), in float32,
// and the partial sums are added in order ((s0 + s1) + s2) + s3 at the end. One running sum would
// wait on its own last addition at every step; four let the steps overlap (W2 natively, best of 5
// in five alternated rounds: 26.1-27.1 → 22.0-22.5 ms, sums then in double). Float32 rather than
// double fills twice the lanes of a vector, as the careful reference does (W2 with AVX-512
// disabled: 28.2-28.3 → 23.0-23.1 ms, reference 22.2). reduction_order() spells the order out.
constexpr int kNestPartials = 4;
inline int partials(int depth) { return depth >= kNestPartials ? kNestPartials : 1; }

// That order spelled out, which both emitters print, so that neither works it out (and native and
// WebAssembly round alike; emit_test.cpp checks the sums, kernel_ir_test.cpp the order). For
// depth ≥ 1 the terms come in order of k, each once: the first `partials` set their partial sums
// (term p sets partial sum p); a loop runs whole rounds (term k0 + t.k adds to t.partial for t in
// `round`, for every k0 from round_begin below round_end by round.size()); the tail adds the last
// depth % partials terms one by one; `finish` lists the partial sums in the order they are added
// (the total is left in the first).
struct ReductionOrder {
  struct Term {
    int k = 0;        // the step along the reduction (an offset into the round, in `round`)
    int partial = 0;  // the partial sum it goes to
    bool operator==(const Term&) const = default;
  };
  int depth = 0;
  std::vector<Term> first, round, tail;
  int round_begin = 0, round_end = 0;  // no loop when equal
  std::vector<int> finish;
  bool rounds() const { return round_end > round_begin; }
};
ReductionOrder reduction_order(int depth);

}  // namespace looplab::kir
