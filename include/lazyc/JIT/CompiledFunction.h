//===- CompiledFunction.h - A compiled lazy function ------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares CompiledFunction: a function of a `lazy` dialect module
// compiled once by a target (Target.h) and then called any number of times
// on new buffers of that target's device. A call allocates nothing: the
// caller provides the inputs and the (already allocated) outputs. Also the
// structured error a failed compile returns.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_JIT_COMPILEDFUNCTION_H
#define LAZYC_JIT_COMPILEDFUNCTION_H

#include "lazyc/Runtime/DType.h"

#include "mlir/IR/Location.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace lazyc::jit {

class Target;
const Target &cpuTarget();

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
  double pipelineMs = 0; ///< MLIR passes: lazy dialect to the target's IR.
  double codegenMs = 0;  ///< Target code generation and loading.
  /// codegenMs by phase, where the target has them. The CPU's: MLIR's LLVM
  /// dialect to LLVM IR; LLVM's IR optimizations and instruction selection
  /// to object code, in `codegenParts` parts compiled on as many threads
  /// (the slowest part's times); storing the objects in the persistent cache
  /// and linking them into the process.
  double translateMs = 0, optimizeMs = 0, objectMs = 0, linkMs = 0;
  unsigned codegenParts = 0;
  /// The persistent cache (DiskCache.h): the code was loaded from it, not
  /// generated (then pipelineMs is 0 and codegenMs is the load).
  bool loadedFromDiskCache = false;
  /// Generated code was written to the persistent cache.
  bool storedToDiskCache = false;
  /// An entry for this code was on disk but was not trusted (corrupted,
  /// truncated, another version's): it was ignored and rewritten.
  bool rejectedDiskCacheEntry = false;

  /// One step of the compile, for timelines (LAZYC_PROFILE).
  struct Phase {
    std::string name;
    std::chrono::steady_clock::time_point start, end;
  };
  /// The compile's steps in order: each stage of the target's pipeline,
  /// then code generation's (or the load from the persistent cache).
  std::vector<Phase> phases;
};

/// Told each step of the compiles on its thread as it starts (a pipeline
/// stage, translation, LLVM's code generation): the engine shows a long
/// compile's progress with it.
class StageObserver {
public:
  virtual ~StageObserver() = default;
  virtual void stageStarted(llvm::StringRef stage) = 0;
};

/// Sets this thread's stage observer (null: none); returns the previous one.
StageObserver *observeStages(StageObserver *observer);

/// While it lives, the functions this thread compiles or loads are listed
/// in LAZYC_PERF_MAP's file as `lazyc:<label>:<symbol>` rather than
/// `lazyc:<function>:<symbol>`. The engine passes the name of the trace's
/// LAZYC_DUMP_TRACES file (`trace-<key>`), so a kernel in a profile leads
/// to the trace it came from.
class PerfMapLabel {
public:
  explicit PerfMapLabel(std::string label);
  ~PerfMapLabel();
  PerfMapLabel(const PerfMapLabel &) = delete;
  PerfMapLabel &operator=(const PerfMapLabel &) = delete;

private:
  std::string previous;
};

/// Tells this thread's stage observer, if any, that `stage` starts.
void stageStarted(llvm::StringRef stage);

/// A failed compile: the stage that failed and the MLIR diagnostics it
/// emitted, each with the location of the op it is about (the importer's
/// locations say which trace node an op came from).
class CompileError : public llvm::ErrorInfo<CompileError> {
public:
  struct Diagnostic {
    std::string message;
    mlir::Location location;
    llvm::SmallVector<std::string, 1> notes;
  };

  CompileError(std::string stage, llvm::SmallVector<Diagnostic, 1> diagnostics)
      : stage(std::move(stage)), diagnostics(std::move(diagnostics)) {}

  /// "lazyc JIT: the 'fuse' stage failed:" and a line per diagnostic.
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override;

  std::string stage;
  llvm::SmallVector<Diagnostic, 1> diagnostics;

  static char ID;
};

class CompiledFunction {
public:
  /// Compiles function `name` of `module` (`lazy` dialect on tensors) for
  /// `target`, to run on its device `index`; the module is lowered in
  /// place. Failures are a CompileError when a pipeline stage failed, else a
  /// message.
  static llvm::Expected<std::unique_ptr<CompiledFunction>>
  compile(mlir::ModuleOp module, llvm::StringRef name,
          const Target &target = cpuTarget(), int index = 0);

  virtual ~CompiledFunction();

  llvm::ArrayRef<TensorSpec> inputs() const { return inputSpecs; }
  llvm::ArrayRef<TensorSpec> outputs() const { return outputSpecs; }
  const CompileStats &stats() const { return compileStats; }

  /// Runs the function: reads `inputs`, writes `outputs` (allocated by the
  /// caller with the output shapes, in the target's memory). Checks counts
  /// and shapes against the signature; an output of dynamic shape that does
  /// not match what the function computed is left unwritten and reported as
  /// an error.
  virtual llvm::Error call(llvm::ArrayRef<BufferView> inputs,
                           llvm::ArrayRef<BufferView> outputs) const = 0;

protected:
  CompiledFunction() = default;

  /// Fills the signature from function `name` of `module` (before it is
  /// lowered).
  llvm::Error readSignature(mlir::ModuleOp module, llvm::StringRef name);
  /// Checks `inputs` and `outputs` against the signature.
  llvm::Error checkBuffers(llvm::ArrayRef<BufferView> inputs,
                           llvm::ArrayRef<BufferView> outputs) const;

  llvm::SmallVector<TensorSpec> inputSpecs;
  llvm::SmallVector<TensorSpec> outputSpecs;
  CompileStats compileStats;
};

} // namespace lazyc::jit

#endif // LAZYC_JIT_COMPILEDFUNCTION_H
