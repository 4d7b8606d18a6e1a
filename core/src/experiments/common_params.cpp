// common_params.cpp — the shared parameter declarations (common_params.hpp).
#include "looplab/experiments/common_params.hpp"

namespace looplab::common {

ParamSpec samples(long long def, long long min, std::string help) {
  return integer("n", def, min, 1'000'000, std::move(help));
}

ParamSpec batch(std::string help) { return integer("batch", 100, 1, 10000, std::move(help)); }

ParamSpec hidden() { return integer("hidden", 20, 1, 512, "hidden units"); }

ParamSpec adam_lr() {
  return number("lr", 1e-3, 0.0, 1.0, "Adam learning rate").exclusive_min().log_scale();
}

ParamSpec seed(std::string help) { return integer("seed", 1, 0, 4294967295LL, std::move(help)); }

ParamSpec chunk_ms(double def, std::string help) {
  return number("chunk_ms", def, 0.1, 1000.0, std::move(help)).log_scale();
}

ParamSpec repeats(long long def, const std::string& per) {
  return integer("repeats", def, 1, 101, "timed chunks per " + per + " (the median is kept)");
}

}  // namespace looplab::common
