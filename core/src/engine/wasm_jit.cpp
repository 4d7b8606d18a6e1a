// wasm_jit.cpp — compiled mode in WebAssembly: the step is emitted as a module (emit_wasm.hpp),
// compiled synchronously from its bytes, instantiated against this module's own memory and
// function table, and put into a new slot of that table; C++ then calls it through a function
// pointer, which in WebAssembly is a table index. NOTE: compiling bytes made at run time is what
// the pages' CSP allows with 'wasm-unsafe-eval' (no JavaScript eval); the worker, node and the
// file:// standalone page all do it the same way. Synchronous compilation has no size limit in a
// worker or in node (the main thread allows 4 KB), and the runtime runs experiments in a worker.
#ifdef __EMSCRIPTEN__

#include <emscripten.h>

#include <cmath>
#include <map>
#include <stdexcept>

#include "looplab/engine/detail/generated.hpp"
#include "looplab/engine/emit_wasm.hpp"

extern "C" {
// The log a generated module calls through the table (WebAssembly has no log instruction): the
// same function the Log kernel calls.
float looplab_generated_log(float x) { return std::log(x); }
}

// Returns the table index of the new module's step function, or -1 (the reason on the console).
EM_JS(int, looplab_instantiate_step, (const unsigned char* bytes, int size), {
  try {
    var module = new WebAssembly.Module(HEAPU8.slice(bytes, bytes + size));
    var instance =
        new WebAssembly.Instance(module, {env : {memory : wasmMemory, table : wasmTable}});
    var index = wasmTable.length;
    wasmTable.grow(1);
    wasmTable.set(index, instance.exports.step);
    return index;
  } catch (e) {
    err('compiled mode: ' + e);
    return -1;
  }
});

namespace looplab::detail {

StepFn build_step(const kir::Program& ir, std::string& code_text, bool* cached) {
  static std::map<std::string, StepFn> built;  // text -> function: a table slot per program
  WasmImports imports;
  imports.log_function = static_cast<int>(reinterpret_cast<std::intptr_t>(&looplab_generated_log));
  WasmModule m = emit_wasm(ir, imports);
  code_text = std::move(m.text);
  if (cached) *cached = built.count(code_text) > 0;
  if (auto it = built.find(code_text); it != built.end()) return it->second;
  const int index = looplab_instantiate_step(m.bytes.data(), static_cast<int>(m.bytes.size()));
  if (index < 0)
    throw std::runtime_error("compiled mode: the generated WebAssembly module did not instantiate");
  auto fn = reinterpret_cast<StepFn>(static_cast<std::intptr_t>(index));
  built.emplace(code_text, fn);
  return fn;
}

}  // namespace looplab::detail

#endif  // __EMSCRIPTEN__
