// looplab/base/clock.hpp — wall-clock time for measurements.
//
//   Stopwatch w;  work();  double ms = w.elapsed_ms();
//
// NOTE: steady_clock natively; in a browser it is performance.now(), coarsened to 5-100 µs, so
// callers time chunks of many steps, never one step alone.
#pragma once

#include <chrono>

namespace looplab {

class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  double elapsed_ms() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_)
        .count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

}  // namespace looplab
