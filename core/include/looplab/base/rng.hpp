// looplab/base/rng.hpp — one seeded random engine with our own uniform and normal sampling.
//
// NOTE: the standard library's distributions differ between libstdc++ (native) and libc++
// (WebAssembly), so looplab samples itself: xoshiro256** seeded through splitmix64, uniform from
// the top 53 bits, normal by Box-Muller. The same seed gives the same numbers in both builds.
//
//   Rng rng(42);
//   double u = rng.uniform();        // [0, 1)
//   double z = rng.normal();         // N(0, 1)
#pragma once

#include <cstdint>

namespace looplab {

class Rng {
 public:
  explicit Rng(std::uint64_t seed);
  std::uint64_t next_u64();
  double uniform();  // [0, 1)
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  double normal();  // mean 0, standard deviation 1

 private:
  std::uint64_t s_[4];
  bool has_spare_ = false;
  double spare_ = 0.0;
};

}  // namespace looplab
