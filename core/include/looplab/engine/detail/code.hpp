// looplab/engine/detail/code.hpp — what a compiled Program executes (not a public interface).
//
// The lowering (lowering.hpp) builds a Code; Program (program.hpp) owns one and runs it. Every
// pointer in it is resolved at compile time: into the arena (planned buffers), the scratch area
// (loop tiles and Dense intermediates), the program's copies of constants, or the caller's
// tensors (inputs, parameters). Tests include this header to look at the instructions.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <vector>

#include "looplab/engine/ops.hpp"
#include "looplab/engine/program.hpp"

namespace looplab::detail {

// Floats per tile of a fused loop: a scratch tile is 4 KB and stays in L1.
constexpr std::size_t kTile = 1024;

struct Kernel {
  void (*forward)(const KernelArgs&) = nullptr;
  KernelArgs args;
};

struct Instruction {
  Kernel op;                       // a single op, or a Dense group's matmul
  std::array<Kernel, 2> epilogue;  // Dense: bias, activation; they alternate between the output
                                   // buffer and the scratch area so that the last writes the output
  int n_epilogue = 0;
  int loop = -1;           // else: runs Code::loops[loop]
  std::vector<int> nodes;  // the op nodes it computes (op indices), in order
};

// A fused loop: its steps run tile by tile (kTile elements) with the ops' own kernels.
struct LoopValue {
  const float* data = nullptr;  // an input, or a buffer; nullptr: a scratch tile
  int tile = -1;                // the scratch tile of an intermediate that has no buffer
  bool vector = true;           // false: read as a [1 x 1] scalar (or only for its shape)
};
struct LoopStep {
  const OpDef* def = nullptr;
  OpKind op = OpKind::Add;
  const OpAttrs* attrs = nullptr;
  std::array<int, kMaxArity> in{-1, -1};  // value indices
  std::array<LoopOperand, kMaxArity> how{};
  int out = -1;       // value index, or
  int sink = -1;      // a reduction: index into sinks
  int node = -1;      // the op node it computes
  bool once = false;  // a uniform value computed once per run into a constant (Peephole::Once)
};
struct Sink {
  int node = -1;
  bool mean = false;    // divided by the loop's length
  bool dot = false;     // Σ a·b of its two operands
  bool square = false;  // sums squares of its input: a Square read only by this sink, folded in
  float* out = nullptr;
  double lane[8] = {};
  double tail = 0.0;
};
struct Loop {
  std::size_t n = 0;  // vector length
  std::vector<LoopValue> values;
  std::vector<LoopStep> steps;
  std::vector<Sink> sinks;
  std::vector<float> constants;  // values computed once per run (the `once` steps' outputs)
  std::vector<float*> at;        // where each value is in the current tile (sized once, at compile)
};

struct Update {
  float* dst;
  const float* src;
  std::size_t n;
};
struct Source {   // where a node's input comes from, to derive shapes again
  int node = -1;  // produced by this op node (an op index), or
  int leaf = -1;  // a leaf (node id); its shape is leaf_shape[leaf]
};

struct Code {
  std::vector<float> arena;
  std::vector<float> scratch;  // loop tiles and Dense intermediates (groups run one at a time)
  std::vector<std::unique_ptr<Tensor>> constants;  // copies: the tracer may go
  std::vector<OpAttrs> attrs;                      // per op node; kernels point into it
  std::vector<Instruction> instructions;
  std::vector<Loop> loops;
  std::vector<Update> updates;
  std::vector<const float*> outputs;
  std::vector<std::vector<const float**>> input_uses;  // node id of an input -> pointers reading it
  // Per op node (op index), to derive every shape again for a new batch size:
  std::vector<const OpDef*> defs;
  std::vector<std::array<Source, kMaxArity>> sources;
  std::vector<Shape> node_shape;
  std::vector<std::size_t> capacity;  // bytes planned for the node's buffer (0: it has none)
  std::vector<Shape> leaf_shape;      // node id -> current shape of a leaf
  bool shapes_dirty = false;
  CompileStats stats;

  // The executor (program.cpp).
  void run(int steps);
  void run_loop(Loop& loop);
  // Both return whether a pointer changed (a generated step then copies its slots again).
  bool bind_input(int input, const float* data);
  bool bind_input(int input, const float* data, Shape shape);
  void derive_shapes();
  void refresh_shapes(Instruction& ins);
};

}  // namespace looplab::detail
