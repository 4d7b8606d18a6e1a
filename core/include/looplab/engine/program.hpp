// looplab/engine/program.hpp — traced execution: compile a recorded step once, replay it.
//
// compile() turns a Tracer's graph (tracer.hpp) into a Program in four passes, each a pure pass
// with its own header and tests:
//   1. dead-node removal  — keep only what the outputs and parameter updates need (dead_nodes.hpp);
//   2. fusion             — ops that can run together become one instruction (fusion.hpp);
//   3. memory planning    — every value that still needs a buffer gets a place in one arena
//                           (memory_plan.hpp); fused intermediates need none;
//   4. lowering           — a flat list of (kernel, resolved pointers) instructions (lowering.hpp).
// Program::run() then executes the instructions and copies the new parameter values back:
// no allocation, no graph walk, no shape checks per step. What changes between steps (the
// learning rate, the batch) is a program input: a leaf whose data the caller updates or rebinds.
// The instructions themselves are the program's business (detail/code.hpp).
//
//   Tracer t;
//   Value x = t.input(x_data, "x"), lr = t.input(lr_tensor, "lr");
//   ... Value loss = ...; auto g = gradients(t, loss, params);
//   Program p = compile(t, {loss}, {{w, t.sub(w, t.mul_scalar(g[0], lr))}});
//   p.run(100);  float loss_now = p.output(0);
#pragma once

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "looplab/engine/builder.hpp"

namespace looplab {

class Tracer;
namespace detail {
struct Code;
struct Generated;
}  // namespace detail

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
  double codegen_ms = 0.0;   // compiled mode: generating and building the code (in compile_ms)
  bool code_cached = false;  // compiled mode: found built in the compiled-code cache (no compiler)
  // compiled mode, the parts of codegen_ms: writing the code, building it (the C compiler, or the
  // engine compiling the module), loading it (dlopen, or instantiating the module)
  double emit_ms = 0.0, build_ms = 0.0, load_ms = 0.0;
};

struct CompileOptions {
  bool fuse = true;  // false: one instruction per op (to measure what fusion buys, and to test it)
  // Compiled mode: the planned program is lowered once more and generated as code (C built by the
  // system compiler natively, a WebAssembly module in the browser; kernel_ir.hpp). Throws
  // ConfigError when no C compiler is found.
  bool generate = false;
};

class Program {
 public:
  Program(Program&&) noexcept;  // moving keeps every buffer where the instructions point
  Program& operator=(Program&&) noexcept;
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
  ~Program();

  // Runs the compiled step `steps` times. Allocates nothing.
  void run(int steps = 1);
  float output(int i) const { return output_data(i)[0]; }
  const float* output_data(int i) const { return outputs_.at(static_cast<std::size_t>(i)); }
  // Points an input leaf at other data of the same shape (e.g. the next batch); no copy.
  void bind_input(Value input, const float* data);
  // The same with a new shape (a relaxed batch dimension): every shape in the program is derived
  // again from the ops' shape rules before the next run. Throws CapacityError if a buffer would
  // outgrow the bytes the memory plan gave it (the shapes seen when tracing are the capacity).
  void bind_input(Value input, const float* data, Shape shape);
  // What compiling found and built: node counts per pass, instructions, arena bytes, FLOPs.
  const CompileStats& stats() const;
  // Compiled mode: the generated code (C natively, WebAssembly text in wasm); else empty.
  const std::string& generated_code() const;

 private:
  friend Program compile(const Tracer&, const std::vector<Value>&, const std::vector<Assign>&,
                         const CompileOptions&);
  Program(std::unique_ptr<detail::Code> code, std::unique_ptr<detail::Generated> generated);
  void regenerate();
  std::unique_ptr<detail::Code> code_;
  std::unique_ptr<detail::Generated> generated_;  // compiled mode, else null
  std::vector<const float*> outputs_;             // where each output is (in the code's buffers)
};

Program compile(const Tracer& tracer, const std::vector<Value>& outputs,
                const std::vector<Assign>& updates, const CompileOptions& options = {});

}  // namespace looplab
