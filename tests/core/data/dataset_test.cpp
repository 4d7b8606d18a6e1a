// dataset_test.cpp — the input pipeline: order and counts of each source, batching and its
// remainder, repeat boundaries, cache replay without upstream pulls, shuffle determinism and
// permutation, prefetch equivalence and shutdown, map, and the invalid-argument messages.
#include "looplab/data/dataset.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace looplab {
namespace {

// Row i of x is {i, 1000 + i}; row i of y is {-i}: every row says where it came from.
struct TaggedRows {
  Tensor x, y;
  explicit TaggedRows(int n) : x(Shape{n, 2}), y(Shape{n, 1}) {
    for (int i = 0; i < n; ++i) {
      x[2 * i] = static_cast<float>(i);
      x[2 * i + 1] = static_cast<float>(1000 + i);
      y[i] = static_cast<float>(-i);
    }
  }
};

// Everything one pass yields: the size of each element and the row ids (x[:, 0]) in order.
struct Pass {
  std::vector<int> sizes;
  std::vector<int> ids;
  std::vector<float> x, y;
  bool consistent = true;  // every row's x[1] and y match its id
};

Pass drain(Dataset& ds) {
  Pass p;
  Batch b;
  while (ds.next(b)) {
    p.sizes.push_back(b.rows);
    for (int r = 0; r < b.rows; ++r) {
      const float id = b.x[r * b.x_cols];
      p.ids.push_back(static_cast<int>(id));
      p.consistent = p.consistent && b.x[r * b.x_cols + 1] == 1000 + id && b.y[r * b.y_cols] == -id;
      p.x.insert(p.x.end(), b.x + r * b.x_cols, b.x + (r + 1) * b.x_cols);
      p.y.insert(p.y.end(), b.y + r * b.y_cols, b.y + (r + 1) * b.y_cols);
    }
  }
  return p;
}

std::vector<int> iota(int n) {
  std::vector<int> v(n);
  for (int i = 0; i < n; ++i) v[i] = i;
  return v;
}

// Wraps a stage and counts how often it is pulled and reset.
struct Counts {
  int next_calls = 0, elements = 0, resets = 0;
};
class Counting final : public Dataset {
 public:
  Counting(DatasetPtr in, Counts* counts) : in_(std::move(in)), counts_(counts) {}
  bool next(Batch& out) override {
    ++counts_->next_calls;
    const bool got = in_->next(out);
    counts_->elements += got;
    return got;
  }
  void reset() override {
    ++counts_->resets;
    in_->reset();
  }

 private:
  DatasetPtr in_;
  Counts* counts_;
};
DatasetPtr counting(DatasetPtr in, Counts* counts) {
  return std::make_unique<Counting>(std::move(in), counts);
}

// Sleeps 0.2 ms per pull (a producer slower than its consumer); throws on pull number `fail_at`.
class Slow final : public Dataset {
 public:
  Slow(DatasetPtr in, int fail_at) : in_(std::move(in)), fail_at_(fail_at) {}
  bool next(Batch& out) override {
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    if (pulled_++ == fail_at_) throw std::runtime_error("upstream failed");
    return in_->next(out);
  }
  void reset() override {
    pulled_ = 0;
    in_->reset();
  }

 private:
  DatasetPtr in_;
  int fail_at_;
  int pulled_ = 0;
};

std::string dataset_message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no std::invalid_argument thrown)";
}

// ---- sources ------------------------------------------------------------------------------------

TEST(Dataset, FromTensorSlicesYieldsEachRowOnceInOrderAsViews) {
  const TaggedRows d(7);
  auto ds = from_tensor_slices(d.x, d.y);
  Batch b;
  ASSERT_TRUE(ds->next(b));
  EXPECT_EQ(b.x, d.x.data());  // zero copy
  EXPECT_EQ(b.x_cols, 2);
  EXPECT_EQ(b.y_cols, 1);
  ds->reset();
  const Pass p = drain(*ds);
  EXPECT_EQ(p.sizes, std::vector<int>(7, 1));
  EXPECT_EQ(p.ids, iota(7));
  EXPECT_TRUE(p.consistent);
  EXPECT_FALSE(ds->next(b));  // stays at the end
  ds->reset();
  EXPECT_EQ(drain(*ds).ids, iota(7));
}

TEST(Dataset, FromBatchesYieldsConsecutiveRangesAndAShortLastOne) {
  const TaggedRows d(10);
  auto ds = from_batches(d.x, d.y, 4);
  Batch b;
  ASSERT_TRUE(ds->next(b));
  ASSERT_TRUE(ds->next(b));
  EXPECT_EQ(b.x, d.x.data() + 8);  // rows 4..7, zero copy
  EXPECT_EQ(b.y, d.y.data() + 4);
  ds->reset();
  const Pass p = drain(*ds);
  EXPECT_EQ(p.sizes, (std::vector<int>{4, 4, 2}));
  EXPECT_EQ(p.ids, iota(10));
  EXPECT_TRUE(p.consistent);
  EXPECT_EQ(drain(*from_batches(d.x, d.y, 5)).sizes, (std::vector<int>{5, 5}));
  EXPECT_EQ(drain(*from_batches(d.x, d.y, 50)).sizes, (std::vector<int>{10}));
}

TEST(Dataset, EmptyTensorsGiveAnEmptyStream) {
  const TaggedRows d(0);
  EXPECT_TRUE(drain(*from_tensor_slices(d.x, d.y)).sizes.empty());
  EXPECT_TRUE(drain(*batch(from_tensor_slices(d.x, d.y), 3, false)).sizes.empty());
}

// ---- batch --------------------------------------------------------------------------------------

TEST(Dataset, BatchKeepsAShortLastBatchUnlessDropRemainder) {
  const TaggedRows d(10);
  const Pass kept = drain(*batch(from_tensor_slices(d.x, d.y), 4, false));
  EXPECT_EQ(kept.sizes, (std::vector<int>{4, 4, 2}));
  EXPECT_EQ(kept.ids, iota(10));
  EXPECT_TRUE(kept.consistent);
  const Pass dropped = drain(*batch(from_tensor_slices(d.x, d.y), 4, true));
  EXPECT_EQ(dropped.sizes, (std::vector<int>{4, 4}));
  EXPECT_EQ(dropped.ids, iota(8));
  EXPECT_EQ(drain(*batch(from_tensor_slices(d.x, d.y), 5, true)).sizes, (std::vector<int>{5, 5}));
}

TEST(Dataset, BatchOverSlicesEqualsFromBatchesElementForElement) {
  const TaggedRows d(100);
  auto sliced = batch(from_tensor_slices(d.x, d.y), 32, false);
  auto stacked = from_batches(d.x, d.y, 32);
  Batch a, b;
  int count = 0;
  while (sliced->next(a)) {
    ASSERT_TRUE(stacked->next(b));
    ASSERT_EQ(a.rows, b.rows);
    ASSERT_EQ(a.x_cols, b.x_cols);
    ASSERT_EQ(a.y_cols, b.y_cols);
    for (int i = 0; i < a.rows * a.x_cols; ++i) ASSERT_EQ(a.x[i], b.x[i]);
    for (int i = 0; i < a.rows * a.y_cols; ++i) ASSERT_EQ(a.y[i], b.y[i]);
    ++count;
  }
  EXPECT_FALSE(stacked->next(b));
  EXPECT_EQ(count, 4);  // 32, 32, 32, 4
}

TEST(Dataset, BatchSplitsAndRejoinsSmallerBatches) {
  const TaggedRows d(23);
  const Pass rebatched = drain(*batch(from_batches(d.x, d.y, 3), 5, false));
  const Pass direct = drain(*from_batches(d.x, d.y, 5));
  EXPECT_EQ(rebatched.sizes, direct.sizes);
  EXPECT_EQ(rebatched.x, direct.x);
  EXPECT_EQ(rebatched.y, direct.y);
}

TEST(Dataset, BatchReusesOneBufferAcrossCallsAndEpochs) {
  const TaggedRows d(20);
  auto ds = batch(from_tensor_slices(d.x, d.y), 6, false);
  Batch b;
  ASSERT_TRUE(ds->next(b));
  const float* first = b.x;
  EXPECT_NE(first, d.x.data());  // a stage-owned copy, not a view
  while (ds->next(b)) EXPECT_EQ(b.x, first);
  ds->reset();
  ASSERT_TRUE(ds->next(b));
  EXPECT_EQ(b.x, first);
}

// ---- repeat -------------------------------------------------------------------------------------

TEST(Dataset, RepeatMakesCountPassesAndResetsBetweenThem) {
  const TaggedRows d(5);
  Counts c;
  auto ds = repeat(counting(from_tensor_slices(d.x, d.y), &c), 3);
  const Pass p = drain(*ds);
  std::vector<int> expected;
  for (int pass = 0; pass < 3; ++pass)
    for (int i : iota(5)) expected.push_back(i);
  EXPECT_EQ(p.ids, expected);
  EXPECT_EQ(c.resets, 2);  // between passes only
  EXPECT_EQ(c.elements, 15);
  EXPECT_EQ(c.next_calls, 18);  // each pass ends with one false
  Batch b;
  EXPECT_FALSE(ds->next(b));
  ds->reset();
  EXPECT_EQ(drain(*ds).ids, expected);
}

TEST(Dataset, RepeatZeroIsEmptyAndForeverKeepsCycling) {
  const TaggedRows d(4);
  EXPECT_TRUE(drain(*repeat(from_tensor_slices(d.x, d.y), 0)).ids.empty());
  auto forever = repeat(from_tensor_slices(d.x, d.y), -1);
  Batch b;
  for (int i = 0; i < 4 * 25; ++i) {
    ASSERT_TRUE(forever->next(b));
    ASSERT_EQ(b.x[0], static_cast<float>(i % 4));
  }
  const TaggedRows empty(0);
  EXPECT_FALSE(repeat(from_tensor_slices(empty.x, empty.y), -1)->next(b));  // ends, no spin
}

TEST(Dataset, RepeatOfBatchRestartsBatchingEachPass) {
  const TaggedRows d(10);
  const Pass p = drain(*repeat(batch(from_tensor_slices(d.x, d.y), 4, false), 2));
  EXPECT_EQ(p.sizes, (std::vector<int>{4, 4, 2, 4, 4, 2}));
}

// ---- cache --------------------------------------------------------------------------------------

TEST(Dataset, CacheReplaysTheFirstPassWithoutPullingUpstream) {
  const TaggedRows d(10);
  Counts c;
  auto ds = cache(counting(batch(from_tensor_slices(d.x, d.y), 3, false), &c));
  const Pass first = drain(*ds);
  EXPECT_EQ(first.sizes, (std::vector<int>{3, 3, 3, 1}));
  EXPECT_EQ(first.ids, iota(10));
  const Counts after_first = c;
  EXPECT_EQ(after_first.elements, 4);
  for (int epoch = 0; epoch < 3; ++epoch) {
    ds->reset();
    const Pass again = drain(*ds);
    EXPECT_EQ(again.sizes, first.sizes);
    EXPECT_EQ(again.x, first.x);
    EXPECT_EQ(again.y, first.y);
  }
  EXPECT_EQ(c.next_calls, after_first.next_calls);
  EXPECT_EQ(c.resets, 0);
}

TEST(Dataset, CacheDiscardsAPartialFirstPass) {
  const TaggedRows d(6);
  Counts c;
  auto ds = cache(counting(from_tensor_slices(d.x, d.y), &c));
  Batch b;
  ASSERT_TRUE(ds->next(b));
  ASSERT_TRUE(ds->next(b));
  ds->reset();  // before the end: upstream is rewound and the pass recorded from the start
  EXPECT_EQ(c.resets, 1);
  EXPECT_EQ(drain(*ds).ids, iota(6));
  const int pulls = c.next_calls;
  ds->reset();
  EXPECT_EQ(drain(*ds).ids, iota(6));
  EXPECT_EQ(c.next_calls, pulls);
}

TEST(Dataset, CacheUnderRepeatPullsUpstreamOnce) {
  const TaggedRows d(8);
  Counts c;
  const Pass p = drain(*repeat(cache(counting(from_tensor_slices(d.x, d.y), &c)), 4));
  EXPECT_EQ(p.ids.size(), 32u);
  EXPECT_EQ(c.elements, 8);
}

// ---- shuffle ------------------------------------------------------------------------------------

TEST(Dataset, ShuffleIsDeterministicPerSeedAndAPermutationEachEpoch) {
  const TaggedRows d(50);
  auto a = shuffle(from_tensor_slices(d.x, d.y), 16, 7);
  auto same = shuffle(from_tensor_slices(d.x, d.y), 16, 7);
  auto other = shuffle(from_tensor_slices(d.x, d.y), 16, 8);
  const Pass pa = drain(*a);
  EXPECT_EQ(pa.ids, drain(*same).ids);
  EXPECT_NE(pa.ids, drain(*other).ids);
  EXPECT_NE(pa.ids, iota(50));
  EXPECT_TRUE(pa.consistent);  // x and y stay paired
  std::vector<int> sorted = pa.ids;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, iota(50));
  for (int epoch = 0; epoch < 3; ++epoch) {  // reset re-seeds: the same permutation every epoch
    a->reset();
    EXPECT_EQ(drain(*a).ids, pa.ids);
  }
}

TEST(Dataset, ShuffleBufferBoundsHowFarAnElementMoves) {
  const TaggedRows d(40);
  EXPECT_EQ(drain(*shuffle(from_tensor_slices(d.x, d.y), 1, 3)).ids, iota(40));
  // With a buffer of k, the element emitted at position p was read at most p + k - 1 ago.
  const int k = 5;
  const Pass p = drain(*shuffle(from_tensor_slices(d.x, d.y), k, 3));
  for (std::size_t pos = 0; pos < p.ids.size(); ++pos)
    EXPECT_LE(p.ids[pos], static_cast<int>(pos) + k - 1);
  // A buffer at least as long as the stream can put any element first.
  std::vector<bool> seen_first(10, false);
  const TaggedRows small(10);
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    auto ds = shuffle(from_tensor_slices(small.x, small.y), 10, seed);
    Batch b;
    ASSERT_TRUE(ds->next(b));  // b points into ds: read it while ds is alive
    seen_first[static_cast<int>(b.x[0])] = true;
  }
  EXPECT_EQ(std::count(seen_first.begin(), seen_first.end(), true), 10);
}

TEST(Dataset, ShuffleOfBatchesMovesWholeBatches) {
  const TaggedRows d(30);
  const Pass p = drain(*shuffle(from_batches(d.x, d.y, 4), 8, 11));
  EXPECT_EQ(std::count(p.sizes.begin(), p.sizes.end(), 4), 7);
  EXPECT_EQ(std::count(p.sizes.begin(), p.sizes.end(), 2), 1);
  std::size_t row = 0;
  for (int size : p.sizes) {  // rows inside a batch stay consecutive
    for (int r = 1; r < size; ++r) EXPECT_EQ(p.ids[row + r], p.ids[row] + r);
    row += size;
  }
}

// ---- map ----------------------------------------------------------------------------------------

TEST(Dataset, MapStandardizesEachBatchInAStageOwnedBuffer) {
  const TaggedRows d(12);
  auto ds = map(from_batches(d.x, d.y, 4), [](MutableBatch& b) {
    for (int c = 0; c < b.x_cols; ++c) {
      double mean = 0, var = 0;
      for (int r = 0; r < b.rows; ++r) mean += b.x[r * b.x_cols + c];
      mean /= b.rows;
      for (int r = 0; r < b.rows; ++r) var += std::pow(b.x[r * b.x_cols + c] - mean, 2);
      const double sd = std::sqrt(var / b.rows);
      for (int r = 0; r < b.rows; ++r)
        b.x[r * b.x_cols + c] = static_cast<float>((b.x[r * b.x_cols + c] - mean) / sd);
    }
  });
  Batch b;
  int count = 0;
  while (ds->next(b)) {
    ++count;
    for (int c = 0; c < b.x_cols; ++c) {
      double sum = 0, sq = 0;
      for (int r = 0; r < b.rows; ++r) {
        sum += b.x[r * b.x_cols + c];
        sq += b.x[r * b.x_cols + c] * b.x[r * b.x_cols + c];
      }
      EXPECT_NEAR(sum / b.rows, 0.0, 1e-6);
      EXPECT_NEAR(sq / b.rows, 1.0, 1e-5);
    }
    EXPECT_EQ(b.y[0], -4.0f * count + 4.0f);  // y passes through unchanged
  }
  EXPECT_EQ(count, 3);
  EXPECT_EQ(d.x[2], 1.0f);  // the source tensor is untouched
}

// ---- prefetch -----------------------------------------------------------------------------------

TEST(Dataset, PrefetchYieldsExactlyTheSameSequence) {
  const TaggedRows d(101);
  auto make = [&] { return shuffle(batch(from_tensor_slices(d.x, d.y), 7, false), 5, 42); };
  auto plain = make();
  for (int buffer : {1, 2, 16}) {
    auto fetched = prefetch(make(), buffer);
    plain->reset();
    for (int epoch = 0; epoch < 2; ++epoch) {
      const Pass want = drain(*plain);
      const Pass got = drain(*fetched);
      EXPECT_EQ(got.sizes, want.sizes) << "buffer " << buffer;
      EXPECT_EQ(got.x, want.x) << "buffer " << buffer;
      EXPECT_EQ(got.y, want.y) << "buffer " << buffer;
      plain->reset();
      fetched->reset();
    }
  }
}

TEST(Dataset, PrefetchResetMidStreamRestartsFromTheBeginning) {
  const TaggedRows d(30);
  auto ds = prefetch(batch(from_tensor_slices(d.x, d.y), 4, false), 2);
  Batch b;
  ASSERT_TRUE(ds->next(b));
  ASSERT_TRUE(ds->next(b));
  ds->reset();
  EXPECT_EQ(drain(*ds).ids, iota(30));
  EXPECT_EQ(drain(*ds).ids, std::vector<int>{});
}

TEST(Dataset, DestroyingAPrefetchingPipelineMidStreamReturns) {
  const TaggedRows d(16);
  {  // an endless upstream: the producer is blocked on a full queue when we destroy it
    auto ds = prefetch(repeat(from_tensor_slices(d.x, d.y), -1), 3);
    Batch b;
    for (int i = 0; i < 5; ++i) ASSERT_TRUE(ds->next(b));
  }
  {  // a slow upstream: the producer is inside upstream next() when we destroy it
    auto ds = prefetch(repeat(std::make_unique<Slow>(from_tensor_slices(d.x, d.y), -1), -1), 2);
    Batch b;
    ASSERT_TRUE(ds->next(b));
  }
  {  // never started, and reset of a never-started stage
    auto ds = prefetch(from_tensor_slices(d.x, d.y), 1);
    ds->reset();
  }
  SUCCEED();  // reaching here means no hang; the sanitizer builds check for leaks and races
}

TEST(Dataset, PrefetchRethrowsAnUpstreamError) {
  const TaggedRows d(10);
  auto ds = prefetch(std::make_unique<Slow>(from_tensor_slices(d.x, d.y), 3), 2);
  Batch b;
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(ds->next(b));
  EXPECT_THROW(ds->next(b), std::runtime_error);
  ds->reset();  // recovers: the fresh pass fails at the same place again
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(ds->next(b));
  EXPECT_THROW(ds->next(b), std::runtime_error);
}

// ---- arguments ----------------------------------------------------------------------------------

TEST(Dataset, InvalidArgumentsNameTheArgumentAndTheRange) {
  const TaggedRows d(4);
  const TaggedRows five(5);
  auto src = [&] { return from_tensor_slices(d.x, d.y); };
  EXPECT_EQ(dataset_message_of([&] { batch(src(), 0, false); }), "batch: n must be >= 1 (got 0)");
  EXPECT_EQ(dataset_message_of([&] { from_batches(d.x, d.y, -2); }),
            "from_batches: n must be >= 1 (got -2)");
  EXPECT_EQ(dataset_message_of([&] { prefetch(src(), 0); }),
            "prefetch: buffer must be >= 1 (got 0)");
  EXPECT_EQ(dataset_message_of([&] { shuffle(src(), 0, 1); }),
            "shuffle: buffer must be >= 1 (got 0)");
  EXPECT_EQ(dataset_message_of([&] { from_tensor_slices(d.x, five.y); }),
            "from_tensor_slices: x and y must have the same number of rows (x has 4, y has 5)");
  EXPECT_EQ(dataset_message_of([&] { from_batches(five.x, d.y, 2); }),
            "from_batches: x and y must have the same number of rows (x has 5, y has 4)");
  EXPECT_EQ(dataset_message_of([&] { cache(nullptr); }), "cache: in must not be null");
  EXPECT_EQ(dataset_message_of([&] { map(src(), MapFn()); }), "map: fn must not be empty");
}

TEST(Dataset, BatchRejectsElementsOfDifferentWidths) {
  const TaggedRows d(4);
  const Tensor wide_x(Shape{4, 3}), wide_y(Shape{4, 1});
  // A stream whose elements change width: 4 rows with 2 x columns, then 4 rows with 3.
  class Concat final : public Dataset {
   public:
    Concat(DatasetPtr a, DatasetPtr b) : a_(std::move(a)), b_(std::move(b)) {}
    bool next(Batch& out) override { return a_->next(out) || b_->next(out); }
    void reset() override {
      a_->reset();
      b_->reset();
    }

   private:
    DatasetPtr a_, b_;
  };
  auto ds = batch(
      std::make_unique<Concat>(from_tensor_slices(d.x, d.y), from_tensor_slices(wide_x, wide_y)), 3,
      false);
  Batch b;
  ASSERT_TRUE(ds->next(b));
  EXPECT_THROW(ds->next(b), std::runtime_error);
}

}  // namespace
}  // namespace looplab
