// looplab/trace.hpp — traced execution: record the step once, compile it, replay it.
//
// The Tracer is a Builder that only records: the same model, loss, autodiff and optimizer code
// that runs eagerly produces a graph here. compile() turns the graph into a Program:
//   1. dead-node removal  — keep only what the outputs and parameter updates need;
//   2. memory planning    — every intermediate gets a place in one arena (memory_plan.hpp);
//   3. lowering           — a flat list of (kernel, resolved pointers) instructions.
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

#include "looplab/builder.hpp"

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
  int nodes_traced = 0;    // everything the tracer recorded, autodiff and optimizer included
  int nodes_live = 0;      // after dead-node removal
  int instructions = 0;
  std::size_t arena_bytes = 0;
  std::size_t unplanned_bytes = 0;  // what one buffer per node would have taken
  double flops_per_step = 0.0;
  double compile_ms = 0.0;
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

 private:
  friend Program compile(const Tracer&, const std::vector<Value>&, const std::vector<Assign>&);
  struct Instruction {
    void (*forward)(const KernelArgs&);
    KernelArgs args;
  };
  struct Update {
    float* dst;
    const float* src;
    std::size_t n;
  };
  struct InputUse {
    int instruction, slot;
  };
  struct Source {  // where an instruction's input comes from, to derive shapes again
    int instruction = -1;  // produced by this instruction, or
    int leaf = -1;         // a leaf (node id); its shape is leaf_shape_[leaf]
  };
  void derive_shapes();
  std::vector<float> arena_;
  std::vector<std::unique_ptr<Tensor>> constants_;
  std::vector<OpAttrs> attrs_;
  std::vector<Instruction> code_;
  std::vector<Update> updates_;
  std::vector<const float*> outputs_;
  std::vector<std::vector<InputUse>> input_uses_;  // node id of an input -> where it is read
  std::vector<const OpDef*> defs_;
  std::vector<std::array<Source, kMaxArity>> sources_;
  std::vector<std::size_t> capacity_;  // bytes planned for each instruction's output
  std::vector<Shape> leaf_shape_;      // node id -> current shape of a leaf
  bool shapes_dirty_ = false;
  CompileStats stats_;
};

Program compile(const Tracer& tracer, const std::vector<Value>& outputs, const std::vector<Assign>& updates);

}  // namespace looplab
