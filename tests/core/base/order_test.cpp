// order_test.cpp — order_by: ascending keys, equal keys in their given order (as stable_sort).
#include "looplab/base/order.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "looplab/base/rng.hpp"

namespace looplab {
namespace {

TEST(Order, AscendingKeysAndEqualKeysInTheirOrder) {
  EXPECT_EQ(order_by({}), std::vector<std::size_t>{});
  EXPECT_EQ(order_by({30, 10, 30, 20}), (std::vector<std::size_t>{1, 3, 0, 2}));
  // Against std::stable_sort on random keys with many ties.
  Rng rng(5);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<long long> keys(static_cast<std::size_t>(1 + trial * 7));
    for (long long& k : keys) k = static_cast<long long>(rng.uniform() * 5.0) - 2;
    std::vector<std::size_t> expected(keys.size());
    std::iota(expected.begin(), expected.end(), std::size_t{0});
    std::stable_sort(expected.begin(), expected.end(),
                     [&](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
    EXPECT_EQ(order_by(keys), expected) << "trial " << trial;
  }
}

}  // namespace
}  // namespace looplab
