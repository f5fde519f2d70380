//===- GpuCollectivesTest.cpp - Collectives of GPU tensors over NCCL ------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The runtime's NCCL collectives (lazyrt_cuda_collective_start / _wait):
// loading NCCL and the errors of a missing NCCL, a missing driver and bad
// arguments, which need no GPU; then lazyc::distributed on cuda:0 in a world
// of one process (one GPU: one NCCL rank), where each collective is the
// identity, placed between kernels that compute its input and read its
// output, and a data-parallel SGD step, checked against loops on the host.
// Without a GPU those skip and say why; scripts/gpu-check runs them on the
// device machine.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Runtime/Collectives.h"
#include "lazyc/Runtime/Cuda.h"
#include "lazyc/Runtime/Runtime.h"
#include "lazyc/lazyc.h"

#include "TestValues.h"

#include "gtest/gtest.h"

#include <dlfcn.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace lazyc;
using lazyc::test::values;

namespace {

/// The failure the last wait recorded, or "".
std::string takeCollectiveError() {
  const char *error = lazyrt_take_collective_error();
  return error ? error : "";
}

/// Whether this machine has an NCCL library where the runtime looks.
bool ncclInstalled() {
  for (const char *path : {"libnccl.so.2", "/usr/local/cuda/lib64/libnccl.so.2",
                           "/usr/local/cuda/lib/libnccl.so.2"})
    if (void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL)) {
      dlclose(library);
      return true;
    }
  return false;
}

/// Runs a collective of `count` elements on host buffers, which must fail
/// before anything reads them; prints the failure. Returns 0 if it failed.
int failsSaying(int32_t kind, DType dtype, int64_t count) {
  std::vector<int64_t> in(count), out(count * 4);
  int64_t handle = lazyrt_cuda_collective_start(kind, LAZYRT_REDUCE_SUM,
                                                static_cast<int32_t>(dtype), 0,
                                                in.data(), out.data(), count);
  int32_t status = lazyrt_cuda_collective_wait(handle, in.data(), out.data());
  std::fprintf(stderr, "%s\n", takeCollectiveError().c_str());
  return status == -1 ? 0 : 1;
}

TEST(NcclRuntimeTest, LoadsWithoutAGpu) {
  int32_t version = 0;
  int32_t status = lazyrt_nccl_version(&version);
  if (!LAZYC_HAVE_CUDA_H) {
    EXPECT_EQ(status, -1);
    EXPECT_NE(std::string(lazyrt_get_last_error()).find("not built"),
              std::string::npos);
    return;
  }
  if (!ncclInstalled()) {
    EXPECT_EQ(status, -1);
    EXPECT_NE(std::string(lazyrt_get_last_error()).find("NCCL not found"),
              std::string::npos)
        << lazyrt_get_last_error();
    return;
  }
  ASSERT_EQ(status, 0) << lazyrt_get_last_error();
  // NCCL 2.x codes its version as major * 10000 + minor * 100 + patch.
  EXPECT_EQ(version / 10000, 2) << version;
}

TEST(NcclRuntimeTest, MissingLibraryIsNamed) {
  if (!LAZYC_HAVE_CUDA_H)
    GTEST_SKIP() << "the runtime was built without cuda.h";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("LAZYC_NCCL_LIBRARY", "/nonexistent/libnccl.so.2", 1);
        std::exit(failsSaying(LAZYRT_ALL_REDUCE, DType::Float32, 4));
      },
      ::testing::ExitedWithCode(0),
      "all_reduce of 4 Float32 on cuda:0: NCCL not found \\(tried "
      "/nonexistent/libnccl.so.2; LAZYC_NCCL_LIBRARY names the library "
      "file\\)");
}

TEST(NcclRuntimeTest, MissingDriverIsNamed) {
  if (!LAZYC_HAVE_CUDA_H || !ncclInstalled())
    GTEST_SKIP() << "needs the runtime's CUDA support and NCCL";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("LAZYC_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
        std::exit(failsSaying(LAZYRT_ALL_GATHER, DType::Int32, 2));
      },
      ::testing::ExitedWithCode(0),
      "all_gather of 2 Int32 on cuda:0: the CUDA driver "
      "/nonexistent/libcuda.so.1 \\(named by LAZYC_CUDA_DRIVER\\) could not "
      "be loaded");
}

TEST(NcclRuntimeTest, BadArgumentsFailBeforeTheDevice) {
  // Checked by the world before anything touches a device or NCCL, so the
  // buffers are never read.
  float in[4] = {}, out[4] = {};
  int64_t handle = lazyrt_cuda_collective_start(9, 0, 0, 0, in, out, 4);
  EXPECT_EQ(lazyrt_cuda_collective_wait(handle, in, out), -1);
  std::string error = takeCollectiveError();
  if (LAZYC_HAVE_CUDA_H)
    EXPECT_NE(error.find("unknown collective kind 9"), std::string::npos)
        << error;
  else
    EXPECT_NE(error.find("not built"), std::string::npos) << error;

  // Waiting twice, or on other buffers, is an error too.
  if (!LAZYC_HAVE_CUDA_H)
    return;
  handle = lazyrt_cuda_collective_start(LAZYRT_ALL_REDUCE, LAZYRT_REDUCE_SUM, 0,
                                        0, in, out, 0);
  EXPECT_EQ(lazyrt_cuda_collective_wait(handle, in, in), -1);
  EXPECT_NE(takeCollectiveError().find("started on other buffers"),
            std::string::npos);
  EXPECT_EQ(lazyrt_cuda_collective_wait(handle, in, out), -1);
  EXPECT_NE(takeCollectiveError().find("unknown collective handle"),
            std::string::npos);
  // Nothing to move: no device is needed.
  handle = lazyrt_cuda_collective_start(LAZYRT_ALL_REDUCE, LAZYRT_REDUCE_SUM, 0,
                                        0, in, out, 0);
  EXPECT_EQ(lazyrt_cuda_collective_wait(handle, in, out), 0)
      << takeCollectiveError();
}

class GpuCollectivesTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string whyNot;
    if (!cudaAvailable(0, &whyNot))
      GTEST_SKIP() << "no GPU: " << whyNot;
    if (!ncclInstalled())
      GTEST_SKIP() << "no NCCL library (libnccl.so.2) on this machine";
    distributed::init();
  }

  const Device gpu = Device::cuda();
};

TEST_F(GpuCollectivesTest, EachCollectiveBetweenKernels) {
  const int64_t n = 1 << 16;
  std::vector<float> host = values(n, 2.0f, 3);
  Tensor x = Tensor::fromVector(host, {n}).to(gpu);
  uint64_t before = distributed::stats().collectives;
  // A kernel computes each input; kernels that do not need the result run
  // while the collective is in flight; a kernel reads each output. With one
  // rank every collective is the identity.
  Tensor e = exp(x * 0.5f);
  Tensor reduced = distributed::allReduce(e, distributed::ReduceOp::Sum);
  Tensor mean = distributed::allReduce(e, distributed::ReduceOp::Mean);
  Tensor largest = distributed::allReduce(e, distributed::ReduceOp::Max);
  Tensor root = distributed::broadcast(e, 0);
  Tensor gathered = distributed::allGather(e);
  Tensor scattered = distributed::reduceScatter(e);
  Tensor unrelated = tanh(x);
  Tensor total = sum(reduced * 2.0f) + sum(mean) + sum(largest - root) +
                 sum(gathered) - sum(scattered);
  EXPECT_TRUE(total.device() == gpu);

  double expected = 0;
  for (float v : host)
    expected += 2 * std::exp(0.5 * v) + std::exp(0.5 * v);
  EXPECT_NEAR(total.item<float>(), expected, 1e-4 * expected);
  std::vector<float> tanhs = unrelated.toVector<float>();
  for (int64_t i = 0; i < n; i += 997)
    EXPECT_NEAR(tanhs[i], std::tanh(host[i]), 1e-6) << i;
  std::vector<float> exps = gathered.toVector<float>();
  ASSERT_EQ(exps.size(), static_cast<size_t>(n));
  for (int64_t i = 0; i < n; i += 997)
    EXPECT_NEAR(exps[i], std::exp(0.5 * host[i]), 1e-6 * std::exp(1.0)) << i;
  // Six collectives, five exchanges: the Sum and the Mean all-reduce share
  // a reduction and a dtype, so they travel in one bucket.
  EXPECT_EQ(distributed::stats().collectives - before, 5u);
}

TEST_F(GpuCollectivesTest, IntegerAndDoubleReductions) {
  Tensor ints = Tensor::fromVector<int32_t>({3, -1, 7, 0}, {4}).to(gpu);
  Tensor summed = distributed::allReduce(ints * 2, distributed::ReduceOp::Sum);
  EXPECT_EQ(summed.toVector<int32_t>(), (std::vector<int32_t>{6, -2, 14, 0}));
  Tensor doubles = Tensor::fromVector<double>({0.25, -8}, {2}).to(gpu);
  Tensor smallest =
      distributed::allReduce(doubles - 1.0, distributed::ReduceOp::Min);
  EXPECT_EQ(smallest.toVector<double>(), (std::vector<double>{-0.75, -9}));
}

TEST_F(GpuCollectivesTest, DataParallelSgdOnTheGpu) {
  // Least squares, w of 8: three SGD steps with averaged gradients on the
  // GPU against the same steps in double precision on the host.
  const int64_t rows = 64, cols = 8;
  std::vector<float> a = values(rows * cols, 1.0f, 5),
                     b = values(rows, 1.0f, 6);
  std::vector<float> w0 = values(cols, 0.5f, 7);
  Variable w(Tensor::fromVector(w0, {cols}).to(gpu));
  distributed::DataParallel parallel({&w});
  Tensor inputs = Tensor::fromVector(a, {rows, cols}).to(gpu);
  Tensor targets = Tensor::fromVector(b, {rows}).to(gpu);
  const float rate = 0.1f;
  for (int step = 0; step < 3; ++step) {
    GradientTape tape;
    Tensor residual = matmul(inputs, reshape(w.read(), {cols, 1})) -
                      reshape(targets, {rows, 1});
    Tensor loss = sum(residual * residual) / static_cast<float>(rows);
    std::vector<Tensor> gradients = parallel.averageGradients(
        tape.gradient(loss, std::vector<Variable *>{&w}));
    w.assignSub(gradients[0] * rate);
    lazyc::sync();
  }

  std::vector<double> expected(w0.begin(), w0.end());
  for (int step = 0; step < 3; ++step) {
    std::vector<double> gradient(cols, 0.0);
    for (int64_t r = 0; r < rows; ++r) {
      double residual = -b[r];
      for (int64_t c = 0; c < cols; ++c)
        residual += a[r * cols + c] * expected[c];
      for (int64_t c = 0; c < cols; ++c)
        gradient[c] += 2 * residual * a[r * cols + c] / rows;
    }
    for (int64_t c = 0; c < cols; ++c)
      expected[c] -= rate * gradient[c];
  }
  std::vector<float> actual = w.read().toVector<float>();
  for (int64_t c = 0; c < cols; ++c)
    EXPECT_NEAR(actual[c], expected[c], 1e-4) << c;
}

} // namespace
