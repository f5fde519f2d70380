//===- Target.h - A device lazyc compiles for -------------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares Target: everything lazyc needs to run traces on one
// kind of device, bundled (as tinygrad's Compiled or MLX's backend
// interface): the named stages of its pipeline, the code generator and
// loader that turn a lowered module into a CompiledFunction (with the
// runtime symbols its code calls), the allocator of its buffers, and the
// stream its work is ordered on. The API above sees devices only through
// this interface; a second device is a sibling Target, not a special case.
//
//   Device::Kind::CPU   cpuTarget()   lib/JIT/CPU/   (LLVM, ORC JIT)
//   Device::Kind::CUDA  cudaTarget()  lib/JIT/GPU/   (NVPTX kernels, host
//                                                     code on ORC JIT)
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_JIT_TARGET_H
#define LAZYC_JIT_TARGET_H

#include "lazyc/JIT/CompiledFunction.h"
#include "lazyc/Runtime/Device.h"

#include <cstddef>
#include <string>

namespace lazyc::jit {

class Target {
public:
  virtual ~Target() = default;

  /// The kind of device this target compiles for.
  virtual Device::Kind kind() const = 0;
  /// "cpu", "cuda".
  const char *name() const { return Device::kindName(kind()); }

  /// Whether traces can run on `device` (of this kind) in this process;
  /// if not, `whyNot` says why, in a sentence for the user ("the GPU
  /// backend is not built ...", "no CUDA device 3 ...").
  virtual bool isAvailable(Device device, std::string &whyNot) const = 0;

  /// The pipeline stages a compile runs, in order, by the names errors
  /// give them ("lower to linalg", "fuse", ...). Each is also a lazyc-opt
  /// pipeline (lib/Pipelines).
  virtual llvm::ArrayRef<const char *> stageNames() const = 0;

  /// Compiles function `name` of `module` (`lazy` dialect on tensors) to run
  /// on `device` (of this kind); the module is lowered in place. See
  /// CompiledFunction::compile.
  virtual llvm::Expected<std::unique_ptr<CompiledFunction>>
  compile(mlir::ModuleOp module, llvm::StringRef name, Device device) const = 0;

  /// The allocator of buffers on `device`.
  virtual DeviceAllocator &allocator(Device device) const = 0;

  /// Copies between host memory and a buffer of `device`, ordered after
  /// the work already issued on its stream; returns when the copy is done.
  virtual llvm::Error copyFromHost(Device device, void *to, const void *from,
                                   size_t bytes) const = 0;
  virtual llvm::Error copyToHost(Device device, void *to, const void *from,
                                 size_t bytes) const = 0;

  /// Waits until the work issued on `device`'s stream is done (calls on the
  /// CPU run to completion: there is nothing to wait for).
  virtual llvm::Error synchronize(Device device) const = 0;
};

/// The CPU target (always available).
const Target &cpuTarget();

/// The threads the CPU target splits loop nests for: the cores of this
/// machine unless set (lazyc::setNumThreads). Part of the disk cache's key.
int cpuThreads();
void setCpuThreads(int threads);
/// The NVIDIA GPU target.
const Target &cudaTarget();
/// The target of `kind`.
const Target &targetFor(Device::Kind kind);

} // namespace lazyc::jit

#endif // LAZYC_JIT_TARGET_H
