//===- CpuTarget.cpp - The CPU target -------------------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the CPU target: the CPU pipeline, stage by stage,
// then the host JIT (HostFunction.h). Buffers come from the runtime's
// caching allocator; calls run to completion on the calling thread (and
// OpenMP's), so there is no stream to wait for.
//
//===----------------------------------------------------------------------===//

#include "../Host/HostFunction.h"
#include "../Stages.h"
#include "lazyc/JIT/Target.h"
#include "lazyc/Pipelines/Pipelines.h"
#include "lazyc/Runtime/Runtime.h"

#include "mlir/IR/BuiltinOps.h"

#include "llvm/TargetParser/Host.h"

#include <atomic>
#include <cstring>
#include <memory>
#include <thread>

using namespace mlir;
using namespace lazyc;
using namespace lazyc::jit;

namespace {

/// 0: one per core.
std::atomic<int> requestedThreads{0};

} // namespace

int jit::cpuThreads() {
  int requested = requestedThreads.load();
  return requested > 0 ? requested
                       : int(std::max(1u, std::thread::hardware_concurrency()));
}

void jit::setCpuThreads(int threads) { requestedThreads = threads; }

/// Whether this CPU scales by powers of two in one instruction (vscalefps).
static bool hasAvx512() {
  static const bool has = llvm::sys::getHostCPUFeatures().lookup("avx512f");
  return has;
}

static llvm::Expected<std::unique_ptr<CompiledFunction>>
compileForCpu(ModuleOp module, llvm::StringRef name) {
  // The defaults (lazyc-opt takes others), the loops split for the threads.
  auto options = std::make_shared<CpuPipelineOptions>();
  options->numThreads = cpuThreads();
  options->scaleInHardware = hasAvx512();
  // bf16 convolutions on the dot products where bf16 products run on them.
  options->bf16DotConvolutions =
      std::strcmp(lazyrt_bf16_gemm_kernel(), "avx512-bf16") == 0;
  HostLowering lowering;
  lowering.lower = [options](ModuleOp module, CompileStats &stats) {
    return runPipeline(module, cpuPipelineStages(), *options, stats);
  };
  llvm::raw_string_ostream key(lowering.cacheKeyOptions);
  key << "-O3 threads=" << cpuThreads() << " ";
  options->print(key);
  // All of the code runs on the host: no runtime to prepare or check.
  return HostFunction::compile(std::make_unique<HostFunction>(), module, name,
                               lowering);
}

//===----------------------------------------------------------------------===//
// The target
//===----------------------------------------------------------------------===//

namespace {
class CpuTarget final : public Target {
public:
  Device::Kind kind() const override { return Device::Kind::CPU; }

  bool isAvailable(Device device, std::string &whyNot) const override {
    if (device.index() == 0)
      return true;
    whyNot = "there is one CPU device, cpu (index 0), not index " +
             std::to_string(device.index());
    return false;
  }

  llvm::ArrayRef<const char *> stageNames() const override {
    static const llvm::SmallVector<const char *> names = [] {
      llvm::SmallVector<const char *> titles;
      for (const auto &stage : cpuPipelineStages())
        titles.push_back(stage.title);
      return titles;
    }();
    return names;
  }

  llvm::Expected<std::unique_ptr<CompiledFunction>>
  compile(ModuleOp module, llvm::StringRef name, Device) const override {
    return compileForCpu(module, name);
  }

  DeviceAllocator &allocator(Device) const override { return cpuAllocator(); }

  llvm::Error copyFromHost(Device, void *to, const void *from,
                           size_t bytes) const override {
    if (bytes)
      std::memcpy(to, from, bytes);
    return llvm::Error::success();
  }
  llvm::Error copyToHost(Device, void *to, const void *from,
                         size_t bytes) const override {
    if (bytes)
      std::memcpy(to, from, bytes);
    return llvm::Error::success();
  }

  llvm::Error synchronize(Device) const override {
    return llvm::Error::success();
  }
};
} // namespace

const Target &jit::cpuTarget() {
  static const CpuTarget target;
  return target;
}
