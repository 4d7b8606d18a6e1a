// looplab/engine/detail/generated.hpp — a Program's generated step (compiled mode; not a public
// interface).
//
// lower_to_kir() reads a lowered Code (code.hpp) into the lowering IR (kernel_ir.hpp): every
// pointer the generated code needs becomes a slot, remembered by the Code field that holds it, so
// a rebound input (bind_input) only needs the slots copied again; every kernel call keeps pointing
// at the Code's own KernelArgs, whose shapes derive_shapes() refreshes in place.
// generate() then emits and builds the code: natively C, built by the system compiler into a
// shared library (native_jit.cpp); in WebAssembly a module instantiated against this module's own
// memory (wasm_jit.cpp).
#pragma once

#include <string>
#include <vector>

#include "looplab/engine/detail/code.hpp"
#include "looplab/engine/kernel_ir.hpp"

namespace looplab::detail {

// One entry of the call table: a kernel and its arguments (both live in the Code).
struct KernelCall {
  void (*fn)(const KernelArgs&) = nullptr;
  const KernelArgs* args = nullptr;
};
// The generated function: s = the slots' data, k = the call table.
using StepFn = void (*)(float* const* s, const KernelCall* k, int steps);

struct Lowered {
  kir::Program ir;
  std::vector<const float* const*> slot_fields;  // slot i's pointer is *slot_fields[i]
  std::vector<KernelCall> calls;
};
Lowered lower_to_kir(const Code& c);

// What building a step cost, in parts (the first call's share that is compiled mode's own).
struct BuildReport {
  bool cached = false;    // found built (in this process, or natively in the on-disk cache)
  double emit_ms = 0.0;   // writing the C source, or the module's bytes and text
  double build_ms = 0.0;  // the C compiler, or the engine compiling the module (0 when cached)
  double load_ms = 0.0;   // dlopen, or instantiating the module and putting it in the table
};

struct Generated {
  Lowered low;
  std::vector<float*> slots;
  std::string code;  // the C source, or the WebAssembly module's text
  StepFn fn = nullptr;
  BuildReport build;
  bool slots_dirty = true;

  void run(int steps) {
    if (slots_dirty) sync_slots();
    fn(slots.data(), low.calls.data(), steps);
  }
  void sync_slots() {
    for (std::size_t i = 0; i < slots.size(); ++i)
      slots[i] = const_cast<float*>(*low.slot_fields[i]);
    slots_dirty = false;
  }
};

// Lowers, emits and builds; throws ConfigError when this machine has no C compiler, and
// std::runtime_error when the code cannot be built or loaded (native_jit.cpp, wasm_jit.cpp).
std::unique_ptr<Generated> generate(const Code& c);

// The builders behind generate(), one per target (native_jit.cpp / wasm_jit.cpp): from the IR to
// a callable function and the text a student reads, and what each part took (`report`, if given).
// In WebAssembly code_text is left empty (the bytes alone are emitted: see emit_wasm.cpp);
// step_text() writes the text when it is asked for.
StepFn build_step(const kir::Program& ir, std::string& code_text, BuildReport* report = nullptr);
std::string step_text(const kir::Program& ir);

}  // namespace looplab::detail
