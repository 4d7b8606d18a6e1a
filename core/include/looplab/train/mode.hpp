// looplab/train/mode.hpp — how a training step is executed.
//
//   eager      op by op, a fresh buffer per op and a tape (engine/eager.hpp)
//   traced     recorded once (engine/tracer.hpp), compiled to a program (engine/program.hpp)
//              that replays without allocating
//   reference  a hand-written loop with hand-derived gradients (mlp_reference.hpp,
//              linear_trainer.hpp)
#pragma once

#include <string>

namespace looplab {

enum class Mode { Eager, Traced, Reference };
Mode parse_mode(const std::string& name);  // "eager" | "traced" | "reference"; else ConfigError
std::string mode_name(Mode mode);

}  // namespace looplab
