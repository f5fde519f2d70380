//===- CudaTarget.cpp - The NVIDIA GPU target (not built yet) -------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the GPU target as it stands: the seam exists (a
// trace on `Device::cuda()` compiles through here, its buffers would come
// from here), the backend does not. Every entry point says so, the way
// MLX's `backend/no_gpu` does, so a program that names the GPU gets a clear
// error instead of silently running elsewhere. The NVPTX pipeline, the CUDA
// runtime and cuBLAS replace this file's bodies (docs/Architecture.md).
//
//===----------------------------------------------------------------------===//

#include "lazyc/JIT/Target.h"

#include "mlir/IR/BuiltinOps.h"

using namespace lazyc;
using namespace lazyc::jit;

namespace {

std::string notBuilt(Device device) {
  return "the GPU backend is not built: lazyc cannot compile for or "
         "allocate on " +
         device.str() + " yet (no NVPTX code generation, no CUDA runtime)";
}

/// Hands out nothing: there is no device memory to hand out.
class NoDeviceAllocator final : public DeviceAllocator {
public:
  void *allocate(size_t) override { return nullptr; }
  void deallocate(void *) override {}
};

class CudaTarget final : public Target {
public:
  Device::Kind kind() const override { return Device::Kind::CUDA; }

  bool isAvailable(Device device, std::string &whyNot) const override {
    whyNot = notBuilt(device);
    return false;
  }

  llvm::ArrayRef<const char *> stageNames() const override { return {}; }

  llvm::Expected<std::unique_ptr<CompiledFunction>>
  compile(mlir::ModuleOp, llvm::StringRef) const override {
    return llvm::createStringError("lazyc JIT: " + notBuilt(Device::cuda()));
  }

  DeviceAllocator &allocator(Device) const override {
    static NoDeviceAllocator none;
    return none;
  }

  llvm::Error copyFromHost(Device device, void *, const void *,
                           size_t) const override {
    return llvm::createStringError(notBuilt(device));
  }
  llvm::Error copyToHost(Device device, void *, const void *,
                         size_t) const override {
    return llvm::createStringError(notBuilt(device));
  }
  llvm::Error synchronize(Device device) const override {
    return llvm::createStringError(notBuilt(device));
  }
};

} // namespace

const Target &jit::cudaTarget() {
  static const CudaTarget target;
  return target;
}
