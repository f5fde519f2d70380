//===- LoaderTest.cpp - Batches prepared on a background thread -----------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Every example once per epoch, the same order for the same seed, batches
// that hold the rows they name, errors of the worker on the caller's
// thread, and a clean stop mid-epoch. Part of the TSan build's suite.
//
//===----------------------------------------------------------------------===//

#include "../API/ExpectError.h"

#include "lazyc/nn.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <set>
#include <stdexcept>

using namespace lazyc;
using lazyc::test::expectError;

namespace {

/// `count` examples of 3 features: example i is {i, i + 0.5, -i}, label
/// i % 4.
data::Dataset numbered(int64_t count) {
  data::Dataset set;
  set.count = count;
  set.features = 3;
  set.classes = 4;
  for (int64_t i = 0; i < count; ++i) {
    set.inputs.insert(set.inputs.end(), {float(i), float(i) + 0.5f, -float(i)});
    set.labels.push_back(static_cast<int32_t>(i % 4));
  }
  return set;
}

TEST(LoaderTest, EveryExampleOncePerEpochInBatchesThatHoldTheirRows) {
  data::Dataset set = numbered(23);
  data::LoaderOptions options;
  options.batchSize = 5;
  options.seed = 11;
  data::Loader loader(set, options);
  EXPECT_EQ(loader.batchesPerEpoch(), 5);
  std::vector<std::vector<int64_t>> orders;
  for (int64_t epoch = 0; epoch < 3; ++epoch) {
    std::vector<int64_t> seen;
    int64_t index = 0;
    for (const data::Batch &batch : loader.epoch()) {
      EXPECT_EQ(batch.epoch, epoch);
      EXPECT_EQ(batch.index, index++);
      int64_t size = static_cast<int64_t>(batch.examples.size());
      EXPECT_EQ(size, batch.index < 4 ? 5 : 3);
      EXPECT_EQ(batch.inputs.shape(), (Shape{size, 3}));
      std::vector<float> inputs = batch.inputs.toVector<float>();
      std::vector<int32_t> labels = batch.labels.toVector<int32_t>();
      for (int64_t i = 0; i < size; ++i) {
        int64_t row = batch.examples[i];
        EXPECT_EQ(inputs[i * 3], float(row));
        EXPECT_EQ(inputs[i * 3 + 1], float(row) + 0.5f);
        EXPECT_EQ(labels[i], row % 4);
        seen.push_back(row);
      }
    }
    EXPECT_EQ(index, 5);
    EXPECT_EQ(seen, loader.order(epoch));
    std::vector<int64_t> sorted = seen;
    std::sort(sorted.begin(), sorted.end());
    for (int64_t i = 0; i < 23; ++i)
      EXPECT_EQ(sorted[i], i);
    orders.push_back(seen);
  }
  // A new order each epoch (23! orders: equal ones would be a bug).
  EXPECT_NE(orders[0], orders[1]);
  EXPECT_NE(orders[1], orders[2]);
}

TEST(LoaderTest, TheSameSeedGivesTheSameBatches) {
  data::Dataset set = numbered(40);
  data::LoaderOptions options;
  options.batchSize = 8;
  options.seed = 3;
  options.prefetch = 3;
  data::Loader a(set, options), b(set, options);
  for (int i = 0; i < 12; ++i) {
    data::Batch x = a.next(), y = b.next();
    EXPECT_EQ(x.examples, y.examples);
    EXPECT_EQ(x.inputs.toVector<float>(), y.inputs.toVector<float>());
  }
  options.seed = 4;
  data::Loader c(set, options);
  EXPECT_NE(c.order(0), a.order(0));
  // Without shuffling: the data set's order, every epoch.
  options.shuffle = false;
  data::Loader plain(set, options);
  std::vector<int64_t> identity(40);
  for (int64_t i = 0; i < 40; ++i)
    identity[i] = i;
  EXPECT_EQ(plain.order(0), identity);
  EXPECT_EQ(plain.order(5), identity);
}

TEST(LoaderTest, DropLastAndExampleShape) {
  data::Dataset set = data::syntheticClassification(10, 4, 2, /*seed=*/1);
  data::LoaderOptions options;
  options.batchSize = 4;
  options.dropLast = true;
  options.exampleShape = {1, 2, 2};
  data::Loader loader(set, options);
  EXPECT_EQ(loader.batchesPerEpoch(), 2);
  std::set<int64_t> rows;
  for (int i = 0; i < 2; ++i) {
    data::Batch batch = loader.next();
    EXPECT_EQ(batch.inputs.shape(), (Shape{4, 1, 2, 2}));
    rows.insert(batch.examples.begin(), batch.examples.end());
  }
  EXPECT_EQ(rows.size(), 8u);
  EXPECT_EQ(loader.next().epoch, 1);
}

TEST(LoaderTest, WorkerErrorsAreRethrownByNextAfterTheEarlierBatches) {
  data::Dataset set = numbered(12);
  data::LoaderOptions options;
  options.batchSize = 4;
  options.shuffle = false;
  int calls = 0; // only the worker touches it
  options.transform = [&calls](std::vector<float> &inputs,
                               std::vector<int32_t> &) {
    if (++calls == 3)
      throw std::runtime_error("bad batch");
    for (float &value : inputs)
      value *= 2;
  };
  data::Loader loader(set, options);
  EXPECT_EQ(loader.next().inputs.toVector<float>()[3], 2.0f); // row 1 * 2
  loader.next();
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      loader.next();
      ADD_FAILURE() << "no error from the worker";
    } catch (const std::runtime_error &error) {
      EXPECT_STREQ(error.what(), "bad batch");
    }
  }
}

TEST(LoaderTest, StopsCleanlyMidEpochAndChecksItsOptions) {
  data::Dataset set = numbered(1000);
  for (int round = 0; round < 20; ++round) {
    data::LoaderOptions options;
    options.batchSize = 7;
    options.seed = round;
    options.prefetch = 1 + round % 3;
    data::Loader loader(set, options);
    for (int i = 0; i < round % 4; ++i)
      loader.next();
  } // each destructor stops a worker that may be mid-batch
  data::LoaderOptions bad;
  bad.batchSize = 0;
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        data::Loader loader(set, bad);
      },
      "Loader", "needs a positive batch size, got 0");
  data::LoaderOptions shaped;
  shaped.exampleShape = {2, 2};
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        data::Loader loader(set, shaped);
      },
      "Loader", "the example shape [2, 2] does not hold the data set's 3");
}

} // namespace
