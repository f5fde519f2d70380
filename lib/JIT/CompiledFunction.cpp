//===- CompiledFunction.cpp - A lazy function JIT-compiled for the CPU ----===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements CompiledFunction: the CPU pipeline, stage by stage,
// then LLVM at -O3 for the host CPU, loaded with ORC's LLJIT. (MLIR's
// ExecutionEngine would do, but Debian links it against libMLIR.so, which
// would put a second copy of MLIR into every lazyc program.)
//
// Calling convention: after lowering, every memref argument is passed as its
// expanded descriptor (allocated pointer, aligned pointer, offset, sizes,
// strides); results were turned into out-parameters after the inputs. A
// generated wrapper `void <name>_packed(void **)` takes one pointer per
// scalar, so one C++ call site serves every signature.
//
//===----------------------------------------------------------------------===//

#include "lazyc/JIT/CompiledFunction.h"
#include "lazyc/Pipelines/Pipelines.h"
#include "lazyc/Runtime/NarrowFloats.h"
#include "lazyc/Runtime/Runtime.h"

#include "lazyc/Conversion/Passes.h"
#include "lazyc/Dialect/Lazy/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <bit>
#include <chrono>
#include <mutex>

using namespace mlir;
using namespace lazyc;
using namespace lazyc::jit;

//===----------------------------------------------------------------------===//
// Signatures
//===----------------------------------------------------------------------===//

std::string TensorSpec::str() const {
  std::string text = "tensor<";
  for (int64_t dim : shape)
    text += (dim == kDynamic ? std::string("?") : std::to_string(dim)) + "x";
  text += std::string(mlirName(dtype)) + ">";
  return text;
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
  if (type.isInteger(32))
    return DType::Int32;
  if (type.isInteger(64))
    return DType::Int64;
  if (type.isInteger(1))
    return DType::Bool;
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
       << " (expected a ranked tensor of f32, f64, f16, bf16, i32, i64, i1)";
    return llvm::createStringError(text);
  }
  TensorSpec spec{*dtype, {}};
  for (int64_t dim : tensor.getShape())
    spec.shape.push_back(ShapedType::isDynamic(dim) ? kDynamic : dim);
  return spec;
}

//===----------------------------------------------------------------------===//
// Compilation
//===----------------------------------------------------------------------===//

/// Runs `build`'s passes on `module` (or, with no builder, only verifies
/// it), turning MLIR diagnostics into an error that names the stage.
static llvm::Error
runStage(ModuleOp module, llvm::StringRef stage,
         llvm::function_ref<void(OpPassManager &)> build = nullptr) {
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &diag) {
    os << "\n  " << diag.getLocation() << ": " << diag;
    for (Diagnostic &note : diag.getNotes())
      os << "\n    note: " << note;
    return success();
  });
  LogicalResult result = success();
  if (build) {
    PassManager pm(module.getContext());
    // The module is verified before the first stage and after the last, not
    // after every pass (that took half of the MLIR compile time).
    pm.enableVerifier(false);
    build(pm);
    result = pm.run(module);
  } else {
    result = verify(module);
  }
  if (succeeded(result))
    return llvm::Error::success();
  return llvm::createStringError("lazyc JIT: the '" + stage.str() +
                                 "' stage failed:" + diagnostics);
}

/// Adds `void <wrapperName>(void **arguments)` to `module`, calling function
/// `name` with `*arguments[i]` as its i-th (scalar) argument.
static llvm::Error addPackedWrapper(llvm::Module &module, llvm::StringRef name,
                                    llvm::StringRef wrapperName) {
  llvm::Function *function = module.getFunction(name);
  if (!function)
    return llvm::createStringError("lazyc JIT: @" + name.str() +
                                   " is missing from the LLVM module");
  llvm::LLVMContext &context = module.getContext();
  llvm::IRBuilder<> builder(context);
  auto *wrapperType = llvm::FunctionType::get(
      builder.getVoidTy(), {builder.getPtrTy()}, /*isVarArg=*/false);
  auto *wrapper = llvm::Function::Create(
      wrapperType, llvm::GlobalValue::ExternalLinkage, wrapperName, module);
  builder.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", wrapper));
  llvm::Value *slots = wrapper->getArg(0);
  llvm::SmallVector<llvm::Value *> arguments;
  for (llvm::Argument &argument : function->args()) {
    llvm::Value *slot = builder.CreateConstGEP1_64(builder.getPtrTy(), slots,
                                                   argument.getArgNo());
    llvm::Value *address = builder.CreateLoad(builder.getPtrTy(), slot);
    arguments.push_back(builder.CreateLoad(argument.getType(), address));
  }
  builder.CreateCall(function, arguments);
  builder.CreateRetVoid();
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// bf16 without the CPU's bf16 instructions
//===----------------------------------------------------------------------===//
//
// LLVM 22's x86 backend aborts on some `bfloat` vector code when the CPU has
// AVX512-BF16 ("Cannot select: v16bf16 = X86ISD::VPERM2X128", "Do not know
// how to soft promote this operator's operand!"; lazyc-fuzz seeds 2300537,
// 2300915, 2400429), and vcvtneps2bf16 flushes subnormals to zero. The JIT
// compiles without those instructions; the few conversions to bf16 that
// reach LLVM (lazy-expand-bf16 rewrites the others into integer code) then
// call these routines, rounded like the expanded ones (NarrowFloats.h).

// The libcalls return a bf16 in the low 16 bits of xmm0. (The host compiler
// may lack a 16-bit float type: a float whose bits are the bf16's lands
// there too; only its bits move, no float operation touches it.)
static float inXmm0LowBits(uint16_t bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(bits));
}
static float truncateFloatToBFloat16(float value) {
  return inXmm0LowBits(toBFloat16Bits(value));
}
static float truncateDoubleToBFloat16(double value) {
  return inXmm0LowBits(toBFloat16Bits(value));
}

/// The CPU features that make LLVM emit bf16 instructions.
static constexpr const char *kBFloat16Features[] = {"avx512bf16",
                                                    "avxneconvert", "amx-bf16"};

static void initializeLLVMOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

llvm::Expected<std::unique_ptr<CompiledFunction>>
CompiledFunction::compile(ModuleOp module, llvm::StringRef name) {
  auto function = module.lookupSymbol<func::FuncOp>(name);
  if (!function)
    return llvm::createStringError("lazyc JIT: no function @" + name.str() +
                                   " in the module");
  std::unique_ptr<CompiledFunction> compiled(new CompiledFunction());
  for (Type type : function.getArgumentTypes()) {
    llvm::Expected<TensorSpec> spec = toSpec(type);
    if (!spec)
      return spec.takeError();
    compiled->inputSpecs.push_back(std::move(*spec));
  }
  for (Type type : function.getResultTypes()) {
    llvm::Expected<TensorSpec> spec = toSpec(type);
    if (!spec)
      return spec.takeError();
    compiled->outputSpecs.push_back(std::move(*spec));
  }

  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  struct Stage {
    const char *name;
    void (*build)(OpPassManager &);
  };
  const Stage stages[] = {
      {"lower to linalg",
       [](OpPassManager &pm) {
         pm.addPass(mlir::lazy::createLazyDecomposePass());
         pm.addPass(createCanonicalizerPass());
         pm.addPass(createCSEPass());
         pm.addPass(mlir::lazy::createConvertLazyToLinalgPass());
       }},
      {"fuse", buildCpuFusePipeline},
      {"tile and vectorize", buildCpuTilePipeline},
      {"bufferize", buildCpuBufferizePipeline},
      {"lower to LLVM", buildCpuToLLVMPipeline},
  };
  if (llvm::Error error = runStage(module, "verify the input"))
    return std::move(error);
  for (const Stage &stage : stages)
    if (llvm::Error error = runStage(module, stage.name, stage.build))
      return std::move(error);
  if (llvm::Error error = runStage(module, "verify the lowered module"))
    return std::move(error);
  auto lowered = Clock::now();

  initializeLLVMOnce();
  MLIRContext *context = module.getContext();
  registerBuiltinDialectTranslation(*context);
  registerLLVMDialectTranslation(*context);
  registerOpenMPDialectTranslation(*context);

  auto machineBuilder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!machineBuilder)
    return machineBuilder.takeError();
  machineBuilder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  for (const char *feature : kBFloat16Features)
    machineBuilder->getFeatures().AddFeature(feature, false);
  auto targetMachine = machineBuilder->createTargetMachine();
  if (!targetMachine)
    return targetMachine.takeError();

  auto llvmContext = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, *llvmContext, name);
  if (!llvmModule)
    return llvm::createStringError(
        "lazyc JIT: translating @" + name.str() + " to LLVM IR failed");
  llvmModule->setDataLayout((*targetMachine)->createDataLayout());
  llvmModule->setTargetTriple((*targetMachine)->getTargetTriple());
  std::string wrapperName = (name + "_packed").str();
  if (llvm::Error error = addPackedWrapper(*llvmModule, name, wrapperName))
    return std::move(error);
  if (llvm::Error error = makeOptimizingTransformer(
          /*optLevel=*/3, /*sizeLevel=*/0, targetMachine->get())(
          llvmModule.get()))
    return std::move(error);

  auto jit = llvm::orc::LLJITBuilder()
                 .setJITTargetMachineBuilder(std::move(*machineBuilder))
                 .create();
  if (!jit)
    return jit.takeError();
  // Generated code calls the runtime (allocator, memrefCopy) and libm.
  auto processSymbols =
      llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
          (*jit)->getDataLayout().getGlobalPrefix());
  if (!processSymbols)
    return processSymbols.takeError();
  (*jit)->getMainJITDylib().addGenerator(std::move(*processSymbols));
  llvm::orc::SymbolMap bf16Routines;
  auto routine = [](auto *function) {
    return llvm::orc::ExecutorSymbolDef(
        llvm::orc::ExecutorAddr::fromPtr(function),
        llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable);
  };
  bf16Routines[(*jit)->mangleAndIntern("__truncsfbf2")] =
      routine(&truncateFloatToBFloat16);
  bf16Routines[(*jit)->mangleAndIntern("__truncdfbf2")] =
      routine(&truncateDoubleToBFloat16);
  if (llvm::Error error = (*jit)->getMainJITDylib().define(
          llvm::orc::absoluteSymbols(std::move(bf16Routines))))
    return std::move(error);
  if (llvm::Error error = (*jit)->addIRModule(llvm::orc::ThreadSafeModule(
          std::move(llvmModule), std::move(llvmContext))))
    return std::move(error);
  auto entry = (*jit)->lookup(wrapperName);
  if (!entry)
    return entry.takeError();
  if (llvm::Error error = (*jit)->initialize((*jit)->getMainJITDylib()))
    return std::move(error);
  compiled->entry = entry->toPtr<void (*)(void **)>();
  compiled->jit = std::move(*jit);
  auto done = Clock::now();

  using Ms = std::chrono::duration<double, std::milli>;
  compiled->compileStats.pipelineMs = Ms(lowered - start).count();
  compiled->compileStats.codegenMs = Ms(done - lowered).count();
  return compiled;
}

CompiledFunction::~CompiledFunction() = default;

//===----------------------------------------------------------------------===//
// Calls
//===----------------------------------------------------------------------===//

/// Checks `buffers` against `specs`; `role` names them in the message.
static llvm::Error checkBuffers(llvm::ArrayRef<TensorSpec> specs,
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
    std::string shape;
    for (int64_t dim : buffer.shape)
      shape += (shape.empty() ? "" : ", ") + std::to_string(dim);
    return llvm::createStringError("lazyc JIT: " + role.str() + " #" +
                                   std::to_string(index) + " has shape [" +
                                   shape + "], expected " + spec.str());
  }
  return llvm::Error::success();
}

llvm::Error CompiledFunction::call(llvm::ArrayRef<BufferView> inputs,
                                   llvm::ArrayRef<BufferView> outputs) const {
  if (llvm::Error error = checkBuffers(inputSpecs, inputs, "input"))
    return error;
  if (llvm::Error error = checkBuffers(outputSpecs, outputs, "output"))
    return error;

  // One 64-bit slot per descriptor field; the wrapper takes their addresses.
  llvm::SmallVector<int64_t, 64> slots;
  auto addDescriptor = [&](const BufferView &buffer) {
    auto address = reinterpret_cast<intptr_t>(buffer.data);
    slots.push_back(address); // allocated
    slots.push_back(address); // aligned
    slots.push_back(0);       // offset
    slots.append(buffer.shape.begin(), buffer.shape.end());
    size_t firstStride = slots.size();
    slots.resize(firstStride + buffer.shape.size());
    int64_t stride = 1;
    for (size_t d = buffer.shape.size(); d-- > 0;) {
      slots[firstStride + d] = stride;
      stride *= buffer.shape[d];
    }
  };
  for (const BufferView &buffer : inputs)
    addDescriptor(buffer);
  for (const BufferView &buffer : outputs)
    addDescriptor(buffer);
  llvm::SmallVector<void *, 64> arguments;
  for (int64_t &slot : slots)
    arguments.push_back(&slot);
  lazyrt_take_output_shape_mismatch();
  entry(arguments.data());
  // A dynamic output the caller sized wrongly was not written.
  int64_t mismatch = lazyrt_take_output_shape_mismatch();
  if (mismatch < 0)
    return llvm::Error::success();
  std::string shape;
  for (int64_t dim : outputs[mismatch].shape)
    shape += (shape.empty() ? "" : ", ") + std::to_string(dim);
  return llvm::createStringError(
      "lazyc JIT: output #" + std::to_string(mismatch) + " has shape [" +
      shape + "], but the function computed a different one for these "
      "inputs; the output was not written");
}
