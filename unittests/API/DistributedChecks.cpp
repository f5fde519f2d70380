//===- DistributedChecks.cpp - Collectives across processes ---------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// lazyc::distributed across the processes mpirun starts (ctest label
// `distributed`: 2 and 4 ranks). Rank r's input is a known function of
// (r, i), so every rank computes every collective's expected result with
// plain loops over all ranks' inputs; the reference evaluator (whose
// arithmetic is its own, the transport only gathers its inputs) checks the
// compiled traces too. Data-parallel training is checked against one
// process training on the whole batch.
//
// Not named *Tests: the unit-test runner would start it without mpirun. A
// fault mode (`--fault=mismatch|timeout`) exercises one failure and prints
// FAULT-CHECKED with the error; ctest looks for that line.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Reference/Evaluator.h"
#include "lazyc/nn.h"

#include "lazyc/Data/Dataset.h"
#include "lazyc/Data/Idx.h"

#include "llvm/Support/FileSystem.h"

#include "gtest/gtest.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <thread>

using namespace lazyc;
using namespace lazyc::distributed;

namespace {

int rank() { return world().rank; }
int size() { return world().size; }

/// Rank r's element i: small integers, exact in every dtype (non-negative
/// for UInt8), different on every rank.
double inputValue(int r, int64_t i, DType dtype) {
  if (dtype == DType::UInt8)
    return static_cast<double>((3 * r + 5 * i) % 11);
  return static_cast<double>((3 * r + 5 * i) % 11) - 4.0 - r;
}

Tensor input(int r, const Shape &shape, DType dtype) {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  std::vector<double> values(count);
  for (int64_t i = 0; i < count; ++i)
    values[i] = inputValue(r, i, dtype);
  return cast(Tensor::fromVector<double>(values, shape), dtype);
}

std::vector<double> valuesOf(const Tensor &x) {
  return cast(x, DType::Float64).toVector<double>();
}

double reduce(ReduceOp op, int64_t i, DType dtype) {
  double result = inputValue(0, i, dtype);
  for (int r = 1; r < size(); ++r) {
    double v = inputValue(r, i, dtype);
    result = op == ReduceOp::Max   ? std::max(result, v)
             : op == ReduceOp::Min ? std::min(result, v)
                                   : result + v;
  }
  return op == ReduceOp::Mean ? result / size() : result;
}

/// Wraps an integer sum the way the dtype does.
double wrapTo(double value, DType dtype) {
  if (dtype == DType::Int8)
    return static_cast<int8_t>(static_cast<int64_t>(value));
  if (dtype == DType::UInt8)
    return static_cast<uint8_t>(static_cast<int64_t>(value));
  return value;
}

const DType kDTypes[] = {DType::Float32,  DType::Float64, DType::Float16,
                         DType::BFloat16, DType::Int32,   DType::Int64,
                         DType::Int8,     DType::UInt8};

template <typename Test> void bothModes(Test test) {
  test();
  EagerScope eager;
  test();
}

TEST(DistributedChecks, AllReduceEveryDTypeAndReduction) {
  bothModes([] {
    for (DType dtype : kDTypes) {
      SCOPED_TRACE(dtypeName(dtype));
      Shape shape = {3, 37}; // Not a multiple of any vector width.
      Tensor x = input(rank(), shape, dtype);
      std::vector<ReduceOp> ops = {ReduceOp::Sum, ReduceOp::Max, ReduceOp::Min};
      if (isFloatingPoint(dtype))
        ops.push_back(ReduceOp::Mean);
      for (ReduceOp op : ops) {
        SCOPED_TRACE(static_cast<int>(op));
        std::vector<double> got = valuesOf(allReduce(x, op));
        ASSERT_EQ(got.size(), 3u * 37u);
        for (int64_t i = 0; i < 3 * 37; ++i) {
          double expected = wrapTo(reduce(op, i, dtype), dtype);
          if (op == ReduceOp::Mean) // Rounded to the dtype.
            EXPECT_NEAR(got[i], expected, std::fabs(expected) * 1e-2) << i;
          else
            EXPECT_EQ(got[i], expected) << i;
        }
      }
    }
  });
}

TEST(DistributedChecks, BroadcastGatherScatter) {
  bothModes([] {
    for (DType dtype : {DType::Float32, DType::Int64, DType::UInt8}) {
      SCOPED_TRACE(dtypeName(dtype));
      int64_t rows = 2 * size();
      Tensor x = input(rank(), {rows, 3}, dtype);
      for (int root = 0; root < size(); ++root) {
        std::vector<double> got = valuesOf(broadcast(x, root));
        for (int64_t i = 0; i < rows * 3; ++i)
          EXPECT_EQ(got[i], inputValue(root, i, dtype)) << root << " " << i;
      }
      Tensor gathered = allGather(x);
      EXPECT_EQ(gathered.shape(), (Shape{rows * size(), 3}));
      std::vector<double> all = valuesOf(gathered);
      for (int r = 0; r < size(); ++r)
        for (int64_t i = 0; i < rows * 3; ++i)
          EXPECT_EQ(all[r * rows * 3 + i], inputValue(r, i, dtype));
      for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Max, ReduceOp::Min}) {
        Tensor block = reduceScatter(x, op);
        EXPECT_EQ(block.shape(), (Shape{2, 3}));
        std::vector<double> got = valuesOf(block);
        for (int64_t i = 0; i < 6; ++i)
          EXPECT_EQ(got[i], wrapTo(reduce(op, rank() * 6 + i, dtype), dtype))
              << i;
      }
    }
    // A scalar gathers as one row per rank.
    std::vector<double> scalars =
        valuesOf(allGather(Tensor::fromVector<float>({float(rank() + 1)}, {})));
    ASSERT_EQ(scalars.size(), static_cast<size_t>(size()));
    for (int r = 0; r < size(); ++r)
      EXPECT_EQ(scalars[r], r + 1);
  });
}

TEST(DistributedChecks, CollectivesInsideAFusedTrace) {
  // Elementwise work on both sides of several collectives, many small
  // all-reduces (bucketed into one exchange), one trace.
  Tensor x = input(rank(), {64}, DType::Float32);
  std::vector<Tensor> parts;
  for (int k = 0; k < 10; ++k)
    parts.push_back(allReduce(x * float(k + 1)) + float(k));
  Tensor gathered = allGather(relu(x));
  lazyc::sync();
  for (int k = 0; k < 10; ++k) {
    std::vector<double> got = valuesOf(parts[k]);
    for (int64_t i = 0; i < 64; ++i)
      EXPECT_EQ(got[i], (k + 1) * reduce(ReduceOp::Sum, i, DType::Float32) + k)
          << k << " " << i;
  }
  std::vector<double> all = valuesOf(gathered);
  for (int r = 0; r < size(); ++r)
    for (int64_t i = 0; i < 64; ++i)
      EXPECT_EQ(all[r * 64 + i],
                std::max(inputValue(r, i, DType::Float32), 0.0));
}

TEST(DistributedChecks, AgreesWithTheReferenceEvaluator) {
  Tensor x = input(rank(), {4, 6}, DType::Float32);
  Tensor y = exp(allReduce(tanh(x) * 0.5f, ReduceOp::Mean)) +
             reduceScatter(allGather(x) * 2.0f) +
             broadcast(sigmoid(x), size() - 1) - allReduce(x, ReduceOp::Max);
  reference::Evaluator evaluator;
  const reference::Value &expected = evaluator.evaluate(y);
  std::vector<float> got = y.toVector<float>();
  ASSERT_EQ(got.size(), expected.floats.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_LE(std::fabs(got[i] - expected.floats[i]),
              expected.tolerance[i] + 1e-5 * std::fabs(expected.floats[i]))
        << i;
}

TEST(DistributedChecks, Gradients) {
  // Every rank's loss counts: loss = sum over ranks r of loss_r.
  int64_t n = 2 * size();
  Tensor x = input(rank(), {n}, DType::Float32);
  auto weightOf = [](int r, int64_t i) { return float(1 + r + 2 * i); };
  auto weights = [&](int r, int64_t count) {
    std::vector<float> w(count);
    for (int64_t i = 0; i < count; ++i)
      w[i] = weightOf(r, i);
    return Tensor::fromVector<float>(w, {count});
  };
  GradientTape tape;
  tape.watch(x);
  Tensor reduced = sum(allReduce(x) * weights(rank(), n));
  Tensor broadcasted = sum(broadcast(x, 0) * weights(rank(), n));
  Tensor gathered = sum(allGather(x) * weights(rank(), n * size()));
  Tensor scattered = sum(reduceScatter(x) * weights(rank(), n / size()));
  Tensor g = tape.gradient(reduced, x);
  Tensor gb = tape.gradient(broadcasted, x);
  Tensor gg = tape.gradient(gathered, x);
  Tensor gs = tape.gradient(scattered, x);
  std::vector<float> vr = g.toVector<float>(), vb = gb.toVector<float>(),
                     vg = gg.toVector<float>(), vs = gs.toVector<float>();
  int64_t block = n / size();
  for (int64_t i = 0; i < n; ++i) {
    float overRanks = 0, gatheredSum = 0;
    for (int r = 0; r < size(); ++r) {
      overRanks += weightOf(r, i);
      gatheredSum += weightOf(r, rank() * n + i);
    }
    // d/dx_i sum_r sum_j w_r[j] * sum_q x_q[j] = sum_r w_r[i].
    EXPECT_EQ(vr[i], overRanks) << i;
    // Only the root's x reaches the results.
    EXPECT_EQ(vb[i], rank() == 0 ? overRanks : 0.0f) << i;
    // x_i is element rank * n + i of every rank's gathered result.
    EXPECT_EQ(vg[i], gatheredSum) << i;
    // x_i is summed into block i / block of the rank that owns it.
    EXPECT_EQ(vs[i], weightOf(static_cast<int>(i / block), i % block)) << i;
  }
}

/// One process's MLP trained on `rows` of the batch with `averageOver`
/// ranks averaging the gradients (1: no collectives).
std::vector<std::vector<float>> train(int64_t firstRow, int64_t rows,
                                      bool parallel) {
  nn::Mlp model({8, 16, 4}, /*seed=*/7);
  std::vector<Variable *> parameters = model.parameters();
  std::optional<DataParallel> dataParallel;
  if (parallel)
    dataParallel.emplace(parameters);
  optim::SGD sgd(parameters, {/*learningRate=*/0.1, /*momentum=*/0.9});
  for (int step = 0; step < 5; ++step) {
    // The whole batch of 16, a known function of (step, row, column).
    std::vector<float> inputs(16 * 8);
    std::vector<int32_t> labels(16);
    for (int64_t row = 0; row < 16; ++row) {
      labels[row] = static_cast<int32_t>((row * 3 + step) % 4);
      for (int64_t c = 0; c < 8; ++c)
        inputs[row * 8 + c] = std::sin(float(step * 131 + row * 8 + c));
    }
    std::vector<float> myInputs(inputs.begin() + firstRow * 8,
                                inputs.begin() + (firstRow + rows) * 8);
    std::vector<int32_t> myLabels(labels.begin() + firstRow,
                                  labels.begin() + firstRow + rows);
    Tensor x = Tensor::fromVector<float>(myInputs, {rows, 8});
    Tensor y = Tensor::fromVector<int32_t>(myLabels, {rows});
    GradientTape tape;
    Tensor loss = nn::crossEntropy(model(x), y);
    std::vector<Tensor> gradients = tape.gradient(loss, nn::refs(parameters));
    sgd.step(parallel ? dataParallel->averageGradients(gradients) : gradients);
    lazyc::sync();
  }
  std::vector<std::vector<float>> values;
  for (Variable *parameter : parameters)
    values.push_back(parameter->read().toVector<float>());
  return values;
}

TEST(DistributedChecks, DataParallelTrainingMatchesOneProcess) {
  int64_t rows = 16 / size();
  std::vector<std::vector<float>> parallel =
      train(rank() * rows, rows, /*parallel=*/true);
  std::vector<std::vector<float>> single = train(0, 16, /*parallel=*/false);
  ASSERT_EQ(parallel.size(), single.size());
  for (size_t p = 0; p < parallel.size(); ++p)
    for (size_t i = 0; i < parallel[p].size(); ++i)
      EXPECT_NEAR(parallel[p][i], single[p][i],
                  1e-5 + 1e-4 * std::fabs(single[p][i]))
          << p << " " << i;
}

/// 64 MNIST-format examples (28x28 unsigned-byte images, labels 0-9)
/// written as IDX files under `directory` and read back with
/// data::loadMnist, as a program training on MNIST reads them. The bytes
/// are a pure function of the index: every rank writes the same files.
data::Dataset mnistFormatBatch(const std::string &directory) {
  data::IdxArray images{{64, 28, 28}, {}}, labels{{64}, {}};
  for (int64_t i = 0; i < 64 * 28 * 28; ++i)
    images.values.push_back(static_cast<uint8_t>((i * 2654435761u) >> 24));
  for (int64_t i = 0; i < 64; ++i)
    labels.values.push_back(static_cast<uint8_t>((i * 7 + 3) % 10));
  llvm::sys::fs::create_directories(directory);
  data::writeIdx(directory + "/train-images-idx3-ubyte", images);
  data::writeIdx(directory + "/train-labels-idx1-ubyte", labels);
  data::Dataset batch = data::loadMnist(directory, "train");
  llvm::sys::fs::remove_directories(directory);
  return batch;
}

/// The 784-64-10 MLP trained for 3 steps of SGD with momentum on rows
/// [firstRow, firstRow + rows) of the 64 examples; gradients averaged over
/// the ranks when `parallel`.
std::vector<std::vector<float>> trainMnistFormat(const data::Dataset &batch,
                                                 int64_t firstRow, int64_t rows,
                                                 bool parallel) {
  nn::Mlp model({784, 64, 10}, /*seed=*/11);
  std::vector<Variable *> parameters = model.parameters();
  std::optional<DataParallel> dataParallel;
  if (parallel)
    dataParallel.emplace(parameters);
  optim::SGD sgd(parameters, {/*learningRate=*/0.05, /*momentum=*/0.9});
  for (int step = 0; step < 3; ++step) {
    GradientTape tape;
    Tensor loss = nn::crossEntropy(model(batch.batchInputs(firstRow, rows)),
                                   batch.batchLabels(firstRow, rows));
    std::vector<Tensor> gradients = tape.gradient(loss, nn::refs(parameters));
    sgd.step(parallel ? dataParallel->averageGradients(gradients) : gradients);
    lazyc::sync();
  }
  std::vector<std::vector<float>> values;
  for (Variable *parameter : parameters)
    values.push_back(parameter->read().toVector<float>());
  return values;
}

TEST(DistributedChecks, DataParallelMnistFormatMlpMatchesOneProcess) {
  data::Dataset batch = mnistFormatBatch(
      testing::TempDir() + "lazyc-mnist-format-" + std::to_string(::getpid()));
  ASSERT_EQ(batch.count, 64);
  ASSERT_EQ(batch.features, 784);
  ASSERT_EQ(64 % size(), 0) << "the batch splits evenly over the ranks";
  int64_t rows = 64 / size();
  std::vector<std::vector<float>> parallel =
      trainMnistFormat(batch, rank() * rows, rows, /*parallel=*/true);
  std::vector<std::vector<float>> single =
      trainMnistFormat(batch, 0, 64, /*parallel=*/false);
  ASSERT_EQ(parallel.size(), single.size());
  for (size_t p = 0; p < parallel.size(); ++p) {
    ASSERT_EQ(parallel[p].size(), single[p].size());
    for (size_t i = 0; i < parallel[p].size(); ++i)
      ASSERT_NEAR(parallel[p][i], single[p][i],
                  1e-5 + 1e-4 * std::fabs(single[p][i]))
          << "parameter " << p << ", element " << i;
  }
}

/// The failure modes: each breaks the world, so each runs alone.
int runFault(const char *fault) {
  try {
    if (std::strcmp(fault, "mismatch") == 0) {
      // Rank 0 sends 8 elements, the others 9.
      Tensor x = input(rank(), {rank() == 0 ? 8 : 9}, DType::Float32);
      allReduce(x).toVector<float>();
    } else if (std::strcmp(fault, "timeout") == 0) {
      // The last rank never arrives.
      if (rank() == size() - 1) {
        std::this_thread::sleep_for(std::chrono::seconds(20));
        std::printf("FAULT-CHECKED rank %d slept\n", rank());
        std::fflush(stdout);
        return 0;
      }
      allReduce(input(rank(), {4}, DType::Float32)).toVector<float>();
    } else {
      std::fprintf(stderr, "unknown fault '%s'\n", fault);
      return 2;
    }
  } catch (const Error &error) {
    std::printf("FAULT-CHECKED rank %d: %s\n", rank(), error.what());
    std::fflush(stdout);
    // The first rank to finalize aborts the job (its world is broken),
    // which kills the others: wait until every rank has printed its line.
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    return 0;
  }
  std::printf("rank %d: no error\n", rank());
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  testing::InitGoogleTest(&argc, argv);
  init();
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--fault=", 8) == 0)
      return runFault(argv[i] + 8);
  return RUN_ALL_TESTS();
}
