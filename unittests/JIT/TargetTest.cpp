//===- TargetTest.cpp - Targets, stages and structured compile errors -----===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The target seam: each device kind has its target; the CPU target runs the
// CPU pipeline's stages in the documented order and allocates from the
// runtime; the GPU target runs the GPU pipeline's, says why a device cannot
// be used, and (with a GPU) compiles, loads and runs a trace; a failed stage
// is a CompileError carrying the stage and each diagnostic's location.
//
//===----------------------------------------------------------------------===//

#include "lazyc/JIT/Target.h"
#include "lazyc/InitAll.h"
#include "lazyc/Runtime/Cuda.h"
#include "lazyc/Runtime/Runtime.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <string>
#include <vector>

using namespace mlir;
using namespace lazyc;
using namespace lazyc::jit;

namespace {

class TargetTest : public ::testing::Test {
protected:
  TargetTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Parses `source` without verifying it (so that invalid IR reaches the
  /// JIT).
  OwningOpRef<ModuleOp> parse(llvm::StringRef source) {
    ParserConfig config(&context, /*verifyAfterParse=*/false);
    return parseSourceString<ModuleOp>(source, config);
  }

  MLIRContext context;
};

constexpr const char *kScale = R"mlir(
  func.func @scale(%x: tensor<4xf32>) -> tensor<4xf32> {
    %c = lazy.constant dense<3.0> : tensor<4xf32>
    %y = lazy.mul %x, %c : tensor<4xf32>
    return %y : tensor<4xf32>
  }
)mlir";

} // namespace

TEST_F(TargetTest, EachKindHasItsTarget) {
  EXPECT_EQ(targetFor(Device::Kind::CPU).kind(), Device::Kind::CPU);
  EXPECT_EQ(targetFor(Device::Kind::CUDA).kind(), Device::Kind::CUDA);
  EXPECT_STREQ(cpuTarget().name(), "cpu");
  EXPECT_STREQ(cudaTarget().name(), "cuda");
}

TEST_F(TargetTest, CpuStagesAreThePipelineInOrder) {
  std::vector<std::string> names(cpuTarget().stageNames().begin(),
                                 cpuTarget().stageNames().end());
  EXPECT_EQ(names, (std::vector<std::string>{"lower to linalg", "fuse",
                                             "tile and vectorize", "bufferize",
                                             "lower to LLVM"}));
}

TEST_F(TargetTest, CpuTargetCompilesRunsAndAllocates) {
  std::string whyNot;
  EXPECT_TRUE(cpuTarget().isAvailable(Device::cpu(), whyNot));
  OwningOpRef<ModuleOp> module = parse(kScale);
  ASSERT_TRUE(module);
  auto compiled = cpuTarget().compile(*module, "scale", Device::cpu());
  ASSERT_TRUE(bool(compiled)) << llvm::toString(compiled.takeError());

  DeviceAllocator &allocator = cpuTarget().allocator(Device::cpu());
  auto *in = static_cast<float *>(allocator.allocate(4 * sizeof(float)));
  auto *out = static_cast<float *>(allocator.allocate(4 * sizeof(float)));
  ASSERT_TRUE(in && out);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(in) % LAZYRT_ALIGNMENT, 0u);
  const float host[4] = {1, -2, 0.5f, 4};
  llvm::cantFail(
      cpuTarget().copyFromHost(Device::cpu(), in, host, sizeof(host)));
  int64_t shape[] = {4};
  llvm::cantFail((*compiled)->call({{in, shape}}, {{out, shape}}));
  llvm::cantFail(cpuTarget().synchronize(Device::cpu()));
  float result[4];
  llvm::cantFail(
      cpuTarget().copyToHost(Device::cpu(), result, out, sizeof(result)));
  EXPECT_EQ(std::vector<float>(result, result + 4),
            (std::vector<float>{3, -6, 1.5f, 12}));
  allocator.deallocate(in);
  allocator.deallocate(out);
}

TEST_F(TargetTest, GpuStagesAreThePipelineInOrder) {
  std::vector<std::string> names(cudaTarget().stageNames().begin(),
                                 cudaTarget().stageNames().end());
  EXPECT_EQ(names, (std::vector<std::string>{"lower to linalg", "fuse",
                                             "bufferize", "map to kernels",
                                             "lower to PTX and LLVM"}));
}

TEST_F(TargetTest, AMissingGpuSaysWhy) {
  // No machine has a GPU 99: the reason names the device, and (without a
  // driver) the driver that is missing.
  std::string whyNot;
  EXPECT_FALSE(cudaTarget().isAvailable(Device::cuda(99), whyNot));
  EXPECT_NE(whyNot.find("cuda:99"), std::string::npos) << whyNot;
  if (lazyrt_cuda_device_count() < 0)
    EXPECT_NE(whyNot.find("libcuda.so.1"), std::string::npos) << whyNot;
  else
    EXPECT_NE(whyNot.find("no CUDA device 99"), std::string::npos) << whyNot;
}

TEST_F(TargetTest, GpuCodeWithoutADriverFailsToLoadWithTheReason) {
  if (lazyrt_cuda_device_count() >= 0)
    GTEST_SKIP() << "a CUDA driver is present: loading succeeds "
                    "(GpuTargetCompilesRunsAndAllocates)";
  // Compiling needs no GPU; loading the kernels needs the driver.
  OwningOpRef<ModuleOp> module = parse(kScale);
  ASSERT_TRUE(module);
  auto compiled = cudaTarget().compile(*module, "scale", Device::cuda());
  ASSERT_FALSE(bool(compiled));
  std::string message = llvm::toString(compiled.takeError());
  EXPECT_NE(message.find("cuda:0"), std::string::npos) << message;
  EXPECT_NE(message.find("libcuda.so.1"), std::string::npos) << message;
  EXPECT_EQ(cudaTarget().allocator(Device::cuda()).allocate(64), nullptr);
}

TEST_F(TargetTest, GpuTargetCompilesRunsAndAllocates) {
  std::string whyNot;
  if (!cudaTarget().isAvailable(Device::cuda(), whyNot))
    GTEST_SKIP() << "no GPU: " << whyNot;
  OwningOpRef<ModuleOp> module = parse(kScale);
  ASSERT_TRUE(module);
  auto compiled = cudaTarget().compile(*module, "scale", Device::cuda());
  ASSERT_TRUE(bool(compiled)) << llvm::toString(compiled.takeError());

  DeviceAllocator &allocator = cudaTarget().allocator(Device::cuda());
  void *in = allocator.allocate(4 * sizeof(float));
  void *out = allocator.allocate(4 * sizeof(float));
  ASSERT_TRUE(in && out) << lazyrt_get_last_error();
  const float host[4] = {1, -2, 0.5f, 4};
  llvm::cantFail(
      cudaTarget().copyFromHost(Device::cuda(), in, host, sizeof(host)));
  int64_t shape[] = {4};
  llvm::cantFail((*compiled)->call({{in, shape}}, {{out, shape}}));
  llvm::cantFail(cudaTarget().synchronize(Device::cuda()));
  float result[4];
  llvm::cantFail(
      cudaTarget().copyToHost(Device::cuda(), result, out, sizeof(result)));
  EXPECT_EQ(std::vector<float>(result, result + 4),
            (std::vector<float>{3, -6, 1.5f, 12}));
  allocator.deallocate(in);
  allocator.deallocate(out);
}

TEST_F(TargetTest, AFailedStageIsAStructuredError) {
  // The return does not match the signature: the input does not verify.
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    func.func @bad(%a: tensor<4xf32>) -> tensor<8xf32> {
      return %a : tensor<4xf32>
    }
  )mlir");
  ASSERT_TRUE(module);
  auto compiled = CompiledFunction::compile(*module, "bad");
  ASSERT_FALSE(bool(compiled));
  bool structured = false;
  llvm::handleAllErrors(
      compiled.takeError(),
      [&](const CompileError &error) {
        structured = true;
        EXPECT_EQ(error.stage, "verify the input");
        ASSERT_EQ(error.diagnostics.size(), 1u);
        EXPECT_NE(error.diagnostics[0].message.find(
                      "doesn't match function result type"),
                  std::string::npos)
            << error.diagnostics[0].message;
        // The location is the return's: line 3 of the parsed string.
        auto at = dyn_cast<FileLineColLoc>(error.diagnostics[0].location);
        ASSERT_TRUE(at);
        EXPECT_EQ(at.getLine(), 3u);
        // Printed, it reads as before the errors were structured.
        std::string text;
        llvm::raw_string_ostream os(text);
        error.log(os);
        EXPECT_EQ(text.rfind("lazyc JIT: the 'verify the input' stage "
                             "failed:\n  ",
                             0),
                  0u)
            << text;
      },
      [&](const llvm::ErrorInfoBase &other) {
        ADD_FAILURE() << "not a CompileError: " << other.message();
      });
  EXPECT_TRUE(structured);
}
