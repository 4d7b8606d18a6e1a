// looplab/engine/trace.hpp — traced execution: record the step once, compile it, replay it.
//
// The Tracer is a Builder that only records: the same model, loss, autodiff and optimizer code
// that runs eagerly produces a graph here. compile() turns the graph into a Program:
//   1. dead-node removal  — keep only what the outputs and parameter updates need;
//   2. fusion             — ops that can run together become one instruction (fusion.hpp);
//   3. memory planning    — every value that still needs a buffer gets a place in one arena
//                           (memory_plan.hpp); fused intermediates need none;
//   4. lowering           — a flat list of (kernel, resolved pointers) instructions.
// Program::run() then executes the instructions and copies the new parameter values back:
// no allocation, no graph walk, no shape checks per step. What changes between steps (the
// learning rate, the batch) is a program input: a leaf whose data the caller updates or rebinds.
//
//   Tracer t;
//   Value x = t.input(x_data, "x"), lr = t.input(lr_tensor, "lr");
//   ... Value loss = ...; auto g = gradients(t, loss, params);
//   Program p = compile(t, {loss}, {{w, t.sub(w, t.mul_scalar(g[0], lr))}});
//   p.run(100);  float loss_now = p.output(0);
#pragma once

#include <memory>
#include <vector>

#include "looplab/engine/builder.hpp"
#include "looplab/engine/fusion.hpp"
#include "looplab/engine/memory_plan.hpp"

namespace looplab {

class Tracer final : public Builder {
 public:
  // The data a leaf refers to: the caller's tensor for inputs and parameters, a copy for constants.
  const float* leaf_data(Value v) const { return leaf_ptr_.at(static_cast<std::size_t>(v.id)); }
  float* parameter_data(Value v) const;

 private:
  void on_leaf(Value v, const float* data, Tensor* writable, Tensor* owned) override;
  void on_op(Value v) override;

  std::vector<const float*> leaf_ptr_;  // node id -> data (nullptr for op nodes)
  std::vector<Tensor*> params_;         // node id -> parameter tensor (nullptr otherwise)
  std::vector<std::unique_ptr<Tensor>> constants_;
};

struct CapacityError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// After every run, parameter `target` takes the value computed for `value`.
struct Assign {
  Value target;
  Value value;
};

struct CompileStats {
  int nodes_traced = 0;         // everything the tracer recorded, autodiff and optimizer included
  int nodes_live = 0;           // after dead-node removal (leaves included)
  int nodes_before_fusion = 0;  // live op nodes: one instruction each without fusion
  int nodes_after_fusion = 0;  // what is left after fusion: each group counts once (= instructions)
  int fused_groups = 0;        // groups of more than one op (Dense groups and Loops)
  int instructions = 0;
  std::size_t arena_bytes = 0;
  std::size_t unplanned_bytes = 0;  // what one buffer per node would have taken
  double flops_per_step = 0.0;
  double compile_ms = 0.0;
};

struct CompileOptions {
  bool fuse = true;  // false: one instruction per op (to measure what fusion buys, and to test it)
};

class Program {
 public:
  Program() = default;
  Program(Program&&) = default;  // moving keeps every buffer where the instructions point
  Program& operator=(Program&&) = default;
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  // Runs the compiled step `steps` times. Allocates nothing.
  void run(int steps = 1);
  float output(int i) const { return outputs_.at(static_cast<std::size_t>(i))[0]; }
  const float* output_data(int i) const { return outputs_.at(static_cast<std::size_t>(i)); }
  // Points an input leaf at other data of the same shape (e.g. the next batch); no copy.
  void bind_input(Value input, const float* data);
  // The same with a new shape (a relaxed batch dimension): every shape in the program is derived
  // again from the ops' shape rules before the next run. Throws CapacityError if a buffer would
  // outgrow the bytes the memory plan gave it (the shapes seen when tracing are the capacity).
  void bind_input(Value input, const float* data, Shape shape);
  const CompileStats& stats() const { return stats_; }
  // The buffers the memory plan placed (instruction indices as steps) and where: for tests.
  const std::vector<BufferRequest>& buffer_requests() const { return requests_; }
  const MemoryPlan& memory_plan() const { return memory_; }

 private:
  friend Program compile(const Tracer&, const std::vector<Value>&, const std::vector<Assign>&,
                         const CompileOptions&);
  friend struct Lowering;
  struct Kernel {
    void (*forward)(const KernelArgs&) = nullptr;
    KernelArgs args;
  };
  struct Instruction {
    Kernel op;                       // a single op, or a Dense group's matmul
    std::array<Kernel, 2> epilogue;  // Dense: bias, activation; they alternate between the output
                                     // buffer and scratch_ so that the last writes the output
    int n_epilogue = 0;
    int loop = -1;           // else: runs loops_[loop]
    std::vector<int> nodes;  // the op nodes it computes (indices into node_*_), in order
  };
  // A fused loop: its steps run tile by tile (kTile elements, trace.cpp) with the ops' own kernels.
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
    bool once = false;  // a MeanGrad read only by Muls: d / N once per run into a constant
  };
  struct Sink {
    OpKind op = OpKind::Sum;  // Mean, Sum, SumRows or MatMul (a dot product)
    int node = -1;
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
    std::vector<float*> at;  // where each value is in the current tile (sized once, at compile)
  };
  void run_loop(Loop& loop);
  struct Update {
    float* dst;
    const float* src;
    std::size_t n;
  };
  struct Source {   // where a node's input comes from, to derive shapes again
    int node = -1;  // produced by this op node (an index in op-node order), or
    int leaf = -1;  // a leaf (node id); its shape is leaf_shape_[leaf]
  };
  void derive_shapes();
  void refresh_shapes(Instruction& ins);
  std::vector<float> arena_;
  std::vector<float> scratch_;  // loop tiles and Dense intermediates (groups run one at a time)
  std::vector<std::unique_ptr<Tensor>> constants_;
  std::vector<OpAttrs> attrs_;  // per op node
  std::vector<Instruction> code_;
  std::vector<Loop> loops_;
  std::vector<Update> updates_;
  std::vector<const float*> outputs_;
  std::vector<std::vector<const float**>>
      input_uses_;  // node id of an input -> the pointers that read it
  // Per op node (in node order), to derive every shape again for a new batch size:
  std::vector<const OpDef*> defs_;
  std::vector<std::array<Source, kMaxArity>> sources_;
  std::vector<Shape> node_shape_;
  std::vector<std::size_t> capacity_;  // bytes planned for the node's buffer (0: it has none)
  std::vector<Shape> leaf_shape_;      // node id -> current shape of a leaf
  std::vector<BufferRequest> requests_;
  MemoryPlan memory_;
  bool shapes_dirty_ = false;
  CompileStats stats_;
};

Program compile(const Tracer& tracer, const std::vector<Value>& outputs,
                const std::vector<Assign>& updates, const CompileOptions& options = {});

}  // namespace looplab
