//===- CudaTarget.cpp - The NVIDIA GPU target -----------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the GPU target: the GPU pipeline (kernels as PTX for
// the device's compute capability, a host function that launches them),
// the host function compiled by the host JIT (HostFunction.h), and the
// runtime's CUDA devices (lazyc/Runtime/Cuda.h: the driver loaded at run
// time, one stream and a caching allocator per device). Compiling needs no
// GPU; loading the kernels does.
//
//===----------------------------------------------------------------------===//

#include "../Host/HostFunction.h"
#include "../Stages.h"
#include "lazyc/JIT/Target.h"
#include "lazyc/Pipelines/Pipelines.h"
#include "lazyc/Runtime/Cuda.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>

using namespace mlir;
using namespace lazyc;
using namespace lazyc::jit;

/// The runtime's last error as an llvm::Error, prefixed with `what`.
static llvm::Error runtimeError(const std::string &what) {
  const char *why = lazyrt_get_last_error();
  return llvm::createStringError(what + ": " +
                                 (why ? why : "no reason was recorded"));
}

/// The GPU architecture of `device`, "sm_90"; sm_90 (H100, H200) when the
/// device cannot be asked (compiling needs no GPU).
static std::string chipOf(Device device) {
  int32_t major = 0, minor = 0;
  if (lazyrt_cuda_available(device.index(), nullptr, 0) &&
      lazyrt_cuda_compute_capability(device.index(), &major, &minor) == 0)
    return "sm_" + std::to_string(major) + std::to_string(minor);
  return "sm_90";
}

namespace {

/// A trace compiled by the GPU pipeline: host code that launches kernels on
/// one device's stream. Loading it loads the kernels into the device's
/// context; each call queues them and waits for the stream.
class CudaFunction final : public HostFunction {
public:
  explicit CudaFunction(Device device) : device(device) {}

protected:
  llvm::Error beforeCall() const override {
    lazyrt_cuda_set_current_device(device.index());
    return llvm::Error::success();
  }
  llvm::Error afterCall() const override {
    if (const char *failure = lazyrt_take_cuda_error())
      return llvm::createStringError("lazyc: the GPU code failed on " +
                                     device.str() + ": " + failure);
    return llvm::Error::success();
  }

private:
  Device device;
};

class CudaTarget final : public Target {
public:
  Device::Kind kind() const override { return Device::Kind::CUDA; }

  bool isAvailable(Device device, std::string &whyNot) const override {
    char why[512] = "";
    if (lazyrt_cuda_available(device.index(), why, sizeof(why)))
      return true;
    whyNot = "cannot run on " + device.str() + ": " + why;
    return false;
  }

  llvm::ArrayRef<const char *> stageNames() const override {
    static const llvm::SmallVector<const char *> names = [] {
      llvm::SmallVector<const char *> titles;
      for (const auto &stage : gpuPipelineStages())
        titles.push_back(stage.title);
      return titles;
    }();
    return names;
  }

  llvm::Expected<std::unique_ptr<CompiledFunction>>
  compile(ModuleOp module, llvm::StringRef name, Device device) const override {
    auto options = std::make_shared<GpuPipelineOptions>();
    options->chip = chipOf(device);
    HostLowering lowering;
    lowering.lower = [options](ModuleOp module, CompileStats &stats) {
      return runPipeline(module, gpuPipelineStages(), *options, stats);
    };
    llvm::raw_string_ostream key(lowering.cacheKeyOptions);
    key << "cuda ";
    options->print(key);
    // The pipeline links the toolkit's libdevice into the kernels.
    key << " libdevice=" << findLibdevice();
    return HostFunction::compile(std::make_unique<CudaFunction>(device), module,
                                 name, lowering);
  }

  DeviceAllocator &allocator(Device device) const override {
    return cudaAllocator(device.index());
  }

  llvm::Error copyFromHost(Device device, void *to, const void *from,
                           size_t bytes) const override {
    if (lazyrt_cuda_copy_to_device(device.index(), to, from, bytes) != 0)
      return runtimeError("lazyc: copying " + std::to_string(bytes) +
                          " bytes to " + device.str() + " failed");
    return llvm::Error::success();
  }
  llvm::Error copyToHost(Device device, void *to, const void *from,
                         size_t bytes) const override {
    if (lazyrt_cuda_copy_to_host(device.index(), to, from, bytes) != 0)
      return runtimeError("lazyc: copying " + std::to_string(bytes) +
                          " bytes from " + device.str() + " failed");
    return llvm::Error::success();
  }
  llvm::Error synchronize(Device device) const override {
    if (lazyrt_cuda_synchronize(device.index()) != 0)
      return runtimeError("lazyc: waiting for " + device.str() + " failed");
    return llvm::Error::success();
  }
};

} // namespace

const Target &jit::cudaTarget() {
  static const CudaTarget target;
  return target;
}
