//===- CompiledFunction.h - A lazy function JIT-compiled for the CPU -*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares CompiledFunction: a function of a `lazy` dialect module
// compiled once for the host CPU and then called any number of times on new
// buffers. A call allocates nothing: the caller provides the inputs and the
// (already allocated) outputs.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_JIT_COMPILEDFUNCTION_H
#define LAZYC_JIT_COMPILEDFUNCTION_H

#include "lazyc/Runtime/DType.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace llvm::orc {
class LLJIT;
} // namespace llvm::orc

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace lazyc::jit {

/// Marks a dimension whose size is only known when the function is called.
constexpr int64_t kDynamic = -1;

/// The type of one argument or result of a compiled function.
struct TensorSpec {
  DType dtype;
  llvm::SmallVector<int64_t, 4> shape; ///< kDynamic for dynamic dimensions.

  /// Formats the spec as an MLIR tensor type, e.g. `tensor<4x?xf32>`.
  std::string str() const;
};

/// A contiguous, row-major buffer passed to a compiled function.
struct BufferView {
  void *data;
  llvm::ArrayRef<int64_t> shape;
};

/// Where the time of a compile went.
struct CompileStats {
  double pipelineMs = 0; ///< MLIR passes: lazy dialect to LLVM dialect.
  double codegenMs = 0;  ///< LLVM IR translation, optimization, machine code.
};

class CompiledFunction {
public:
  /// Compiles function `name` of `module` (`lazy` dialect on tensors) with
  /// the CPU pipeline. The module is lowered in place. Failures carry the
  /// pipeline stage and the MLIR diagnostics.
  static llvm::Expected<std::unique_ptr<CompiledFunction>>
  compile(mlir::ModuleOp module, llvm::StringRef name);

  ~CompiledFunction();

  llvm::ArrayRef<TensorSpec> inputs() const { return inputSpecs; }
  llvm::ArrayRef<TensorSpec> outputs() const { return outputSpecs; }
  const CompileStats &stats() const { return compileStats; }

  /// Runs the function: reads `inputs`, writes `outputs` (allocated by the
  /// caller with the output shapes). Checks counts and shapes against the
  /// signature; an output of dynamic shape that does not match what the
  /// function computed is left unwritten and reported as an error.
  llvm::Error call(llvm::ArrayRef<BufferView> inputs,
                   llvm::ArrayRef<BufferView> outputs) const;

private:
  CompiledFunction() = default;

  std::unique_ptr<llvm::orc::LLJIT> jit;
  void (*entry)(void **) = nullptr;
  llvm::SmallVector<TensorSpec> inputSpecs;
  llvm::SmallVector<TensorSpec> outputSpecs;
  CompileStats compileStats;
};

} // namespace lazyc::jit

#endif // LAZYC_JIT_COMPILEDFUNCTION_H
