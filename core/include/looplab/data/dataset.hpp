// looplab/data/dataset.hpp — a tf.data-like input pipeline: pull-based stages that wrap one
// another.
//
// A pipeline is a chain of `Dataset`s. The consumer calls `next(out)` on the last stage; each stage
// pulls from the one it wraps, so nothing is computed ahead of demand (except inside `prefetch`).
// An element is a `Batch`: `rows` examples of `x_cols` inputs and `y_cols` targets, row-major. A
// source yields single examples (rows = 1) or pre-stacked batches; `batch` gathers rows.
//
//   // seed 000: from_tensor_slices((x, y)).batch(100).cache().prefetch(1).repeat(epochs)
//   auto ds = repeat(prefetch(cache(batch(from_tensor_slices(x, y), 100, false)), 1), epochs);
//   Batch b;
//   while (ds->next(b)) train_step(b.x, b.y, b.rows);  // b.x is b.rows x b.x_cols, row-major
//
// Stages (each a factory returning std::unique_ptr<Dataset>):
//   from_tensor_slices(x, y)        one example per call, a view into x and y (zero copy)
//   from_batches(x, y, n)           views of consecutive n-row ranges; the last may be short
//   batch(in, n, drop_remainder)    gathers n rows from `in` into one stage-owned, reused buffer
//   cache(in)                       pass 1 passes through and records; later passes replay it
//   prefetch(in, buffer)            a producer thread keeps up to `buffer` elements ready
//   repeat(in, count)               `count` passes over `in` (count < 0: forever)
//   shuffle(in, buffer, seed)       tf.data's buffered shuffle, reproducible for a seed
//   map(in, fn)                     copies each element and lets `fn` rewrite it in place
//
// Lifetimes: a `Batch`'s pointers stay valid until the next `next()` or `reset()` on the stage
// that produced it. Sources keep references to x and y: the tensors must outlive the pipeline.
// Bad arguments throw std::invalid_argument naming the argument and its allowed range.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "looplab/base/tensor.hpp"

namespace looplab {

// A read-only view of `rows` examples: x is rows x x_cols, y is rows x y_cols, both row-major.
struct Batch {
  const float* x = nullptr;
  const float* y = nullptr;
  int rows = 0;
  int x_cols = 0;
  int y_cols = 0;
};

// The same shape with writable pointers, handed to a `map` function (see below).
struct MutableBatch {
  float* x = nullptr;
  float* y = nullptr;
  int rows = 0;
  int x_cols = 0;
  int y_cols = 0;
};

class Dataset {
 public:
  Dataset() = default;
  Dataset(const Dataset&) = delete;
  Dataset& operator=(const Dataset&) = delete;
  virtual ~Dataset();

  // Writes the next element to `out` and returns true, or returns false at the end of the stream.
  virtual bool next(Batch& out) = 0;
  // Rewinds to the start of the stream (a new epoch).
  virtual void reset() = 0;
};

using DatasetPtr = std::unique_ptr<Dataset>;

// One example per call (rows = 1). Throws if x and y have different row counts.
DatasetPtr from_tensor_slices(const Tensor& x, const Tensor& y);

// Views of rows [0, n), [n, 2n), ...; the last batch has the leftover rows. n >= 1.
DatasetPtr from_batches(const Tensor& x, const Tensor& y, int n);

// Gathers rows from `in` (single examples, or batches that are split and re-joined as needed) into
// batches of n rows, n >= 1. The last batch is short unless `drop_remainder`, which drops it.
// NOTE: the output buffer is allocated on the first call and reused after that; all elements of
// `in` must have the same x_cols and y_cols (otherwise std::runtime_error).
DatasetPtr batch(DatasetPtr in, int n, bool drop_remainder);

// The first complete pass passes elements through and records a copy; after `reset()` every pass
// replays the copy and never touches `in` again. Element boundaries are preserved.
// NOTE: a reset before the first pass finished discards the partial copy and rewinds `in`.
DatasetPtr cache(DatasetPtr in);

// Natively: a producer std::thread pulls from `in` ahead of the consumer and keeps up to `buffer`
// copied elements (buffer >= 1) in a bounded queue, so the upstream work overlaps the consumer's.
// The thread starts on the first `next()`; `reset()` and the destructor stop and join it. An
// exception thrown upstream is rethrown by `next()`.
// NOTE: under Emscripten (single-threaded WebAssembly) there are no threads: `prefetch` pulls
// synchronously and passes elements through, so it yields the same sequence with no overlap.
DatasetPtr prefetch(DatasetPtr in, int buffer);

// `count` passes over `in`, calling `in->reset()` between passes; count < 0 repeats forever
// (an empty `in` ends the stream rather than looping), count == 0 yields nothing.
// NOTE: the first pass starts wherever `in` is; pass a fresh or reset stage.
DatasetPtr repeat(DatasetPtr in, int count);

// tf.data's shuffle: fill a buffer with the first `buffer` elements of `in` (buffer >= 1), then
// repeatedly emit one chosen uniformly at random (looplab::Rng) and put the next element of `in`
// in its place. buffer = 1 keeps the order; buffer >= the stream length gives a full permutation.
// NOTE: `reset()` re-seeds, so every epoch yields the same order for the same seed (tf.data's
// default reshuffles each iteration). For a new order per epoch, shuffle after `repeat` (orders
// then mix across epoch boundaries, as in tf.data) or build the stage with a new seed.
DatasetPtr shuffle(DatasetPtr in, int buffer, std::uint64_t seed);

// Copies each element of `in` into stage-owned buffers (reused between calls) and calls `fn` to
// rewrite them in place; shapes are kept. E.g. standardize x per batch:
//   map(std::move(ds), [](MutableBatch& b) { /* x[r * b.x_cols + c] = (x - mean_c) / std_c */ });
using MapFn = std::function<void(MutableBatch&)>;
DatasetPtr map(DatasetPtr in, MapFn fn);

}  // namespace looplab
