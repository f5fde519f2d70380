//===- DeviceTest.cpp - Devices, the default device, the GPU seam ---------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Devices as the API shows them: names, the per-thread default device,
// where results live, operands on two devices, and a GPU that cannot be
// used (cuda:99, on every machine): every way to put work on it is a
// lazyc::Error at the user's line saying why. Tests that need a value on
// the GPU make one white-box (a CPU value whose node claims the GPU).
//
//===----------------------------------------------------------------------===//

#include "lazyc/lazyc.h"

#include "Engine/Explain.h"
#include "lazyc/API/NodeAccess.h"
#include "lazyc/Trace/Trace.h"

#include "ExpectError.h"

#include "gtest/gtest.h"

#include <functional>
#include <thread>

using namespace lazyc;

namespace {

using lazyc::test::expectError;

/// A pending value whose graph claims to live on `device` (white-box: the
/// API cannot put values on the GPU yet). `x * 2 + 1` recorded at `line`.
Tensor pendingOn(Device device, unsigned &line) {
  Tensor x = Tensor::fromVector<float>({1, 2, 3}, {3});
  const trace::NodePtr &leaf = detail::TensorAccess::node(x);
  leaf->device = device;
  // clang-format off
  line = __LINE__; Tensor y = x * 2.0f + 1.0f;
  // clang-format on
  return y;
}

/// No machine has it: the GPU target says why it cannot be used (no driver,
/// or no such device).
constexpr Device kMissingGpu = Device::cuda(99);
constexpr const char *kUnavailable = "cannot run on cuda:99";

} // namespace

TEST(DeviceTest, NamesAndEquality) {
  EXPECT_EQ(Device::cpu().str(), "cpu");
  EXPECT_EQ(Device::cuda().str(), "cuda:0");
  EXPECT_EQ(Device::cuda(3).str(), "cuda:3");
  EXPECT_EQ(Device::cuda(3).index(), 3);
  EXPECT_EQ(Device::cuda(3).kind(), Device::Kind::CUDA);
  EXPECT_TRUE(Device() == Device::cpu());
  EXPECT_FALSE(Device::cuda(0) == Device::cuda(1));
  EXPECT_FALSE(Device::cuda(0) == Device::cpu());
  EXPECT_EQ(sizeof(Device), 4u); // Every node carries one.
}

TEST(DeviceTest, ResultsLiveOnTheCpuByDefault) {
  EXPECT_TRUE(defaultDevice() == Device::cpu());
  Tensor x = Tensor::fromVector<float>({1, 2}, {2});
  Tensor y = exp(x) + zeros({2});
  EXPECT_TRUE(x.device() == Device::cpu());
  EXPECT_TRUE(y.device() == Device::cpu());
  EXPECT_EQ((y * 0.0f).toVector<float>(), (std::vector<float>{0, 0}));
}

TEST(DeviceTest, ScopesNestAndRestore) {
  {
    DeviceScope outer(Device::cuda(1));
    EXPECT_TRUE(defaultDevice() == Device::cuda(1));
    {
      DeviceScope inner(Device::cpu());
      EXPECT_TRUE(defaultDevice() == Device::cpu());
      // CPU work inside a GPU scope's inner CPU scope runs as usual.
      EXPECT_EQ(full({2}, 3.0f).toVector<float>(), (std::vector<float>{3, 3}));
    }
    EXPECT_TRUE(defaultDevice() == Device::cuda(1));
  }
  EXPECT_TRUE(defaultDevice() == Device::cpu());
}

TEST(DeviceTest, ScopesArePerThread) {
  DeviceScope scope(Device::cuda());
  Device seen = Device::cuda(7);
  std::thread([&] { seen = defaultDevice(); }).join();
  EXPECT_TRUE(seen == Device::cpu());
}

TEST(DeviceTest, CreatingOnAMissingGpuSaysWhy) {
  DeviceScope scope(kMissingGpu);
  expectError(
      [](unsigned &line) {
        // clang-format off
    line = __LINE__; Tensor z = zeros({8});
        // clang-format on
      },
      "full", kUnavailable);
  expectError(
      [](unsigned &line) {
        // clang-format off
    line = __LINE__; Tensor r = randomUniform({4}, 0.0, 1.0, /*seed=*/1);
        // clang-format on
      },
      "randomUniform", kUnavailable);
  expectError(
      [](unsigned &line) {
        // clang-format off
    line = __LINE__; Tensor v = Tensor::fromVector<float>({1, 2}, {2});
        // clang-format on
      },
      "fromVector", kUnavailable);
  expectError(
      [](unsigned &line) {
        // clang-format off
    line = __LINE__; Tensor a = arange(0, 4, 1);
        // clang-format on
      },
      "arange", kUnavailable);
  // The message names the device.
  try {
    DeviceScope second(Device::cuda(2));
    Tensor z = ones({2});
    FAIL() << "no error";
  } catch (const Error &error) {
    EXPECT_NE(std::string(error.what()).find("cuda:2"), std::string::npos)
        << error.what();
  }
}

TEST(DeviceTest, ATraceOnAMissingGpuSaysWhy) {
  // The trace is cut and sent to the GPU target, which reports at the line
  // that made the value.
  expectError(
      [](unsigned &line) {
        Tensor y = pendingOn(kMissingGpu, line);
        EXPECT_TRUE(y.device() == kMissingGpu);
        (void)y.toVector<float>();
      },
      "add", kUnavailable);
  // In eager mode, at the first op that runs: the scalar's broadcast (eager
  // scalars are rank 0).
  expectError(
      [](unsigned &line) {
        EagerScope eager;
        Tensor y = pendingOn(kMissingGpu, line);
      },
      "broadcastTo", kUnavailable);
}

TEST(DeviceTest, SyncComputesEachDeviceOnItsOwn) {
  // A CPU value and a GPU value pending together: the CPU trace runs, the
  // GPU one reports, and the CPU value is computed.
  Tensor cpu = Tensor::fromVector<float>({1, 2}, {2}) * 3.0f;
  unsigned line = 0;
  Tensor gpu = pendingOn(kMissingGpu, line);
  EXPECT_THROW(lazyc::sync(), Error);
  EXPECT_TRUE(cpu.isMaterialized());
  EXPECT_EQ(cpu.toVector<float>(), (std::vector<float>{3, 6}));
  EXPECT_FALSE(gpu.isMaterialized());
}

TEST(DeviceTest, OperandsOnTwoDevicesAreAnError) {
  Tensor onCpu = Tensor::fromVector<float>({1, 2, 3}, {3});
  unsigned made = 0;
  Tensor onGpu = pendingOn(Device::cuda(), made);
  expectError(
      [&](unsigned &line) {
        // clang-format off
    line = __LINE__; Tensor sum = onCpu + onGpu;
        // clang-format on
      },
      "add", "operands live on different devices, cpu and cuda:0");
  expectError(
      [&](unsigned &line) {
        // clang-format off
    line = __LINE__; Tensor product = matmul(reshape(onGpu, {1, 3}), reshape(onCpu, {3, 1}));
        // clang-format on
      },
      "matmul", "cuda:0 and cpu");
  expectError(
      [&](unsigned &line) {
        // clang-format off
    line = __LINE__; Tensor chosen = where(onCpu > 1.0f, onCpu, onGpu);
        // clang-format on
      },
      "where", "different devices");
  expectError(
      [&](unsigned &line) {
        // clang-format off
    line = __LINE__; Tensor joined = concat({onCpu, onGpu}, 0);
        // clang-format on
      },
      "concat", "different devices");
  // A scalar operand goes where its tensor is.
  Tensor scaled = onGpu * 2.0f;
  EXPECT_TRUE(scaled.device() == Device::cuda());
  const trace::NodePtr &node = detail::TensorAccess::node(scaled);
  for (const trace::NodePtr &input : node->inputs)
    EXPECT_TRUE(input->device == Device::cuda());
}

TEST(DeviceTest, TheDeviceIsPartOfTheTraceKey) {
  // The same program on two devices: different signatures and keys, so a
  // function compiled for one never runs on the other.
  unsigned line = 0;
  Tensor onCpu = pendingOn(Device::cpu(), line);
  Tensor onGpu = pendingOn(Device::cuda(), line);
  Tensor onGpu1 = pendingOn(Device::cuda(1), line);
  trace::Trace a =
      trace::extractTrace({detail::TensorAccess::node(onCpu).get()});
  trace::Trace b =
      trace::extractTrace({detail::TensorAccess::node(onGpu).get()});
  trace::Trace c =
      trace::extractTrace({detail::TensorAccess::node(onGpu1).get()});
  EXPECT_TRUE(a.device == Device::cpu());
  EXPECT_TRUE(b.device == Device::cuda());
  EXPECT_EQ(a.nodes.size(), b.nodes.size());
  EXPECT_NE(a.signature, b.signature);
  EXPECT_NE(a.key, b.key);
  EXPECT_NE(b.key, c.key);
  // ... and equal programs on one device still share a key.
  Tensor again = pendingOn(Device::cuda(), line);
  EXPECT_EQ(trace::extractTrace({detail::TensorAccess::node(again).get()}).key,
            b.key);
}

TEST(DeviceTest, AnExplainedMissNamesTheDevice) {
  unsigned line = 0;
  Tensor onCpu = pendingOn(Device::cpu(), line);
  Tensor onGpu = pendingOn(Device::cuda(), line);
  explain::TraceSummary cached = explain::summarize(
      trace::extractTrace({detail::TensorAccess::node(onCpu).get()}));
  explain::TraceSummary now = explain::summarize(
      trace::extractTrace({detail::TensorAccess::node(onGpu).get()}));
  std::string why = explain::structuralMiss(now, {&cached}, false);
  // The first node, the argument, differs.
  EXPECT_NE(why.find("lives on cuda:0, the cached one on cpu"),
            std::string::npos)
      << why;
}

TEST(DeviceTest, CudaAvailabilityIsAskedWithoutNamingADevice) {
  std::string whyNot;
  EXPECT_FALSE(cudaAvailable(99, &whyNot));
  EXPECT_NE(whyNot.find("cuda:99"), std::string::npos) << whyNot;
  EXPECT_FALSE(cudaAvailable(99));
  EXPECT_GE(cudaDeviceCount(), 0);
  EXPECT_EQ(cudaAvailable(0), cudaDeviceCount() > 0);
}

TEST(DeviceTest, ToAMissingGpuSaysWhyAtTheUsersLine) {
  Tensor x = Tensor::fromVector<float>({1, 2, 3}, {3});
  EXPECT_TRUE(x.to(Device::cpu()).device() == Device::cpu());
  expectError(
      [&](unsigned &line) {
        // clang-format off
    line = __LINE__; Tensor y = x.to(kMissingGpu);
        // clang-format on
      },
      "to", kUnavailable);
}
