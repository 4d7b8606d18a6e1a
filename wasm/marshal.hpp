// wasm/marshal.hpp — how a binding returns: its value converted to JS, or a JS Error object.
// Shared by bindings.cpp (the module) and test_hooks.cpp (linked into looplab-test.mjs only).
#pragma once

#include <emscripten/heap.h>
#include <emscripten/val.h>

#include <exception>
#include <new>
#include <string>

#include "looplab/base/error.hpp"

namespace looplab_wasm {

inline emscripten::val make_error(const char* name, const std::string& message) {
  emscripten::val error = emscripten::val::global("Error").new_(message);
  error.set("name", std::string(name));
  return error;
}

// The JS Error for the exception being handled: call it only inside a catch block. One copy of the
// handlers for every binding (in the template they were about 650 B of wasm in each binding).
[[gnu::noinline]] inline emscripten::val current_error() {
  try {
    throw;
  } catch (const looplab::ConfigError& e) {
    // The message also as {key, args} (JSON text), so the page can say it in the reader's language.
    emscripten::val error = make_error("ConfigError", e.what());
    error.set("i18n", e.message().dump());
    return error;
  } catch (const std::bad_alloc&) {  // malloc returned null at -sMAXIMUM_MEMORY (ABORTING_MALLOC=0)
    return make_error("OutOfMemory",
                      "out of memory: the run needed more than the " +
                          std::to_string(emscripten_get_heap_max() >> 20) +
                          " MB this WebAssembly module may use; try smaller parameters");
  } catch (const std::exception& e) {
    return make_error("Error", e.what());
  } catch (...) {
    return make_error("Error", "unknown C++ exception");
  }
}

// Calls f() and returns its value converted to JS, or a JS Error carrying the exception's what().
template <class F>
emscripten::val result_or_error(F&& f) {
  try {
    return emscripten::val(f());
  } catch (...) {
    return current_error();
  }
}

}  // namespace looplab_wasm
