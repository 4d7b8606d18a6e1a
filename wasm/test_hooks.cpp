// wasm/test_hooks.cpp — linked into build/wasm/looplab-test.mjs only, never into the shipped
// module: a deliberate trap on advance (armed from the worker by tests/web/reliability.test.mjs,
// as a crashed module would raise one) and testAllocate, to check that reaching -sMAXIMUM_MEMORY
// comes back as an OutOfMemory Error and the module keeps working. And describe(id, lang), which
// the build writes the language files from (web/tools/language-files.mjs) and tests ask: the
// shipped module has none (7 KB, 2.4 KB brotli), as every page reads the describes from those
// files.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstddef>
#include <string>
#include <vector>

#include "looplab/api/api.hpp"
#include "marshal.hpp"

extern void (*looplab_before_advance)();  // bindings.cpp calls it, when set, at each advance

namespace {

using emscripten::val;

void trap_if_armed() {
  if (val::global("__looplabTrapOnAdvance").isTrue()) __builtin_trap();
}

// Allocates `mb` megabytes, as a run that outgrew its estimate would.
val test_allocate(double mb) {
  static std::vector<char> block;  // static, so the allocation cannot be optimized away
  return looplab_wasm::result_or_error([&] {
    block.assign(static_cast<std::size_t>(mb * 1048576.0), 1);
    const double got = static_cast<double>(block.size());
    std::vector<char>().swap(block);
    return got;
  });
}

val describe(const std::string& id, const std::string& lang) {
  return looplab_wasm::result_or_error([&] { return looplab::describe_json(id, lang); });
}

}  // namespace

EMSCRIPTEN_BINDINGS(looplab_test_hooks) {
  looplab_before_advance = &trap_if_armed;
  emscripten::function("testAllocate", &test_allocate);
  emscripten::function("describe", &describe);
}
