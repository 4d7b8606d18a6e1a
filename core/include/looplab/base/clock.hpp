// looplab/base/clock.hpp — wall-clock time for measurements.
//
//   Stopwatch w;  work();  double ms = w.elapsed_ms();
//
// NOTE: steady_clock natively; in a browser it is performance.now(), coarsened to 5-100 µs, so
// callers time chunks of many steps, never one step alone.
#pragma once

#include <chrono>

namespace looplab {

// std::chrono::steady_clock, but in WebAssembly read from emscripten_get_now(), the
// performance.now() that steady_clock reads there too: libc++'s steady_clock::now() throws
// std::system_error should the C library's clock fail, and that alone brought std::system_error
// and the C library's table of error texts into the module (docs/size.md).
struct Clock {
  using duration = std::chrono::nanoseconds;
  using rep = duration::rep;
  using period = duration::period;
  using time_point = std::chrono::time_point<Clock>;
  static constexpr bool is_steady = true;
  static time_point now() noexcept;
};

class Stopwatch {
 public:
  Stopwatch() : start_(Clock::now()) {}
  double elapsed_ms() const {
    return std::chrono::duration<double, std::milli>(Clock::now() - start_).count();
  }

 private:
  Clock::time_point start_;
};

}  // namespace looplab
