// order.cpp — a stable order by integer keys (base/order.hpp).
#include "looplab/base/order.hpp"

#include <algorithm>
#include <numeric>

namespace looplab {

std::vector<std::size_t> order_by(const std::vector<long long>& keys) {
  std::vector<std::size_t> order(keys.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return keys[a] != keys[b] ? keys[a] < keys[b] : a < b;
  });
  return order;
}

}  // namespace looplab
