// looplab/engine/emit_wasm.hpp — the WebAssembly emitter of compiled mode: the lowering IR
// (kernel_ir.hpp) as a binary module (the step, and a function per loop), which the wasm build
// instantiates at run time against its own memory and function table (wasm_jit.cpp).
//
// The module imports env.memory and env.table and exports
//   step(s: i32, k: i32, steps: i32)        — the same signature as the C emitter's function.
// A loop runs blocks of kir::kLanes elements as four f32x4 vectors, each reduction with four f32x4
// accumulators (kLanes partial sums, in the C emitter's order), intermediates in locals; the tail
// runs the same body on f32 scalars. Calls go through the imported table (call_indirect), as
// does the log function when a loop needs one (WebAssembly has no log instruction).
// `text` is the module in the WebAssembly text format, for students to read (empty when
// with_text is false: the bytes alone are what a first call needs).
//
//   WasmModule m = emit_wasm(ir, {.log_function = table index of a float(float) log});
//   WebAssembly.validate(m.bytes)   // emit_test.cpp, in the wasm build
#pragma once

#include <string>
#include <vector>

#include "looplab/engine/kernel_ir.hpp"

namespace looplab {

struct WasmModule {
  std::vector<unsigned char> bytes;
  std::string text;
};

struct WasmImports {
  int log_function = -1;  // table index of float(float) computing ln x; needed if ir.uses_log()
};

WasmModule emit_wasm(const kir::Program& ir, const WasmImports& imports, bool with_text = true);

}  // namespace looplab
