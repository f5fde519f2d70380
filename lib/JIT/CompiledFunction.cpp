//===- CompiledFunction.cpp - A compiled lazy function --------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements what every target's compiled functions share: their
// signatures, the checks of the buffers a call passes, running a pipeline
// stage with its diagnostics captured as a CompileError, and the target
// registry.
//
//===----------------------------------------------------------------------===//

#include "lazyc/JIT/CompiledFunction.h"
#include "Stages.h"
#include "lazyc/JIT/Target.h"
#include "lazyc/Runtime/Shape.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace lazyc;
using namespace lazyc::jit;

//===----------------------------------------------------------------------===//
// Signatures
//===----------------------------------------------------------------------===//

std::string TensorSpec::str() const {
  return "tensor<" + mlirShapeText(shape, kDynamic) +
         (shape.empty() ? "" : "x") + std::string(mlirName(dtype)) + ">";
}

static std::optional<DType> toDType(Type type) {
  if (type.isF32())
    return DType::Float32;
  if (type.isF64())
    return DType::Float64;
  if (type.isF16())
    return DType::Float16;
  if (type.isBF16())
    return DType::BFloat16;
  if (type.isSignlessInteger(32))
    return DType::Int32;
  if (type.isSignlessInteger(64))
    return DType::Int64;
  if (type.isInteger(1))
    return DType::Bool;
  if (type.isSignlessInteger(8))
    return DType::Int8;
  if (type.isUnsignedInteger(8)) // The lazy dialect's unsigned dtypes.
    return DType::UInt8;
  if (type.isSignlessInteger(16))
    return DType::Int16;
  if (type.isUnsignedInteger(16))
    return DType::UInt16;
  if (type.isUnsignedInteger(32))
    return DType::UInt32;
  if (type.isUnsignedInteger(64))
    return DType::UInt64;
  return std::nullopt;
}

static llvm::Expected<TensorSpec> toSpec(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  std::optional<DType> dtype =
      tensor ? toDType(tensor.getElementType()) : std::nullopt;
  if (!dtype) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "lazyc JIT: unsupported argument or result type " << type
       << " (expected a ranked tensor of";
    for (DType supported : kAllDTypes)
      os << (supported == kAllDTypes[0] ? " " : ", ") << mlirName(supported);
    os << ")";
    return llvm::createStringError(text);
  }
  TensorSpec spec{*dtype, {}};
  for (int64_t dim : tensor.getShape())
    spec.shape.push_back(ShapedType::isDynamic(dim) ? kDynamic : dim);
  return spec;
}

namespace {
thread_local StageObserver *stageObserver = nullptr;
} // namespace

StageObserver *lazyc::jit::observeStages(StageObserver *observer) {
  return std::exchange(stageObserver, observer);
}

void lazyc::jit::stageStarted(llvm::StringRef stage) {
  if (stageObserver)
    stageObserver->stageStarted(stage);
}

llvm::Error CompiledFunction::readSignature(ModuleOp module,
                                            llvm::StringRef name) {
  auto function = module.lookupSymbol<func::FuncOp>(name);
  if (!function)
    return llvm::createStringError("lazyc JIT: no function @" + name.str() +
                                   " in the module");
  for (Type type : function.getArgumentTypes()) {
    llvm::Expected<TensorSpec> spec = toSpec(type);
    if (!spec)
      return spec.takeError();
    inputSpecs.push_back(std::move(*spec));
  }
  for (Type type : function.getResultTypes()) {
    llvm::Expected<TensorSpec> spec = toSpec(type);
    if (!spec)
      return spec.takeError();
    outputSpecs.push_back(std::move(*spec));
  }
  return llvm::Error::success();
}

/// Checks `buffers` against `specs`; `role` names them in the message.
static llvm::Error checkSpecs(llvm::ArrayRef<TensorSpec> specs,
                              llvm::ArrayRef<BufferView> buffers,
                              llvm::StringRef role) {
  if (specs.size() != buffers.size())
    return llvm::createStringError(
        "lazyc JIT: expected " + std::to_string(specs.size()) + " " +
        role.str() + "s, got " + std::to_string(buffers.size()));
  for (auto [index, pair] : llvm::enumerate(llvm::zip_equal(specs, buffers))) {
    auto [spec, buffer] = pair;
    bool matches = spec.shape.size() == buffer.shape.size();
    for (size_t d = 0; matches && d < spec.shape.size(); ++d)
      matches = buffer.shape[d] >= 0 &&
                (spec.shape[d] == kDynamic || spec.shape[d] == buffer.shape[d]);
    if (matches)
      continue;
    return llvm::createStringError(
        "lazyc JIT: " + role.str() + " #" + std::to_string(index) +
        " has shape " + shapeText(buffer.shape) + ", expected " + spec.str());
  }
  return llvm::Error::success();
}

llvm::Error
CompiledFunction::checkBuffers(llvm::ArrayRef<BufferView> inputs,
                               llvm::ArrayRef<BufferView> outputs) const {
  if (llvm::Error error = checkSpecs(inputSpecs, inputs, "input"))
    return error;
  return checkSpecs(outputSpecs, outputs, "output");
}

CompiledFunction::~CompiledFunction() = default;

llvm::Expected<std::unique_ptr<CompiledFunction>>
CompiledFunction::compile(ModuleOp module, llvm::StringRef name,
                          const Target &target, int index) {
  Device device =
      target.kind() == Device::Kind::CPU ? Device::cpu() : Device::cuda(index);
  return target.compile(module, name, device);
}

//===----------------------------------------------------------------------===//
// Stages and their errors
//===----------------------------------------------------------------------===//

char CompileError::ID = 0;

void CompileError::log(llvm::raw_ostream &os) const {
  os << "lazyc JIT: the '" << stage << "' stage failed:";
  for (const Diagnostic &diagnostic : diagnostics) {
    os << "\n  " << diagnostic.location << ": " << diagnostic.message;
    for (const std::string &note : diagnostic.notes)
      os << "\n    note: " << note;
  }
}

std::error_code CompileError::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

llvm::Error jit::runStage(ModuleOp module, llvm::StringRef stage,
                          llvm::function_ref<void(OpPassManager &)> build) {
  llvm::SmallVector<CompileError::Diagnostic, 1> diagnostics;
  ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &diag) {
    CompileError::Diagnostic &entry = diagnostics.emplace_back(
        CompileError::Diagnostic{diag.str(), diag.getLocation(), {}});
    for (Diagnostic &note : diag.getNotes())
      entry.notes.push_back(note.str());
    return success();
  });
  LogicalResult result = success();
  if (build) {
    PassManager pm(module.getContext());
    // The module is verified after each stage, not after every pass (that
    // took half of the MLIR compile time). Not only after the last: invalid
    // IR that a later stage lowers anyway becomes wrong code, not an error
    // (an invalid vector.multi_reduction did, lazyc-fuzz seed 81263).
    pm.enableVerifier(false);
    build(pm);
    result = pm.run(module);
    if (succeeded(result))
      result = verify(module);
  } else {
    result = verify(module);
  }
  if (succeeded(result))
    return llvm::Error::success();
  return llvm::make_error<CompileError>(stage.str(), std::move(diagnostics));
}
