//===- HostFunction.cpp - Host code: LLVM and ORC's JIT -------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements HostFunction: a trace lowered by its target's
// pipeline to the LLVM dialect, then LLVM at -O3 (without the SLP
// vectorizer) for the host CPU to an object file, stored in the persistent
// compile cache (DiskCache.h) and loaded with ORC's LLJIT; a function found
// in that cache is only loaded. (MLIR's ExecutionEngine would do, but
// Debian links it against libMLIR.so, which would put a second copy of MLIR
// into every lazyc program.) The CPU target's code runs here entirely; the
// GPU target's is the host side that launches its kernels.
//
// Calling convention: after lowering, every memref argument is passed as its
// expanded descriptor (allocated pointer, aligned pointer, offset, sizes,
// strides); results were turned into out-parameters after the inputs. A
// generated wrapper `void <name>_packed(void **)` takes one pointer per
// scalar, so one C++ call site serves every signature.
//
//===----------------------------------------------------------------------===//

#include "HostFunction.h"
#include "PerfMap.h"
#include "SplitModule.h"
#include "lazyc/JIT/DiskCache.h"
#include "lazyc/Runtime/Collectives.h"
#include "lazyc/Runtime/NarrowFloats.h"
#include "lazyc/Runtime/Runtime.h"
#include "lazyc/Runtime/Shape.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/xxhash.h"

#include <bit>
#include <chrono>
#include <cstring>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

using namespace mlir;
using namespace lazyc;
using namespace lazyc::jit;

/// The suffix of the packed wrapper that calls the compiled function.
static constexpr llvm::StringLiteral kPackedSuffix = "_packed";
/// The suffixes of the functions that run the code's static initializers
/// and finalizers (the GPU target's load and unload its kernels).
static constexpr llvm::StringLiteral kInitializeSuffix = "_initialize";
static constexpr llvm::StringLiteral kFinalizeSuffix = "_finalize";

HostFunction::HostFunction() = default;
HostFunction::~HostFunction() {
  if (!finalize)
    return;
  // Unloading (the GPU's kernels) cannot fail in a way the caller could act
  // on; what the runtime reports is dropped with the function.
  llvm::consumeError(beforeCall());
  finalize();
  llvm::consumeError(afterCall());
}

/// Past this many scalar arguments, a trace's function is inlined into its
/// packed wrapper: it takes each memref as its descriptor's scalars, and
/// instruction selection of one call passing a 4-layer transformer step's
/// 1,300 of them took 6 s. Below, it stays a function of its own: inlined,
/// its arguments lose their noalias (a 20-op trace's LLVM time went from
/// 65 to 108 ms).
static constexpr unsigned kMaxArgumentsToCall = 256;

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
  if (function->arg_size() > kMaxArgumentsToCall) {
    function->setLinkage(llvm::GlobalValue::InternalLinkage);
    function->removeFnAttr(llvm::Attribute::NoInline);
    function->addFnAttr(llvm::Attribute::AlwaysInline);
  }
  return llvm::Error::success();
}

/// Replaces `module`'s llvm.global_ctors and llvm.global_dtors with
/// functions `<name>_initialize` and `<name>_finalize` that call them in
/// their order. LLJIT without an ORC platform runtime does not run an
/// object's initializers; the JIT calls these instead, around the runtime
/// checks of a call.
static void gatherInitializers(llvm::Module &module, llvm::StringRef name) {
  auto gather = [&](llvm::StringRef arrayName, llvm::StringRef suffix,
                    auto entries, bool ascending) {
    llvm::SmallVector<std::pair<unsigned, llvm::Function *>> calls;
    for (const llvm::orc::CtorDtorIterator::Element &entry : entries)
      if (entry.Func)
        calls.push_back({entry.Priority, entry.Func});
    llvm::GlobalVariable *array = module.getGlobalVariable(arrayName);
    if (!array)
      return;
    llvm::stable_sort(calls, [&](const auto &a, const auto &b) {
      return ascending ? a.first < b.first : a.first > b.first;
    });
    llvm::LLVMContext &context = module.getContext();
    llvm::IRBuilder<> builder(context);
    auto *function = llvm::Function::Create(
        llvm::FunctionType::get(builder.getVoidTy(), /*isVarArg=*/false),
        llvm::GlobalValue::ExternalLinkage, (name + suffix).str(), module);
    builder.SetInsertPoint(
        llvm::BasicBlock::Create(context, "entry", function));
    for (auto [priority, callee] : calls)
      builder.CreateCall(callee);
    builder.CreateRetVoid();
    array->eraseFromParent();
  };
  gather("llvm.global_ctors", kInitializeSuffix,
         llvm::orc::getConstructors(module), /*ascending=*/true);
  gather("llvm.global_dtors", kFinalizeSuffix,
         llvm::orc::getDestructors(module), /*ascending=*/false);
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

/// The JIT's target machine: the host CPU without its bf16 instructions.
static llvm::Expected<llvm::orc::JITTargetMachineBuilder> hostMachine() {
  auto machineBuilder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!machineBuilder)
    return machineBuilder.takeError();
  machineBuilder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  // What LLJIT picks for the objects it compiles and links with JITLink
  // (left unset, a JIT target machine uses the large code model): objects
  // stored in the compile cache are the ones LLJIT would have made.
  machineBuilder->setCodeModel(llvm::CodeModel::Small);
  machineBuilder->setRelocationModel(llvm::Reloc::PIC_);
  for (const char *feature : kBFloat16Features)
    machineBuilder->getFeatures().AddFeature(feature, false);
  return std::move(*machineBuilder);
}

/// LLVM's -O3 pipeline without the SLP vectorizer: the MLIR pipeline
/// vectorizes already, and LLVM 22's SLP vectorizer moved a gather it formed
/// above a store of one of the rows it reads (lazyc-fuzz seed 50986: a
/// gather of a gather read stale stack memory). The serial code (the trace's
/// function `host`, which allocates and calls the loop nests, and `wrapper`,
/// into which it is inlined) skips constraint elimination, superlinear in
/// the branches of one function: a 4-layer transformer step's host
/// function, with 163 self-copy checks, took 1.34 s in it and 0.2 s in all
/// the other passes.
static void optimize(llvm::Module &module, llvm::TargetMachine &machine,
                     llvm::StringRef host, llvm::StringRef wrapper) {
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = true;
  tuning.LoopInterleaving = true;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = false;
  llvm::PassInstrumentationCallbacks instrumentation;
  instrumentation.registerShouldRunOptionalPassCallback(
      [host, wrapper](llvm::StringRef pass, llvm::Any ir) {
        const auto *function = llvm::any_cast<const llvm::Function *>(&ir);
        if (!function || pass != "ConstraintEliminationPass")
          return true;
        llvm::StringRef name = (*function)->getName();
        return name != host && name != wrapper;
      });
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager sccs;
  llvm::ModuleAnalysisManager modules;
  llvm::PassBuilder builder(&machine, tuning, std::nullopt, &instrumentation);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(sccs);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, sccs, modules);
  builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3)
      .run(module, modules);
}

/// Translates `module` (in the LLVM dialect) to LLVM IR and compiles it to
/// object code: in parts (SplitModule.h) that LLVM optimizes and compiles
/// on threads of their own, each in its own LLVM context. Records the
/// phases' times in `stats`.
static llvm::Expected<llvm::SmallVector<std::unique_ptr<llvm::MemoryBuffer>>>
compileToObjects(ModuleOp module, llvm::StringRef name,
                 llvm::StringRef wrapperName,
                 llvm::orc::JITTargetMachineBuilder &host,
                 CompileStats &stats) {
  using Clock = std::chrono::steady_clock;
  using Ms = std::chrono::duration<double, std::milli>;
  stageStarted("translate to LLVM IR");
  auto start = Clock::now();
  MLIRContext *context = module.getContext();
  registerBuiltinDialectTranslation(*context);
  registerLLVMDialectTranslation(*context);
  registerOpenMPDialectTranslation(*context);
  // The GPU target's host code embeds its kernels and launches them.
  registerGPUDialectTranslation(*context);

  struct Part {
    llvm::LLVMContext context;
    std::unique_ptr<llvm::Module> module;
    std::unique_ptr<llvm::TargetMachine> machine;
    std::unique_ptr<llvm::MemoryBuffer> object;
    llvm::Error error = llvm::Error::success();
    double optimizeMs = 0, objectMs = 0;
  };
  llvm::SmallVector<OwningOpRef<ModuleOp>> split =
      splitModule(module, std::max(1u, std::thread::hardware_concurrency()));
  llvm::SmallVector<ModuleOp> partModules;
  for (OwningOpRef<ModuleOp> &part : split)
    partModules.push_back(*part);
  if (partModules.empty())
    partModules.push_back(module);
  std::vector<std::unique_ptr<Part>> parts;
  for (ModuleOp partModule : partModules) {
    auto part = std::make_unique<Part>();
    auto machine = host.createTargetMachine();
    if (!machine)
      return machine.takeError();
    part->machine = std::move(*machine);
    part->module = translateModuleToLLVMIR(partModule, part->context, name);
    if (!part->module)
      return llvm::createStringError("lazyc JIT: translating @" + name.str() +
                                     " to LLVM IR failed");
    part->module->setDataLayout(part->machine->createDataLayout());
    part->module->setTargetTriple(part->machine->getTargetTriple());
    llvm::Function *function = part->module->getFunction(name);
    if (function && !function->isDeclaration())
      if (llvm::Error error =
              addPackedWrapper(*part->module, name, wrapperName))
        return std::move(error);
    gatherInitializers(*part->module, name);
    parts.push_back(std::move(part));
  }
  auto translated = Clock::now();
  stats.translateMs = Ms(translated - start).count();
  stats.phases.push_back({"translate to LLVM IR", start, translated});
  std::string codegenStage =
      "LLVM: optimize and emit code (" + std::to_string(parts.size()) +
      (parts.size() == 1 ? " part)" : " parts in parallel)");
  stageStarted(codegenStage);

  auto compilePart = [name, wrapperName](Part &part) {
    auto begin = Clock::now();
    optimize(*part.module, *part.machine, name, wrapperName);
    auto optimized = Clock::now();
    auto object = llvm::orc::SimpleCompiler(*part.machine)(*part.module);
    if (object)
      part.object = std::move(*object);
    else
      part.error = object.takeError();
    part.optimizeMs = Ms(optimized - begin).count();
    part.objectMs = Ms(Clock::now() - optimized).count();
  };
  std::vector<std::thread> threads;
  for (size_t i = 1; i < parts.size(); ++i)
    threads.emplace_back(compilePart, std::ref(*parts[i]));
  compilePart(*parts.front());
  for (std::thread &thread : threads)
    thread.join();

  llvm::Error failure = llvm::Error::success();
  llvm::SmallVector<std::unique_ptr<llvm::MemoryBuffer>> objects;
  for (std::unique_ptr<Part> &part : parts) {
    failure = llvm::joinErrors(std::move(failure), std::move(part->error));
    // The slowest part's: the parts compile at the same time.
    stats.optimizeMs = std::max(stats.optimizeMs, part->optimizeMs);
    stats.objectMs = std::max(stats.objectMs, part->objectMs);
    objects.push_back(std::move(part->object));
  }
  if (failure)
    return std::move(failure);
  stats.codegenParts = objects.size();
  stats.phases.push_back({codegenStage, translated, Clock::now()});
  return std::move(objects);
}

/// The persistent cache's key of function `name` of `module` (before
/// lowering): everything its object code depends on, a line each.
static std::string diskCacheKey(ModuleOp module, llvm::StringRef name,
                                const llvm::orc::JITTargetMachineBuilder &host,
                                llvm::StringRef options) {
  std::string code;
  llvm::raw_string_ostream codeText(code);
  module.print(codeText);
  llvm::XXH128_hash_t hash =
      llvm::xxh3_128bits(llvm::arrayRefFromStringRef(code));

  std::string key;
  llvm::raw_string_ostream os(key);
  os << DiskCache::compilerBuild() << "\n";
  os << "LLVM " << LLVM_VERSION_STRING << "\n";
  os << "target " << host.getTargetTriple().str() << " " << host.getCPU() << " "
     << host.getFeatures().getString() << "\n";
  os << "options " << options << "\n";
  os << "code @" << name << " " << llvm::utohexstr(hash.high64, true, 16)
     << llvm::utohexstr(hash.low64, true, 16);
  return key;
}

/// The objects of one function as the one blob the persistent cache keeps:
/// for each, its size (8 bytes, little-endian), then its bytes.
static std::string
bundleObjects(llvm::ArrayRef<std::unique_ptr<llvm::MemoryBuffer>> objects) {
  std::string bundle;
  for (const auto &object : objects) {
    char size[8];
    llvm::support::endian::write64le(size, object->getBufferSize());
    bundle.append(size, sizeof(size));
    bundle.append(object->getBufferStart(), object->getBufferSize());
  }
  return bundle;
}

static llvm::Expected<llvm::SmallVector<std::unique_ptr<llvm::MemoryBuffer>>>
unbundleObjects(llvm::StringRef bundle) {
  llvm::SmallVector<std::unique_ptr<llvm::MemoryBuffer>> objects;
  while (!bundle.empty()) {
    uint64_t size = bundle.size() < 8
                        ? UINT64_MAX
                        : llvm::support::endian::read64le(bundle.data());
    if (size > bundle.size() - 8)
      return llvm::createStringError(
          "lazyc JIT: a compile cache entry's objects are cut short");
    // A copy: object files must be aligned, the bundle's bytes are not.
    objects.push_back(llvm::MemoryBuffer::getMemBufferCopy(
        bundle.substr(8, size), "lazyc-cached-object"));
    bundle = bundle.drop_front(8 + size);
  }
  return std::move(objects);
}

llvm::Error HostFunction::load(
    llvm::orc::JITTargetMachineBuilder host,
    llvm::MutableArrayRef<std::unique_ptr<llvm::MemoryBuffer>> objects,
    llvm::StringRef wrapperName) {
  llvm::orc::LLJITBuilder builder;
  builder.setJITTargetMachineBuilder(std::move(host));
  if (perfMapRequested())
    writePerfMapEntries(builder, wrapperName.drop_back(kPackedSuffix.size()),
                        wrapperName);
  auto created = builder.create();
  if (!created)
    return created.takeError();
  llvm::orc::LLJIT &loader = **created;
  // Generated code calls the runtime (allocator, memrefCopy) and libm.
  auto processSymbols =
      llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
          loader.getDataLayout().getGlobalPrefix());
  if (!processSymbols)
    return processSymbols.takeError();
  loader.getMainJITDylib().addGenerator(std::move(*processSymbols));
  llvm::orc::SymbolMap bf16Routines;
  auto routine = [](auto *function) {
    return llvm::orc::ExecutorSymbolDef(
        llvm::orc::ExecutorAddr::fromPtr(function),
        llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable);
  };
  bf16Routines[loader.mangleAndIntern("__truncsfbf2")] =
      routine(&truncateFloatToBFloat16);
  bf16Routines[loader.mangleAndIntern("__truncdfbf2")] =
      routine(&truncateDoubleToBFloat16);
  if (llvm::Error error = loader.getMainJITDylib().define(
          llvm::orc::absoluteSymbols(std::move(bf16Routines))))
    return error;
  for (std::unique_ptr<llvm::MemoryBuffer> &object : objects)
    if (llvm::Error error = loader.addObjectFile(std::move(object)))
      return error;
  auto address = loader.lookup(wrapperName);
  if (!address)
    return address.takeError();
  if (llvm::Error error = loader.initialize(loader.getMainJITDylib()))
    return error;
  // Static initializers (gatherInitializers) may call the runtime: the GPU
  // target's load their kernels. They run as a call does.
  llvm::StringRef name = wrapperName.drop_back(kPackedSuffix.size());
  auto optionalFunction = [&](llvm::StringRef suffix) -> void (*)() {
    auto found = loader.lookup((name + suffix).str());
    if (!found) {
      llvm::consumeError(found.takeError());
      return nullptr;
    }
    return found->toPtr<void (*)()>();
  };
  finalize = optionalFunction(kFinalizeSuffix);
  jit = std::move(*created);
  entry = address->toPtr<void (*)(void **)>();
  if (void (*initialize)() = optionalFunction(kInitializeSuffix)) {
    if (llvm::Error error = beforeCall())
      return error;
    initialize();
    if (llvm::Error error = afterCall())
      return error;
  }
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<CompiledFunction>>
HostFunction::compile(std::unique_ptr<HostFunction> compiled, ModuleOp module,
                      llvm::StringRef name, const HostLowering &lowering) {
  if (llvm::Error error = compiled->readSignature(module, name))
    return std::move(error);

  using Clock = std::chrono::steady_clock;
  using Ms = std::chrono::duration<double, std::milli>;
  auto start = Clock::now();
  initializeLLVMOnce();
  auto host = hostMachine();
  if (!host)
    return host.takeError();
  std::string wrapperName = (name + kPackedSuffix).str();
  CompileStats &stats = compiled->compileStats;

  DiskCache *disk = DiskCache::forProcess();
  std::string key;
  if (disk) {
    key = diskCacheKey(module, name, *host, lowering.cacheKeyOptions);
    std::unique_ptr<llvm::MemoryBuffer> object;
    DiskCache::Lookup found = disk->load(key, object);
    if (found == DiskCache::Lookup::Hit) {
      auto objects = unbundleObjects(object->getBuffer());
      if (!objects)
        return objects.takeError();
      if (llvm::Error error = compiled->load(*host, *objects, wrapperName))
        return std::move(error);
      stats.loadedFromDiskCache = true;
      stats.codegenMs = Ms(Clock::now() - start).count();
      stats.phases.push_back(
          {"load from the persistent cache", start, Clock::now()});
      return std::move(compiled);
    }
    stats.rejectedDiskCacheEntry = found == DiskCache::Lookup::Rejected;
  }

  if (llvm::Error error = lowering.lower(module, stats))
    return std::move(error);
  auto lowered = Clock::now();

  auto objects = compileToObjects(module, name, wrapperName, *host, stats);
  if (!objects)
    return objects.takeError();
  auto linkStart = Clock::now();
  if (disk)
    stats.storedToDiskCache = disk->store(key, bundleObjects(*objects));
  if (llvm::Error error =
          compiled->load(std::move(*host), *objects, wrapperName))
    return std::move(error);
  auto done = Clock::now();
  stats.linkMs = Ms(done - linkStart).count();
  stats.phases.push_back(
      {disk ? "store in the persistent cache and link" : "link", linkStart,
       done});

  stats.pipelineMs = Ms(lowered - start).count();
  stats.codegenMs = Ms(done - lowered).count();
  return std::move(compiled);
}

llvm::Error HostFunction::call(llvm::ArrayRef<BufferView> inputs,
                               llvm::ArrayRef<BufferView> outputs) const {
  if (llvm::Error error = checkBuffers(inputs, outputs))
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
  if (llvm::Error error = beforeCall())
    return error;
  entry(arguments.data());
  if (llvm::Error error = afterCall())
    return error;
  // A collective that failed (another rank's mismatch, a timeout) left its
  // output unwritten.
  if (const char *failure = lazyrt_take_collective_error())
    return llvm::createStringError(failure);
  // A dynamic output the caller sized wrongly was not written. The report
  // names its argument position; outputs follow the inputs.
  int64_t argument = lazyrt_take_output_shape_mismatch();
  if (argument < 0)
    return llvm::Error::success();
  int64_t output = argument - static_cast<int64_t>(inputs.size());
  if (output < 0 || output >= static_cast<int64_t>(outputs.size()))
    return llvm::createStringError(
        "lazyc JIT: a buffer of argument position " + std::to_string(argument) +
        " has a shape other than the one the function computed; it was not "
        "written");
  return llvm::createStringError(
      "lazyc JIT: output #" + std::to_string(output) + " has shape " +
      shapeText(outputs[output].shape) +
      ", but the function computed a different one for these "
      "inputs; the output was not written");
}
