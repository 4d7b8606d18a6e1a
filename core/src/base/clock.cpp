// clock.cpp — looplab::Clock (base/clock.hpp).
#include "looplab/base/clock.hpp"

#ifdef __EMSCRIPTEN__
#include <emscripten/emscripten.h>
#endif

namespace looplab {

Clock::time_point Clock::now() noexcept {
#ifdef __EMSCRIPTEN__
  return time_point(duration(static_cast<rep>(emscripten_get_now() * 1e6)));  // ms -> ns
#else
  return time_point(
      std::chrono::duration_cast<duration>(std::chrono::steady_clock::now().time_since_epoch()));
#endif
}

}  // namespace looplab
