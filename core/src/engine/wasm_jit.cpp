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

#include "looplab/base/clock.hpp"
#include "looplab/engine/detail/generated.hpp"
#include "looplab/engine/emit_wasm.hpp"

extern "C" {
// The log a generated module calls through the table (WebAssembly has no log instruction): the
// same function the Log kernel calls.
float looplab_generated_log(float x) { return std::log(x); }
}

// Returns the table index of the new module's step function, or -1 (the reason on the console);
// ms[0] = compiling the module, ms[1] = instantiating it and filling the table slot.
EM_JS(int, looplab_instantiate_step, (const unsigned char* bytes, int size, double* ms), {
  try {
    var t0 = performance.now();
    var module = new WebAssembly.Module(HEAPU8.slice(bytes, bytes + size));
    var t1 = performance.now();
    var instance =
        new WebAssembly.Instance(module, {env : {memory : wasmMemory, table : wasmTable}});
    var index = wasmTable.length;
    wasmTable.grow(1);
    wasmTable.set(index, instance.exports.step);
    HEAPF64[ms >> 3] = t1 - t0;
    HEAPF64[(ms >> 3) + 1] = performance.now() - t1;
    return index;
  } catch (e) {
    err('compiled mode: ' + e);
    return -1;
  }
});

namespace looplab::detail {

namespace {
WasmImports imports() {
  WasmImports i;
  i.log_function = static_cast<int>(reinterpret_cast<std::intptr_t>(&looplab_generated_log));
  return i;
}
}  // namespace

StepFn build_step(const kir::Program& ir, std::string& code_text, BuildReport* report) {
  static std::map<std::string, StepFn> built;  // module bytes -> function: a slot per program
  BuildReport r;
  const Stopwatch watch;
  const WasmModule m = emit_wasm(ir, imports(), false);
  const std::string key(m.bytes.begin(), m.bytes.end());
  code_text.clear();
  r.emit_ms = watch.elapsed_ms();
  r.cached = built.count(key) > 0;
  if (report) *report = r;
  if (auto it = built.find(key); it != built.end()) return it->second;
  double ms[2] = {0.0, 0.0};
  const int index = looplab_instantiate_step(m.bytes.data(), static_cast<int>(m.bytes.size()), ms);
  if (index < 0)
    throw std::runtime_error("compiled mode: the generated WebAssembly module did not instantiate");
  r.build_ms = ms[0];
  r.load_ms = ms[1];
  if (report) *report = r;
  auto fn = reinterpret_cast<StepFn>(static_cast<std::intptr_t>(index));
  built.emplace(key, fn);
  return fn;
}

std::string step_text(const kir::Program& ir) { return emit_wasm(ir, imports(), true).text; }

}  // namespace looplab::detail

#endif  // __EMSCRIPTEN__
