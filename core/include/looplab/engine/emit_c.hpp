// looplab/engine/emit_c.hpp — the C emitter of compiled mode: the lowering IR (kernel_ir.hpp) as
// one C function, which the native build compiles with the system compiler at run time
// (native_jit.cpp).
//
// The function is
//   void looplab_step(float* const* s, const looplab_call* k, int steps);
// s[i] is slot i's data, k the call table (a kernel and its arguments per Call). A loop's body is
// written once per element in a block of kir::kLanes, which the C compiler vectorizes, with the
// partial sums of every reduction in a local array, and once more for the tail.
//
//   std::string source = emit_c(ir);   // compiles with -Wall -Werror (emit_test.cpp)
#pragma once

#include <string>

#include "looplab/engine/kernel_ir.hpp"

namespace looplab {

std::string emit_c(const kir::Program& ir);

}  // namespace looplab
