// looplab/train/mode.hpp — how a training step is executed.
//
//   eager      op by op, a fresh buffer per op and a tape (engine/eager.hpp)
//   traced     recorded once (engine/tracer.hpp), compiled to a program (engine/program.hpp)
//              that replays without allocating
//   compiled   the traced program lowered once more and generated as code: C built by the system
//              compiler natively, a WebAssembly module in the browser (engine/kernel_ir.hpp)
//   reference  the loop a careful engineer writes by hand, with hand-derived gradients: one pass
//              per step, float32 partial sums (mlp_reference.hpp, linear_trainer.hpp)
#pragma once

#include <string>

namespace looplab {

enum class Mode { Eager, Traced, Compiled, Reference };
// "eager" | "traced" | "compiled" | "reference"; else ConfigError
Mode parse_mode(const std::string& name);
std::string mode_name(Mode mode);
// Traced or compiled: the step is a compiled program.
inline bool is_program(Mode mode) { return mode == Mode::Traced || mode == Mode::Compiled; }

}  // namespace looplab
