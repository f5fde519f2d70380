//===- TargetTest.cpp - Targets, stages and structured compile errors -----===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The target seam: each device kind has its target; the CPU target runs the
// CPU pipeline's stages in the documented order and allocates from the
// runtime; the GPU target is a stub that says, at every entry point, that
// the backend is not built; a failed stage is a CompileError carrying the
// stage and each diagnostic's location.
//
//===----------------------------------------------------------------------===//

#include "lazyc/JIT/Target.h"
#include "lazyc/InitAll.h"
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
  auto compiled = cpuTarget().compile(*module, "scale");
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

TEST_F(TargetTest, GpuStubSaysTheBackendIsNotBuilt) {
  const Target &gpu = cudaTarget();
  std::string whyNot;
  EXPECT_FALSE(gpu.isAvailable(Device::cuda(1), whyNot));
  EXPECT_NE(whyNot.find("the GPU backend is not built"), std::string::npos)
      << whyNot;
  EXPECT_NE(whyNot.find("cuda:1"), std::string::npos) << whyNot;
  EXPECT_TRUE(gpu.stageNames().empty());

  OwningOpRef<ModuleOp> module = parse(kScale);
  ASSERT_TRUE(module);
  auto compiled = CompiledFunction::compile(*module, "scale", gpu);
  ASSERT_FALSE(bool(compiled));
  std::string message = llvm::toString(compiled.takeError());
  EXPECT_NE(message.find("the GPU backend is not built"), std::string::npos)
      << message;

  EXPECT_EQ(gpu.allocator(Device::cuda()).allocate(64), nullptr);
  float host[1] = {1};
  auto expectNotBuilt = [](llvm::Error error) {
    std::string text = llvm::toString(std::move(error));
    EXPECT_NE(text.find("not built"), std::string::npos) << text;
  };
  expectNotBuilt(gpu.copyFromHost(Device::cuda(), nullptr, host, 4));
  expectNotBuilt(gpu.copyToHost(Device::cuda(), host, nullptr, 4));
  expectNotBuilt(gpu.synchronize(Device::cuda()));
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
