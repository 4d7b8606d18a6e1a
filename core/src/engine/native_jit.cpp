// native_jit.cpp — compiled mode natively: the generated C is built by the system C compiler into
// a shared library and loaded with dlopen (as tinygrad's clang backend does), cached by a hash
// of the source and the command: in memory for the process, on disk across runs.
//
// NOTE: never a silent fallback. Without a compiler, compiled mode is an error that says what is
// missing; a student who picked "compiled" must not be shown the traced program's numbers.
#ifndef __EMSCRIPTEN__

#include <dlfcn.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "looplab/base/clock.hpp"
#include "looplab/base/error.hpp"
#include "looplab/base/i18n.hpp"
#include "looplab/engine/detail/generated.hpp"
#include "looplab/engine/emit_c.hpp"

namespace looplab::detail {
namespace {

namespace fs = std::filesystem;

// NOTE: -ffp-contract=off: no fused multiply-adds, so the generated code rounds as the kernels,
// the reference loops and WebAssembly (which has no FMA) do. -fno-math-errno lets sqrtf
// vectorize; it changes no result.
// -march=native follows the build's LOOPLAB_NATIVE option.
#ifdef LOOPLAB_NATIVE_JIT
#define LOOPLAB_JIT_ARCH "-march=native "
#else
#define LOOPLAB_JIT_ARCH ""
#endif
constexpr const char* kFlags = "-O3 " LOOPLAB_JIT_ARCH
                               "-ffp-contract=off -fno-math-errno -fno-trapping-math -fPIC -shared "
                               "-std=gnu11 -Wall";

std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : text) h = (h ^ ch) * 1099511628211ull;
  return h;
}

bool on_path(const std::string& name) {
  if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');)
    if (!dir.empty() && access((dir + "/" + name).c_str(), X_OK) == 0) return true;
  return false;
}

// $LOOPLAB_CC, else $CC, else cc; the first that names an executable.
std::string find_compiler() {
  for (const char* var : {"LOOPLAB_CC", "CC"})
    if (const char* v = std::getenv(var); v && *v && on_path(v)) return v;
  if (on_path("cc")) return "cc";
  refuse("err.no_c_compiler");
}

fs::path cache_dir() {
  if (const char* d = std::getenv("LOOPLAB_JIT_CACHE"); d && *d) return d;
  return fs::temp_directory_path() / ("looplab-jit-" + std::to_string(getuid()));
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Builds <hash>.so from the source unless it is there (then *cached); writes to a private name
// first, so two processes building the same program never load a half-written library.
fs::path build_library(const std::string& source, const std::string& cc, bool& cached) {
  const std::string command_flags = cc + " " + kFlags;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(fnv1a(command_flags + "\n" + source)));
  const fs::path dir = cache_dir();
  const fs::path so = dir / (std::string(hex) + ".so");
  cached = fs::exists(so);
  if (cached) return so;
  fs::create_directories(dir);
  const std::string tag = std::string(hex) + "." + std::to_string(getpid());
  const fs::path c = dir / (tag + ".c"), tmp = dir / (tag + ".so"), err = dir / (tag + ".err");
  std::ofstream(c) << source;
  const std::string command = command_flags + " -o '" + tmp.string() + "' '" + c.string() +
                              "' -lm 2> '" + err.string() + "'";
  const int status = std::system(command.c_str());
  const std::string errors = read_text(err);
  fs::remove(err);
  fs::remove(c);
  if (status != 0) {
    fs::remove(tmp);
    throw std::runtime_error("compiled mode: " + cc +
                             " failed on the generated step: " + errors.substr(0, 400));
  }
  fs::rename(tmp, so);
  return so;
}

std::mutex& cache_mutex() {
  static std::mutex m;
  return m;
}
std::map<std::string, StepFn>& loaded() {  // source -> its function, for this process
  static std::map<std::string, StepFn> m;
  return m;
}

}  // namespace

StepFn build_step(const kir::Program& ir, std::string& code_text, BuildReport* report) {
  BuildReport r;
  Stopwatch watch;
  code_text = emit_c(ir);
  r.emit_ms = watch.elapsed_ms();
  r.cached = true;
  if (report) *report = r;
  const std::lock_guard<std::mutex> lock(cache_mutex());
  if (auto it = loaded().find(code_text); it != loaded().end()) return it->second;
  watch = Stopwatch();
  const fs::path so = build_library(code_text, find_compiler(), r.cached);
  r.build_ms = watch.elapsed_ms();
  watch = Stopwatch();
  // NOTE: never dlclose'd: a library per distinct program, shared by every Program built from it.
  void* handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) throw std::runtime_error(std::string("compiled mode: dlopen: ") + dlerror());
  auto fn = reinterpret_cast<StepFn>(dlsym(handle, "looplab_step"));
  if (!fn) throw std::runtime_error("compiled mode: looplab_step missing from " + so.string());
  loaded().emplace(code_text, fn);
  r.load_ms = watch.elapsed_ms();
  if (report) *report = r;
  return fn;
}

std::string step_text(const kir::Program& ir) { return emit_c(ir); }

}  // namespace looplab::detail

#endif  // __EMSCRIPTEN__
