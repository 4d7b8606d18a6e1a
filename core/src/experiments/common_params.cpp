// common_params.cpp — the shared parameter declarations (common_params.hpp).
#include "looplab/experiments/common_params.hpp"

#include "looplab/base/error.hpp"
#include "looplab/base/i18n.hpp"
#include "looplab/experiments/paired.hpp"

namespace looplab::common {

ParamSpec samples(long long def, long long min) { return integer("n", def, min, 1'000'000); }

ParamSpec batch() { return integer("batch", 100, 1, 10000); }

ParamSpec hidden() { return integer("hidden", 20, 1, 512); }

ParamSpec adam_lr() { return number("lr", 1e-3, 0.0, 1.0).exclusive_min().log_scale(); }

ParamSpec seed() { return integer("seed", 1, 0, 4294967295LL); }

ParamSpec max_seconds(double def) { return number("max_seconds", def, 0.0, 600.0); }
ParamSpec band() { return number("band", kPracticalBand, 0.005, 0.5); }

ParamSpec chunk_ms(double def) { return number("chunk_ms", def, 0.1, 1000.0).log_scale(); }

ParamSpec repeats(long long def) { return integer("repeats", def, 1, 101); }

void check_batch_at_most_n(long long batch, long long n, const json& n_name) {
  if (batch > n)
    refuse("err.at_most", {{"name", "batch"}, {"other", n_name}, {"limit", n}, {"got", batch}});
}
void check_batch_at_most_n(long long batch, long long n) { check_batch_at_most_n(batch, n, "n"); }

}  // namespace looplab::common
