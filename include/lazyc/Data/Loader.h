//===- Loader.h - Batches of a data set, prepared ahead ---------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// data::Loader walks a Dataset in batches, epoch after epoch, each epoch in
// an order shuffled from the seed and the epoch number (so a run is
// reproducible, and epoch e's order does not depend on how far earlier
// epochs were read). A background thread gathers the next batches into
// tensors while the caller trains on the current one; an exception it
// meets is rethrown by the caller's next(). The header keeps <thread> and
// <memory> out (see docs/API.md, "sync() and POSIX ::sync()").
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_DATA_LOADER_H
#define LAZYC_DATA_LOADER_H

#include "lazyc/API/Tensor.h"
#include "lazyc/Data/Dataset.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace lazyc::data {

struct LoaderOptions {
  int64_t batchSize = 64;
  /// A new order every epoch, a function of `seed` and the epoch; false
  /// keeps the data set's order.
  bool shuffle = true;
  uint64_t seed = 0;
  /// Skip the last batch of an epoch when it would be smaller than
  /// batchSize (a smaller batch is a new size for the compiled step).
  bool dropLast = false;
  /// Batches prepared ahead by the background thread (at least 1).
  int64_t prefetch = 2;
  /// The shape of one example's inputs (`{1, 28, 28}` for MNIST images);
  /// empty: `{features}`. Its element count must be the data set's
  /// features.
  std::vector<int64_t> exampleShape;
  /// Called on the background thread with each batch's inputs (row-major
  /// [size] + exampleShape) and labels before they become tensors:
  /// augmentation or normalization on host data. What it throws, next()
  /// rethrows. It must not use lazyc tensors (they belong to one thread).
  std::function<void(std::vector<float> &inputs, std::vector<int32_t> &labels)>
      transform;
};

struct Batch {
  Tensor inputs; ///< [size] + exampleShape, Float32
  Tensor labels; ///< [size], Int32
  int64_t epoch = 0;
  int64_t index = 0; ///< within the epoch
  /// The data set rows in the batch, in order.
  std::vector<int64_t> examples;
};

namespace detail {
struct LoaderState;
} // namespace detail

class Loader {
public:
  /// Batches of `dataset`, which must outlive the loader and not change
  /// while it runs. Starts the background thread.
  Loader(const Dataset &dataset, LoaderOptions options,
         SourceLocation where = SourceLocation::current());
  /// Stops and joins the background thread.
  ~Loader();
  Loader(const Loader &) = delete;
  Loader &operator=(const Loader &) = delete;

  /// The next batch: epoch 0's batches, then epoch 1's, and so on. Throws
  /// what the background thread threw, once the batches it prepared
  /// before are read.
  Batch next();

  int64_t batchesPerEpoch() const;
  /// The epoch order of `epoch`: every example once (a pure function of the
  /// seed and the epoch).
  std::vector<int64_t> order(int64_t epoch) const;

  /// The rest of the current epoch, for a range-for:
  /// `for (const data::Batch &batch : loader.epoch())`.
  class EpochRange {
  public:
    class Iterator {
    public:
      const Batch &operator*() const { return current; }
      const Batch *operator->() const { return &current; }
      Iterator &operator++();
      bool operator!=(const Iterator &other) const {
        return left != other.left;
      }

    private:
      friend class EpochRange;
      Iterator(Loader *loader, int64_t left);
      Loader *loader;
      int64_t left;
      Batch current;
    };
    Iterator begin() { return Iterator(loader, left); }
    Iterator end() { return Iterator(nullptr, 0); }

  private:
    friend class Loader;
    EpochRange(Loader *loader, int64_t left) : loader(loader), left(left) {}
    Loader *loader;
    int64_t left;
  };
  EpochRange epoch();

private:
  detail::LoaderState *state;
  int64_t delivered = 0;
};

} // namespace lazyc::data

#endif // LAZYC_DATA_LOADER_H
