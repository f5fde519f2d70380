//===- DistributedTest.cpp - Collectives in a world of one process --------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// lazyc::distributed without a launcher: one process, where every
// collective is the identity (gathers and scatters by one), recorded and
// compiled like in a real world. The errors users get for bad input. The
// same collectives across 2 and 4 processes are DistributedChecks.cpp, run
// under mpirun.
//
//===----------------------------------------------------------------------===//

#include "ExpectError.h"

#include "lazyc/lazyc.h"

#include "gtest/gtest.h"

using namespace lazyc;
using namespace lazyc::distributed;
using lazyc::test::expectError;

namespace {

Tensor counting(const Shape &shape, DType dtype = DType::Float32) {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  std::vector<float> values(count);
  for (int64_t i = 0; i < count; ++i)
    values[i] = static_cast<float>(i % 7) - 2.0f;
  return cast(Tensor::fromVector<float>(values, shape), dtype);
}

std::vector<double> valuesOf(const Tensor &x) {
  return cast(x, DType::Float64).toVector<double>();
}

// Runs first in this file, and no other file calls init(): GoogleTest runs
// a process's tests in this order, so nothing has joined a world yet.
TEST(DistributedTest, CollectivesNeedAWorld) {
  ASSERT_FALSE(initialized()) << "a test before this one called init()";
  Tensor x = counting({4});
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        allReduce(x);
      },
      "allReduce", "call lazyc::distributed::init() first");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        barrier();
      },
      "barrier", "call lazyc::distributed::init() first");
  World before = world();
  EXPECT_EQ(before.size, 1);
  EXPECT_EQ(before.rank, 0);
}

TEST(DistributedTest, AWorldOfOneProcess) {
  World joined = init();
  EXPECT_TRUE(initialized());
  EXPECT_EQ(joined.rank, 0);
  EXPECT_EQ(joined.size, 1);
  EXPECT_EQ(joined.localRank, 0);
  EXPECT_EQ(joined.transport, "local");
  EXPECT_EQ(init().size, 1); // Idempotent.
  barrier();
}

TEST(DistributedTest, EveryCollectiveIsTheIdentityOfOneRank) {
  init();
  for (bool eager : {false, true}) {
    std::optional<EagerScope> scope;
    if (eager)
      scope.emplace();
    for (DType dtype :
         {DType::Float32, DType::Float64, DType::Float16, DType::BFloat16,
          DType::Int32, DType::Int64, DType::Int8, DType::UInt8}) {
      SCOPED_TRACE(std::string(dtypeName(dtype)) + (eager ? " eager" : ""));
      Tensor x = counting({2, 3}, dtype);
      std::vector<double> expected = valuesOf(x);
      for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Max, ReduceOp::Min})
        EXPECT_EQ(valuesOf(allReduce(x, op)), expected);
      EXPECT_EQ(valuesOf(broadcast(x, 0)), expected);
      Tensor gathered = allGather(x);
      EXPECT_EQ(gathered.shape(), (Shape{2, 3}));
      EXPECT_EQ(valuesOf(gathered), expected);
      EXPECT_EQ(valuesOf(reduceScatter(x)), expected);
    }
    Tensor x = counting({5});
    EXPECT_EQ(valuesOf(allReduce(x, ReduceOp::Mean)), valuesOf(x));
    // A scalar gathers as one row.
    Tensor scalar = Tensor::fromVector<float>({3.5f}, {});
    EXPECT_EQ(allGather(scalar).shape(), (Shape{1}));
    EXPECT_EQ(valuesOf(allGather(scalar)), (std::vector<double>{3.5}));
  }
}

TEST(DistributedTest, CollectivesFuseIntoTheTrace) {
  init();
  // relu(allReduce(x * 2) - 1) + broadcast(x): one trace around the
  // collectives. With one rank the collectives are copies.
  Tensor x = counting({8});
  Tensor y = relu(allReduce(x * 2.0f) - 1.0f) + broadcast(x);
  std::vector<double> in = valuesOf(x), out = valuesOf(y);
  for (size_t i = 0; i < in.size(); ++i)
    EXPECT_EQ(out[i], std::max(2 * in[i] - 1, 0.0) + in[i]) << i;
}

TEST(DistributedTest, GradientsOfOneRank) {
  init();
  // With one rank, every collective's gradient is the incoming gradient.
  Tensor x = counting({4});
  Tensor weights = Tensor::fromVector<float>({1, 2, 3, 4}, {4});
  GradientTape tape;
  tape.watch(x);
  Tensor loss = sum(allReduce(x) * weights) + sum(allGather(x) * weights) +
                sum(broadcast(x) * weights) +
                sum(allReduce(x, ReduceOp::Max) * weights);
  Tensor g = tape.gradient(loss, std::vector<Tensor>{x})[0];
  EXPECT_EQ(g.toVector<float>(), (std::vector<float>{4, 8, 12, 16}));
}

TEST(DistributedTest, BadInput) {
  init();
  Tensor x = counting({4});
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        broadcast(x, 1);
      },
      "broadcast", "root 1 is not a rank of this world of 1 process(es)");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        allReduce(x > 0.0f);
      },
      "allReduce", "Bool tensors are not exchanged; cast Bool [4]");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        allReduce(cast(x, DType::Int32), ReduceOp::Mean);
      },
      "allReduce",
      "ReduceOp::Mean needs a floating-point tensor, got Int32 [4]");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        reduceScatter(Tensor::fromVector<float>({1}, {}));
      },
      "reduceScatter", "Float32 [] does not divide into 1 blocks");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        allGather(Tensor());
      },
      "allGather", "the operand is an empty Tensor");
  std::vector<Variable *> none;
  DataParallel parallel(none);
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        parallel.averageGradients({x});
      },
      "DataParallel::averageGradients", "got 1 gradients for 0 parameters");
}

TEST(DistributedTest, DataParallelOfOneRankKeepsTheParameters) {
  init();
  Variable w(Tensor::fromVector<float>({1, -2, 3}, {3}));
  DataParallel parallel({&w});
  EXPECT_EQ(w.read().toVector<float>(), (std::vector<float>{1, -2, 3}));
  Tensor g = Tensor::fromVector<float>({0.5f, 1, -1}, {3});
  std::vector<Tensor> averaged = parallel.averageGradients({g});
  EXPECT_EQ(averaged[0].toVector<float>(), (std::vector<float>{0.5f, 1, -1}));
}

} // namespace
