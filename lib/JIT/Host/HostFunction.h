//===- HostFunction.h - Host code: LLVM and ORC's JIT -----------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A trace whose target lowered it to the LLVM dialect, compiled for the host
// CPU and loaded into its own LLJIT: the whole trace on the CPU target, the
// host code that launches the kernels on the GPU target. Targets derive
// from HostFunction to check their runtime around each call.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_LIB_JIT_HOST_HOSTFUNCTION_H
#define LAZYC_LIB_JIT_HOST_HOSTFUNCTION_H

#include "lazyc/JIT/CompiledFunction.h"

#include "llvm/Support/MemoryBuffer.h"

#include <functional>
#include <memory>
#include <string>

namespace llvm::orc {
class JITTargetMachineBuilder;
class LLJIT;
} // namespace llvm::orc

namespace lazyc::jit {

/// How a target lowers a trace to host code.
struct HostLowering {
  /// Runs the target's pipeline: `lazy` dialect to the LLVM dialect,
  /// adding its stages to the stats' phases.
  std::function<llvm::Error(mlir::ModuleOp, CompileStats &)> lower;
  /// Everything besides the trace and the host CPU that the generated code
  /// depends on (pipeline options, the device's architecture), for the
  /// persistent compile cache's key.
  std::string cacheKeyOptions;
};

class HostFunction : public CompiledFunction {
public:
  // Out of line: LLJIT is incomplete here.
  HostFunction();
  ~HostFunction() override;

  /// Lowers function `name` of `module` with `lowering` (or finds its code
  /// in the persistent compile cache), compiles it and loads it into
  /// `compiled`, which is returned.
  static llvm::Expected<std::unique_ptr<CompiledFunction>>
  compile(std::unique_ptr<HostFunction> compiled, mlir::ModuleOp module,
          llvm::StringRef name, const HostLowering &lowering);

  llvm::Error call(llvm::ArrayRef<BufferView> inputs,
                   llvm::ArrayRef<BufferView> outputs) const final;

protected:
  /// Before and after each call of the generated code, and around its
  /// static initializers when it is loaded: a target prepares its runtime
  /// and collects the errors the code reported to it.
  virtual llvm::Error beforeCall() const { return llvm::Error::success(); }
  virtual llvm::Error afterCall() const { return llvm::Error::success(); }

private:
  /// Links `objects` into a new LLJIT and finds their `wrapperName`.
  llvm::Error
  load(llvm::orc::JITTargetMachineBuilder host,
       llvm::MutableArrayRef<std::unique_ptr<llvm::MemoryBuffer>> objects,
       llvm::StringRef wrapperName);

  std::unique_ptr<llvm::orc::LLJIT> jit;
  void (*entry)(void **) = nullptr;
  /// Runs the code's static finalizers, if it has any.
  void (*finalize)() = nullptr;
};

} // namespace lazyc::jit

#endif // LAZYC_LIB_JIT_HOST_HOSTFUNCTION_H
