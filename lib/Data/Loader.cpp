//===- Loader.cpp - Batches of a data set, prepared ahead -----------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// One worker thread makes batches in order (gathering the rows of the
// epoch's order into new tensors) into a queue of at most `prefetch`
// batches; next() takes from its front. One mutex guards the queue, the
// stop flag and the worker's error; one condition variable wakes the caller
// (a batch or an error is ready), another the worker (room in the queue,
// or stop). Tensors made on the worker are handed over whole: the worker
// never touches a batch again once it is queued (docs/API.md, "Threads").
//
//===----------------------------------------------------------------------===//

#include "lazyc/Data/Loader.h"

#include "lazyc/API/Device.h"
#include "lazyc/API/Error.h"
#include "lazyc/Runtime/Shape.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

using namespace lazyc;
using namespace lazyc::data;

namespace lazyc::data::detail {

struct LoaderState {
  const Dataset &dataset;
  LoaderOptions options;
  Device device;
  int64_t perEpoch = 0;

  std::mutex mutex;
  std::condition_variable batchReady, roomReady;
  std::deque<Batch> queue;
  std::exception_ptr error;
  bool stopping = false;
  std::thread worker;

  LoaderState(const Dataset &dataset, LoaderOptions options)
      : dataset(dataset), options(std::move(options)), device(defaultDevice()) {
  }

  void run();
  Batch make(int64_t epoch, int64_t index,
             const std::vector<int64_t> &order) const;
};

} // namespace lazyc::data::detail

using lazyc::data::detail::LoaderState;

namespace {

/// SplitMix64: the stream the shuffles draw from.
uint64_t splitMix(uint64_t &state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/// A uniform integer in [0, bound), without modulo bias (Lemire's method
/// with rejection), so the order does not depend on the standard library.
uint64_t below(uint64_t bound, uint64_t &state) {
  unsigned __int128 product = (unsigned __int128)splitMix(state) * bound;
  uint64_t low = static_cast<uint64_t>(product);
  if (low < bound) {
    uint64_t threshold = -bound % bound;
    while (low < threshold) {
      product = (unsigned __int128)splitMix(state) * bound;
      low = static_cast<uint64_t>(product);
    }
  }
  return static_cast<uint64_t>(product >> 64);
}

std::vector<int64_t> epochOrder(const LoaderOptions &options, int64_t count,
                                int64_t epoch) {
  std::vector<int64_t> order(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i)
    order[i] = i;
  if (!options.shuffle)
    return order;
  // Each epoch its own stream: seed and epoch mixed, then Fisher-Yates.
  uint64_t state = options.seed;
  uint64_t mixed = splitMix(state) ^ static_cast<uint64_t>(epoch);
  state = mixed * 0xD1B54A32D192ED03ULL;
  for (int64_t i = count - 1; i > 0; --i)
    std::swap(order[i], order[below(static_cast<uint64_t>(i) + 1, state)]);
  return order;
}

} // namespace

Batch LoaderState::make(int64_t epoch, int64_t index,
                        const std::vector<int64_t> &order) const {
  int64_t first = index * options.batchSize;
  int64_t size = std::min<int64_t>(options.batchSize, dataset.count - first);
  int64_t features = dataset.features;
  Batch batch;
  batch.epoch = epoch;
  batch.index = index;
  batch.examples.assign(order.begin() + first, order.begin() + first + size);
  std::vector<float> inputs(static_cast<size_t>(size * features));
  std::vector<int32_t> labels(static_cast<size_t>(size));
  for (int64_t i = 0; i < size; ++i) {
    int64_t row = batch.examples[i];
    std::copy_n(dataset.inputs.begin() + row * features, features,
                inputs.begin() + i * features);
    labels[i] = dataset.labels[row];
  }
  if (options.transform) {
    options.transform(inputs, labels);
    if (inputs.size() != static_cast<size_t>(size * features) ||
        labels.size() != static_cast<size_t>(size))
      throw Error("Loader", "the transform changed the size of a batch");
  }
  std::vector<int64_t> shape = {size};
  if (options.exampleShape.empty())
    shape.push_back(features);
  else
    shape.insert(shape.end(), options.exampleShape.begin(),
                 options.exampleShape.end());
  DeviceScope scope(device);
  batch.inputs = Tensor::fromVector(inputs, shape);
  batch.labels = Tensor::fromVector(labels, {size});
  return batch;
}

void LoaderState::run() {
  try {
    for (int64_t epoch = 0;; ++epoch) {
      std::vector<int64_t> order = epochOrder(options, dataset.count, epoch);
      for (int64_t index = 0; index < perEpoch; ++index) {
        {
          std::unique_lock<std::mutex> lock(mutex);
          roomReady.wait(lock, [&] {
            return stopping ||
                   static_cast<int64_t>(queue.size()) < options.prefetch;
          });
          if (stopping)
            return;
        }
        // Gathering and copying runs unlocked, beside the caller's step.
        Batch batch = make(epoch, index, order);
        {
          std::lock_guard<std::mutex> lock(mutex);
          queue.push_back(std::move(batch));
        }
        batchReady.notify_one();
      }
    }
  } catch (...) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      error = std::current_exception();
    }
    batchReady.notify_one();
  }
}

Loader::Loader(const Dataset &dataset, LoaderOptions options,
               SourceLocation where) {
  if (options.batchSize <= 0)
    throw Error("Loader",
                "needs a positive batch size, got " +
                    std::to_string(options.batchSize),
                where);
  if (options.prefetch < 1)
    throw Error("Loader",
                "prefetches at least one batch, got prefetch = " +
                    std::to_string(options.prefetch),
                where);
  if (dataset.count <= 0 ||
      dataset.inputs.size() !=
          static_cast<size_t>(dataset.count * dataset.features) ||
      dataset.labels.size() != static_cast<size_t>(dataset.count))
    throw Error("Loader",
                "needs a nonempty data set whose inputs hold count * "
                "features floats and labels count labels, got count " +
                    std::to_string(dataset.count) + ", " +
                    std::to_string(dataset.inputs.size()) + " inputs, " +
                    std::to_string(dataset.labels.size()) + " labels",
                where);
  if (!options.exampleShape.empty()) {
    int64_t elements = 1;
    for (int64_t size : options.exampleShape)
      elements *= size < 0 ? 0 : size;
    if (elements != dataset.features)
      throw Error("Loader",
                  "the example shape " + shapeText(options.exampleShape) +
                      " does not hold the data set's " +
                      std::to_string(dataset.features) + " features",
                  where);
  }
  int64_t perEpoch =
      options.dropLast
          ? dataset.count / options.batchSize
          : (dataset.count + options.batchSize - 1) / options.batchSize;
  if (perEpoch == 0)
    throw Error("Loader",
                "with dropLast, the batch size " +
                    std::to_string(options.batchSize) +
                    " leaves no batch of the " + std::to_string(dataset.count) +
                    " examples",
                where);
  state = new LoaderState(dataset, std::move(options));
  state->perEpoch = perEpoch;
  try {
    state->worker = std::thread([s = state] { s->run(); });
  } catch (...) {
    delete state;
    throw;
  }
}

Loader::~Loader() {
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    state->stopping = true;
  }
  state->roomReady.notify_all();
  state->worker.join();
  delete state;
}

Batch Loader::next() {
  std::unique_lock<std::mutex> lock(state->mutex);
  state->batchReady.wait(lock,
                         [&] { return !state->queue.empty() || state->error; });
  if (state->queue.empty())
    std::rethrow_exception(state->error);
  Batch batch = std::move(state->queue.front());
  state->queue.pop_front();
  lock.unlock();
  state->roomReady.notify_one();
  ++delivered;
  return batch;
}

int64_t Loader::batchesPerEpoch() const { return state->perEpoch; }

std::vector<int64_t> Loader::order(int64_t epoch) const {
  return epochOrder(state->options, state->dataset.count, epoch);
}

Loader::EpochRange Loader::epoch() {
  return EpochRange(this, state->perEpoch - delivered % state->perEpoch);
}

Loader::EpochRange::Iterator::Iterator(Loader *loader, int64_t left)
    : loader(loader), left(left) {
  if (loader && left > 0)
    current = loader->next();
}

Loader::EpochRange::Iterator &Loader::EpochRange::Iterator::operator++() {
  if (--left > 0)
    current = loader->next();
  return *this;
}
