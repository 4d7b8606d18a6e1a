// dataset.cpp — the pipeline stages of dataset.hpp, one small class each.
#include "looplab/data/dataset.hpp"

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "looplab/base/rng.hpp"

#ifndef __EMSCRIPTEN__
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#endif

namespace looplab {

Dataset::~Dataset() = default;

namespace {

std::size_t elems(int rows, int cols) {
  return static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
}

void require(bool ok, const std::string& message) {
  if (!ok) throw std::invalid_argument(message);
}

void require_input(const DatasetPtr& in, const char* stage) {
  require(in != nullptr, std::string(stage) + ": in must not be null");
}

void require_at_least_one(int value, const char* what) {
  require(value >= 1, std::string(what) + " must be >= 1 (got " + std::to_string(value) + ")");
}

// An element copied out of its producer; assign() reuses the vectors' capacity.
struct StoredBatch {
  std::vector<float> x, y;
  int rows = 0, x_cols = 0, y_cols = 0;

  void assign(const Batch& b) {
    x.assign(b.x, b.x + elems(b.rows, b.x_cols));
    y.assign(b.y, b.y + elems(b.rows, b.y_cols));
    rows = b.rows;
    x_cols = b.x_cols;
    y_cols = b.y_cols;
  }
  Batch view() const { return {x.data(), y.data(), rows, x_cols, y_cols}; }
};

// ---- sources ------------------------------------------------------------------------------------

class TensorRows final : public Dataset {
 public:
  TensorRows(const Tensor& x, const Tensor& y, int n) : x_(x), y_(y), n_(n) {}

  bool next(Batch& out) override {
    const int total = x_.shape().rows;
    if (row_ >= total) return false;
    const int rows = std::min(n_, total - row_);
    const int xc = x_.shape().cols, yc = y_.shape().cols;
    out = {x_.data() + elems(row_, xc), y_.data() + elems(row_, yc), rows, xc, yc};
    row_ += rows;
    return true;
  }
  void reset() override { row_ = 0; }

 private:
  const Tensor& x_;
  const Tensor& y_;
  int n_;
  int row_ = 0;
};

void require_same_rows(const Tensor& x, const Tensor& y, const char* stage) {
  require(x.shape().rows == y.shape().rows,
          std::string(stage) + ": x and y must have the same number of rows (x has " +
              std::to_string(x.shape().rows) + ", y has " + std::to_string(y.shape().rows) + ")");
}

// ---- batch --------------------------------------------------------------------------------------

class BatchStage final : public Dataset {
 public:
  BatchStage(DatasetPtr in, int n, bool drop_remainder)
      : in_(std::move(in)), n_(n), drop_remainder_(drop_remainder) {}

  bool next(Batch& out) override {
    int filled = 0;
    while (filled < n_) {
      if (used_ == pending_.rows) {  // the pending upstream element is used up: pull another
        if (!in_->next(pending_)) break;
        used_ = 0;
        if (pending_.rows == 0) continue;
        if (filled == 0 && !shaped_) shape_buffers();
        if (pending_.x_cols != x_cols_ || pending_.y_cols != y_cols_)
          throw std::runtime_error(
              "batch: elements of in must all have the same x_cols and y_cols");
      }
      const int take = std::min(n_ - filled, pending_.rows - used_);
      std::copy_n(pending_.x + elems(used_, x_cols_), elems(take, x_cols_),
                  x_.data() + elems(filled, x_cols_));
      std::copy_n(pending_.y + elems(used_, y_cols_), elems(take, y_cols_),
                  y_.data() + elems(filled, y_cols_));
      used_ += take;
      filled += take;
    }
    if (filled == 0 || (filled < n_ && drop_remainder_)) return false;
    out = {x_.data(), y_.data(), filled, x_cols_, y_cols_};
    return true;
  }

  void reset() override {
    in_->reset();
    pending_ = Batch{};
    used_ = 0;
  }

 private:
  void shape_buffers() {  // once, from the first element: later calls never allocate
    x_cols_ = pending_.x_cols;
    y_cols_ = pending_.y_cols;
    x_.resize(elems(n_, x_cols_));
    y_.resize(elems(n_, y_cols_));
    shaped_ = true;
  }

  DatasetPtr in_;
  int n_;
  bool drop_remainder_;
  Batch pending_;  // the upstream element being split; valid until we call in_->next again
  int used_ = 0;   // rows of pending_ already copied
  bool shaped_ = false;
  int x_cols_ = 0, y_cols_ = 0;
  std::vector<float> x_, y_;
};

// ---- cache --------------------------------------------------------------------------------------

class CacheStage final : public Dataset {
 public:
  explicit CacheStage(DatasetPtr in) : in_(std::move(in)) {}

  bool next(Batch& out) override {
    if (complete_) {
      if (replay_ == entries_.size()) return false;
      const Entry& e = entries_[replay_++];
      out = {xs_.data() + e.x_offset, ys_.data() + e.y_offset, e.rows, e.x_cols, e.y_cols};
      return true;
    }
    if (!in_->next(out)) {
      complete_ = true;
      replay_ = entries_.size();  // this pass is over; replays start after reset()
      return false;
    }
    entries_.push_back({xs_.size(), ys_.size(), out.rows, out.x_cols, out.y_cols});
    xs_.insert(xs_.end(), out.x, out.x + elems(out.rows, out.x_cols));
    ys_.insert(ys_.end(), out.y, out.y + elems(out.rows, out.y_cols));
    return true;
  }

  void reset() override {
    if (complete_) {
      replay_ = 0;
      return;
    }
    entries_.clear();  // NOTE: a partial first pass is discarded, as in tf.data
    xs_.clear();
    ys_.clear();
    in_->reset();
  }

 private:
  struct Entry {
    std::size_t x_offset, y_offset;
    int rows, x_cols, y_cols;
  };
  DatasetPtr in_;
  bool complete_ = false;
  std::size_t replay_ = 0;
  std::vector<Entry> entries_;
  std::vector<float> xs_, ys_;
};

// ---- prefetch -----------------------------------------------------------------------------------

#ifdef __EMSCRIPTEN__

// Single-threaded WebAssembly: no producer, no overlap; the same elements in the same order.
class PrefetchStage final : public Dataset {
 public:
  PrefetchStage(DatasetPtr in, int /*buffer*/) : in_(std::move(in)) {}
  bool next(Batch& out) override { return in_->next(out); }
  void reset() override { in_->reset(); }

 private:
  DatasetPtr in_;
};

#else

// The producer thread owns `in_` while it runs; the consumer touches `in_` only after joining it.
// Everything else shared (queue_, pool_, done_, stop_, error_) is guarded by mutex_.
class PrefetchStage final : public Dataset {
 public:
  PrefetchStage(DatasetPtr in, int buffer) : in_(std::move(in)), capacity_(buffer) {}
  ~PrefetchStage() override { stop(); }

  bool next(Batch& out) override {
    if (!producer_.joinable()) producer_ = std::thread([this] { produce(); });
    std::unique_lock<std::mutex> lock(mutex_);
    has_item_.wait(lock, [this] { return !queue_.empty() || done_; });
    if (queue_.empty()) {
      if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
      return false;
    }
    pool_.push_back(std::move(current_));  // the previous element's buffers, for reuse
    current_ = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    has_space_.notify_one();
    out = current_.view();
    return true;
  }

  void reset() override {
    stop();
    in_->reset();
  }

 private:
  void produce() {
    for (;;) {
      StoredBatch slot;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        has_space_.wait(lock,
                        [this] { return stop_ || static_cast<int>(queue_.size()) < capacity_; });
        if (stop_) return;
        if (!pool_.empty()) {
          slot = std::move(pool_.back());
          pool_.pop_back();
        }
      }
      bool got = false;
      std::exception_ptr error;
      try {  // pull and copy outside the lock, so the consumer is never blocked by upstream work
        Batch b;
        got = in_->next(b);
        if (got) slot.assign(b);
      } catch (...) {
        error = std::current_exception();
      }
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (got) {
          queue_.push_back(std::move(slot));
        } else {
          done_ = true;
          error_ = error;
        }
      }
      has_item_.notify_one();
      if (!got) return;
    }
  }

  // Stops and joins the producer and empties the queue; afterwards the stage is idle and the
  // next next() starts a fresh producer.
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    has_space_.notify_all();
    if (producer_.joinable()) producer_.join();
    for (auto& b : queue_) pool_.push_back(std::move(b));
    queue_.clear();
    stop_ = false;
    done_ = false;
    error_ = nullptr;
  }

  DatasetPtr in_;
  int capacity_;
  std::thread producer_;
  std::mutex mutex_;
  std::condition_variable has_space_, has_item_;
  std::deque<StoredBatch> queue_;
  std::vector<StoredBatch> pool_;  // spent buffers handed back to the producer
  StoredBatch current_;            // the element the consumer is looking at
  bool stop_ = false, done_ = false;
  std::exception_ptr error_;
};

#endif

// ---- repeat -------------------------------------------------------------------------------------

class RepeatStage final : public Dataset {
 public:
  RepeatStage(DatasetPtr in, int count) : in_(std::move(in)), count_(count) {}

  bool next(Batch& out) override {
    while (count_ < 0 || pass_ < count_) {
      if (in_->next(out)) {
        pass_had_element_ = true;
        return true;
      }
      ++pass_;
      if (!pass_had_element_) {  // an empty pass: repeating forever would spin
        pass_ = count_ < 0 ? 0 : count_;
        return false;
      }
      if (count_ >= 0 && pass_ >= count_) return false;
      in_->reset();
      pass_had_element_ = false;
    }
    return false;
  }

  void reset() override {
    in_->reset();
    pass_ = 0;
    pass_had_element_ = false;
  }

 private:
  DatasetPtr in_;
  int count_;
  int pass_ = 0;
  bool pass_had_element_ = false;
};

// ---- shuffle ------------------------------------------------------------------------------------

class ShuffleStage final : public Dataset {
 public:
  ShuffleStage(DatasetPtr in, int buffer, std::uint64_t seed)
      : in_(std::move(in)), capacity_(static_cast<std::size_t>(buffer)), seed_(seed), rng_(seed) {}

  bool next(Batch& out) override {
    while (!in_done_ && buffer_.size() < capacity_) {  // the first call fills the buffer
      Batch b;
      if (!in_->next(b)) {
        in_done_ = true;
        break;
      }
      buffer_.emplace_back().assign(b);
    }
    if (buffer_.empty()) return false;
    const std::size_t size = buffer_.size();
    const std::size_t i = std::min(size - 1, static_cast<std::size_t>(rng_.uniform() * size));
    std::swap(current_, buffer_[i]);  // emit element i; slot i now holds spent buffers to reuse
    Batch b;
    if (!in_done_ && in_->next(b)) {
      buffer_[i].assign(b);  // refill the slot from upstream
    } else {
      in_done_ = true;
      std::swap(buffer_[i], buffer_.back());
      buffer_.pop_back();
    }
    out = current_.view();
    return true;
  }

  void reset() override {
    in_->reset();
    buffer_.clear();
    in_done_ = false;
    rng_ = Rng(seed_);  // NOTE: same seed every epoch, so every epoch is the same permutation
  }

 private:
  DatasetPtr in_;
  std::size_t capacity_;
  std::uint64_t seed_;
  Rng rng_;
  bool in_done_ = false;
  std::vector<StoredBatch> buffer_;
  StoredBatch current_;
};

// ---- map ----------------------------------------------------------------------------------------

class MapStage final : public Dataset {
 public:
  MapStage(DatasetPtr in, MapFn fn) : in_(std::move(in)), fn_(std::move(fn)) {}

  bool next(Batch& out) override {
    Batch b;
    if (!in_->next(b)) return false;
    current_.assign(b);
    MutableBatch m{current_.x.data(), current_.y.data(), b.rows, b.x_cols, b.y_cols};
    fn_(m);
    out = current_.view();
    return true;
  }
  void reset() override { in_->reset(); }

 private:
  DatasetPtr in_;
  MapFn fn_;
  StoredBatch current_;
};

}  // namespace

// ---- factories ----------------------------------------------------------------------------------

DatasetPtr from_tensor_slices(const Tensor& x, const Tensor& y) {
  require_same_rows(x, y, "from_tensor_slices");
  return std::make_unique<TensorRows>(x, y, 1);
}

DatasetPtr from_batches(const Tensor& x, const Tensor& y, int n) {
  require_same_rows(x, y, "from_batches");
  require_at_least_one(n, "from_batches: n");
  return std::make_unique<TensorRows>(x, y, n);
}

DatasetPtr batch(DatasetPtr in, int n, bool drop_remainder) {
  require_input(in, "batch");
  require_at_least_one(n, "batch: n");
  return std::make_unique<BatchStage>(std::move(in), n, drop_remainder);
}

DatasetPtr cache(DatasetPtr in) {
  require_input(in, "cache");
  return std::make_unique<CacheStage>(std::move(in));
}

DatasetPtr prefetch(DatasetPtr in, int buffer) {
  require_input(in, "prefetch");
  require_at_least_one(buffer, "prefetch: buffer");
  return std::make_unique<PrefetchStage>(std::move(in), buffer);
}

DatasetPtr repeat(DatasetPtr in, int count) {
  require_input(in, "repeat");
  return std::make_unique<RepeatStage>(std::move(in), count);
}

DatasetPtr shuffle(DatasetPtr in, int buffer, std::uint64_t seed) {
  require_input(in, "shuffle");
  require_at_least_one(buffer, "shuffle: buffer");
  return std::make_unique<ShuffleStage>(std::move(in), buffer, seed);
}

DatasetPtr map(DatasetPtr in, MapFn fn) {
  require_input(in, "map");
  require(static_cast<bool>(fn), "map: fn must not be empty");
  return std::make_unique<MapStage>(std::move(in), std::move(fn));
}

}  // namespace looplab
