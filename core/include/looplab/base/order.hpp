// looplab/base/order.hpp — a stable order by integer keys, for the few places that sort things.
//
//   order_by({30, 10, 30, 20})   -> {1, 3, 0, 2}
#pragma once

#include <cstddef>
#include <vector>

namespace looplab {

// The indices 0..n−1 of `keys` in ascending key order, equal keys in index order: what
// std::stable_sort gives, from one std::sort shared by every caller (each stable_sort over its own
// comparator was 3–5 KB of the WebAssembly module, docs/size.md).
std::vector<std::size_t> order_by(const std::vector<long long>& keys);

}  // namespace looplab
