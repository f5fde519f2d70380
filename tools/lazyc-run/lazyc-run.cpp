//===- lazyc-run.cpp - Compile and run a lazy function --------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// lazyc-run compiles a function of a `lazy` dialect .mlir file (for example a
// trace dumped by LAZYC_DUMP_TRACES) with the CPU pipeline (or, with
// --device cuda, the GPU's: inputs copied to the device, outputs back), runs
// it on inputs read from .npy files or generated from a seed, and writes the
// outputs as .npy files. A device that cannot be used makes it say why and
// exit with status 77 (--check-device asks only that). With --bench it prints
// the compile time and the median run time. A result tied to an argument
// (`lazy.tied_argument`) is computed in that argument's buffer, as lazyc's
// engine calls such functions (with
// --bench, each run updates it again).
//
//   lazyc-run trace.mlir --input=x.npy --input=random:4x8 --output-dir=out
//   lazyc-run trace.mlir --bench --runs=50
//   lazyc-run model.lazyc --input=x.npy --print   (a file lazyc::save wrote:
//       its function's saved Variables are passed after the inputs)
//   lazyc-run trace.mlir --device cuda --output-dir=out
//   lazyc-run model.onnx --input=x.npy --output-dir=out [--device cuda]
//       (an ONNX model, through lazyc::onnx: --entry does not apply)
//   lazyc-run --device cuda --check-device
//
//===----------------------------------------------------------------------===//

#include "Npy.h"
#include "OnnxRun.h"

#include "lazyc/Dialect/Lazy/IR/HostBuffer.h"
#include "lazyc/Dialect/Lazy/IR/LazyDialect.h"
#include "lazyc/Dialect/Lazy/IR/TiedArgument.h"
#include "lazyc/Dialect/Lazy/Transforms/Passes.h"
#include "lazyc/Formats/ModelFile.h"
#include "lazyc/Import/TraceImporter.h"
#include "lazyc/InitAll.h"
#include "lazyc/JIT/CompiledFunction.h"
#include "lazyc/JIT/Target.h"
#include "lazyc/Runtime/Runtime.h"
#include "lazyc/Runtime/Shape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <random>

#include <unistd.h>

using namespace mlir;
using namespace lazyc;

namespace cl = llvm::cl;

static cl::opt<std::string>
    inputFile(cl::Positional, cl::desc("<input .mlir file>"), cl::init("-"));
static cl::opt<std::string>
    entryName("entry", cl::desc("Function to run (default: the only one)"),
              cl::value_desc("name"));
static cl::list<std::string> inputs(
    "input",
    cl::desc("An argument, in order: a .npy file, `random` (the argument's "
             "static shape) or `random:AxBxC`; missing arguments are random"),
    cl::value_desc("file.npy|random[:shape]"));
static cl::opt<uint64_t> seed("seed", cl::desc("Seed of generated inputs"),
                              cl::init(0));
static cl::opt<std::string>
    outputDir("output-dir", cl::desc("Write outputs as DIR/out<i>.npy"),
              cl::value_desc("dir"));
static cl::opt<bool> printOutputs("print",
                                  cl::desc("Print the outputs (summarized)"));
static cl::opt<bool> bench("bench",
                           cl::desc("Print compile time and median run time"));
static cl::opt<unsigned> runs("runs", cl::desc("Timed runs for --bench"),
                              cl::init(20));
static cl::opt<std::string>
    deviceName("device",
               cl::desc("Where to compile for and run: cpu, cuda or cuda:N"),
               cl::value_desc("cpu|cuda[:N]"), cl::init("cpu"));
static cl::opt<bool> checkDevice(
    "check-device",
    cl::desc("Only say whether --device can be used (exit status 0, or 77 "
             "with the reason)"));

/// The exit status when --device cannot be used (what test drivers count
/// as skipped).
constexpr int kDeviceUnavailable = 77;

static std::optional<Device> parseDevice(llvm::StringRef text) {
  if (text == "cpu")
    return Device::cpu();
  if (text == "cuda")
    return Device::cuda();
  int index;
  if (text.consume_front("cuda:") && !text.getAsInteger(10, index) &&
      index >= 0)
    return Device::cuda(index);
  return std::nullopt;
}

/// The function's buffers on a device other than the CPU: inputs copied
/// there, outputs allocated there (a tied output is its argument's buffer),
/// all freed with it.
class DeviceBuffers {
public:
  DeviceBuffers(const jit::Target &target, Device device)
      : target(target), device(device) {}
  ~DeviceBuffers() {
    for (void *block : blocks)
      target.allocator(device).deallocate(block);
  }

  /// A new buffer of `bytes` holding a copy of `host` (if given).
  llvm::Expected<void *> make(size_t bytes, const void *host) {
    void *block = target.allocator(device).allocate(std::max<size_t>(bytes, 1));
    if (!block)
      return llvm::createStringError("cannot allocate " + llvm::Twine(bytes) +
                                     " bytes on " + device.str());
    blocks.push_back(block);
    if (host && bytes)
      if (llvm::Error error = target.copyFromHost(device, block, host, bytes))
        return std::move(error);
    return block;
  }

private:
  const jit::Target &target;
  Device device;
  std::vector<void *> blocks;
};

/// Prints `message` as an error and returns the exit code.
static int fail(const llvm::Twine &message) {
  llvm::errs() << "lazyc-run: error: " << message << "\n";
  return 1;
}

static std::optional<DType> dtypeOf(Type type) {
  for (DType dtype : kAllDTypes)
    if (lazyc::import::elementType(*type.getContext(), dtype) == type)
      return dtype;
  return std::nullopt;
}

/// Fills `array` with seeded values: floats uniform in [-1, 1), integers in
/// [-10, 10] (unsigned ones in [0, 20]), booleans fair.
static void fillRandom(npy::Array &array, std::mt19937_64 &engine) {
  size_t count = array.bytes.size() / sizeOf(array.dtype);
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int64_t> integer(-10, 10);
  for (size_t i = 0; i < count; ++i) {
    uint8_t *element = &array.bytes[i * sizeOf(array.dtype)];
    auto store = [&](auto value) {
      std::memcpy(element, &value, sizeof(value));
    };
    auto storeNarrow = [&](const llvm::fltSemantics &semantics) {
      llvm::APFloat value(real(engine));
      bool losesInfo = false;
      value.convert(semantics, llvm::APFloat::rmNearestTiesToEven, &losesInfo);
      store(static_cast<uint16_t>(value.bitcastToAPInt().getZExtValue()));
    };
    switch (array.dtype) {
    case DType::Float32:
      store(static_cast<float>(real(engine)));
      break;
    case DType::Float64:
      store(real(engine));
      break;
    case DType::Float16:
      storeNarrow(llvm::APFloat::IEEEhalf());
      break;
    case DType::BFloat16:
      storeNarrow(llvm::APFloat::BFloat());
      break;
    case DType::Int32:
      store(static_cast<int32_t>(integer(engine)));
      break;
    case DType::Int64:
      store(integer(engine));
      break;
    case DType::Bool:
      store(static_cast<uint8_t>(engine() & 1));
      break;
    case DType::Int8:
      store(static_cast<int8_t>(integer(engine)));
      break;
    case DType::UInt8:
      store(static_cast<uint8_t>(integer(engine) + 10));
      break;
    case DType::Int16:
      store(static_cast<int16_t>(integer(engine)));
      break;
    case DType::UInt16:
      store(static_cast<uint16_t>(integer(engine) + 10));
      break;
    case DType::UInt32:
      store(static_cast<uint32_t>(integer(engine) + 10));
      break;
    case DType::UInt64:
      store(static_cast<uint64_t>(integer(engine) + 10));
      break;
    }
  }
}

/// Parses `4x8` into {4, 8}; "" is a scalar.
static std::optional<std::vector<int64_t>> parseShape(llvm::StringRef text) {
  std::vector<int64_t> shape;
  if (text.empty())
    return shape;
  llvm::SmallVector<llvm::StringRef> parts;
  text.split(parts, 'x');
  for (llvm::StringRef part : parts) {
    int64_t dim;
    if (part.getAsInteger(10, dim) || dim < 0)
      return std::nullopt;
    shape.push_back(dim);
  }
  return shape;
}

/// Checks that `module` is a trace: functions with a body of lazy ops and a
/// func.return, nothing else (but the reads of run-time sizes). The CPU
/// pipeline is written for those; other ops (a call, a loop, an upstream op on
/// tensors) get a diagnostic here instead of whatever the pipeline or the
/// generated code makes of them.
static LogicalResult checkIsTrace(ModuleOp module) {
  for (Operation &op : module.getBody()->getOperations()) {
    auto function = dyn_cast<func::FuncOp>(op);
    if (!function)
      return op.emitOpError("is not a function: lazyc-run compiles modules "
                            "of functions of lazy ops");
    if (function.isExternal())
      return function.emitOpError("has no body");
    if (!llvm::hasSingleElement(function.getBody()))
      return function.emitOpError("has several blocks");
    for (Operation &inner : function.front()) {
      // The reads of the sizes a function takes at run time (its last
      // argument), as the trace importer writes them.
      auto extract = dyn_cast<tensor::ExtractOp>(inner);
      bool readsSize = (extract && isa<BlockArgument>(extract.getTensor())) ||
                       (isa<arith::ConstantOp, arith::IndexCastOp>(inner) &&
                        inner.getResult(0).getType().isIndex());
      if (!isa<lazy::LazyDialect>(inner.getDialect()) &&
          !isa<func::ReturnOp>(inner) && !readsSize)
        return inner.emitOpError(
            "is not a lazy op: lazyc-run compiles functions of lazy ops");
    }
  }
  return success();
}

/// The byte size of a `dtype` tensor of `shape`, or an error if it overflows
/// or exceeds this machine's memory: a std::vector that large cannot be
/// allocated, which would abort instead of saying so.
static llvm::Expected<size_t> byteSize(llvm::ArrayRef<int64_t> shape,
                                       DType dtype, const llvm::Twine &what) {
  std::string text = mlirShapeText(shape, jit::kDynamic);
  size_t bytes = sizeOf(dtype);
  for (int64_t dim : shape) {
    if (dim < 0)
      return llvm::createStringError(what + " has a dynamic shape (" + text +
                                     ")");
    if (__builtin_mul_overflow(bytes, static_cast<size_t>(dim), &bytes))
      return llvm::createStringError(what + " of shape " + text +
                                     " has too many elements");
  }
  uint64_t memory = uint64_t(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE);
  if (bytes > memory)
    return llvm::createStringError(what + " of shape " + text + " needs " +
                                   llvm::Twine(bytes) +
                                   " bytes, more than this machine's memory (" +
                                   llvm::Twine(memory) + ")");
  return bytes;
}

/// Prints up to 8 leading elements of `array`.
static void printSummary(llvm::raw_ostream &os, const npy::Array &array) {
  size_t count = array.bytes.size() / sizeOf(array.dtype);
  os << "[";
  for (size_t i = 0; i < std::min<size_t>(count, 8); ++i) {
    const uint8_t *element = &array.bytes[i * sizeOf(array.dtype)];
    auto load = [&](auto value) {
      std::memcpy(&value, element, sizeof(value));
      return value;
    };
    if (i)
      os << ", ";
    switch (array.dtype) {
    case DType::Float32:
      os << load(float());
      break;
    case DType::Float64:
      os << load(double());
      break;
    case DType::Float16:
    case DType::BFloat16: {
      llvm::APFloat value(array.dtype == DType::Float16
                              ? llvm::APFloat::IEEEhalf()
                              : llvm::APFloat::BFloat(),
                          llvm::APInt(16, load(uint16_t())));
      os << value.convertToFloat();
      break;
    }
    case DType::Int32:
      os << load(int32_t());
      break;
    case DType::Int64:
      os << load(int64_t());
      break;
    case DType::Bool:
      os << (load(uint8_t()) ? "true" : "false");
      break;
    case DType::Int8: // As numbers, not characters.
      os << static_cast<int>(load(int8_t()));
      break;
    case DType::UInt8:
      os << static_cast<int>(load(uint8_t()));
      break;
    case DType::Int16:
      os << load(int16_t());
      break;
    case DType::UInt16:
      os << load(uint16_t());
      break;
    case DType::UInt32:
      os << load(uint32_t());
      break;
    case DType::UInt64:
      os << load(uint64_t());
      break;
    }
  }
  os << (count > 8 ? ", ...]" : "]");
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(
      argc, argv,
      "lazyc-run: compile and run a function of a lazy .mlir file\n");

  std::optional<Device> device = parseDevice(deviceName);
  if (!device)
    return fail("bad --device '" + deviceName +
                "' (expected cpu, cuda or cuda:N)");
  const jit::Target &target = jit::targetFor(device->kind());
  if (std::string whyNot; !target.isAvailable(*device, whyNot)) {
    llvm::errs() << "lazyc-run: " << whyNot << "\n";
    return kDeviceUnavailable;
  }
  if (checkDevice) {
    llvm::outs() << device->str() << " can run traces\n";
    return 0;
  }
  if (llvm::StringRef(inputFile).ends_with(".onnx")) {
#ifdef LAZYC_HAVE_ONNX
    OnnxRunOptions options;
    options.path = inputFile;
    options.inputs.assign(inputs.begin(), inputs.end());
    options.seed = seed;
    options.outputDir = outputDir;
    options.print = printOutputs;
    options.runs = bench ? runs : 0;
    options.device = *device;
    return runOnnxModel(options);
#else
    return fail("this lazyc-run was built without ONNX (libonnx-dev)");
#endif
  }

  DialectRegistry registry;
  lazyc::registerAllDialects(registry);
  MLIRContext context(registry);
  // Diagnostics point at the source line; the op's generic form adds noise.
  context.printOpOnDiagnostic(false);
  // A function lazyc::save wrote: its module, and the values its functions
  // read after their own arguments.
  std::optional<model::ModelFile> saved;
  if (model::looksLikeModelFile(inputFile)) {
    std::string why;
    saved = model::read(inputFile, why);
    if (!saved)
      return fail("'" + inputFile.getValue() + "' " + why);
  }
  std::string openError;
  auto file = saved ? llvm::MemoryBuffer::getMemBuffer(
                          saved->module, inputFile.getValue(), false)
                    : openInputFile(inputFile, &openError);
  if (!file)
    return fail(openError);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;
  if (failed(checkIsTrace(*module)))
    return 1;

  // The function to run.
  func::FuncOp function;
  for (auto candidate : module->getOps<func::FuncOp>()) {
    if (!entryName.empty() && candidate.getSymName() != entryName)
      continue;
    if (function)
      return fail("the module has several functions: choose one with "
                  "--entry");
    function = candidate;
  }
  if (!function)
    return fail(entryName.empty() ? "the module has no function"
                                  : "no function @" + entryName);
  // A saved function's own arguments come first; the saved values follow.
  const model::Concrete *concrete = nullptr;
  if (saved)
    for (const model::Concrete &candidate : saved->functions)
      if (candidate.entry == function.getSymName())
        concrete = &candidate;

  // Inputs: read, or generated from the seed.
  std::mt19937_64 engine(seed);
  std::optional<std::vector<int64_t>> savedDimensions;
  std::vector<npy::Array> arguments;
  SmallVector<Type> argumentTypes;
  for (auto [index, type] : llvm::enumerate(function.getArgumentTypes())) {
    auto tensorType = dyn_cast<RankedTensorType>(type);
    std::optional<DType> dtype =
        tensorType ? dtypeOf(tensorType.getElementType()) : std::nullopt;
    if (!dtype)
      return fail(
          "argument #" + llvm::Twine(index) + " has type " +
          llvm::Twine(llvm::StringRef(llvm::formatv("{0}", type).str())) +
          ", not a tensor lazyc supports");
    llvm::StringRef spec =
        index < inputs.size() ? llvm::StringRef(inputs[index]) : "random";
    npy::Array array;
    size_t savedValues =
        concrete ? concrete->inputs.size() + concrete->captured.size() : 0;
    if (concrete && index == savedValues && !concrete->runtimeSizes.empty()) {
      // The sizes a saved function with unknown dimensions reads (its
      // inputs, read above, gave the dimensions).
      array = {DType::Int64,
               {int64_t(concrete->runtimeSizes.size())},
               std::vector<uint8_t>(concrete->runtimeSizes.size() * 8)};
      for (auto [i, size] : llvm::enumerate(concrete->runtimeSizes)) {
        int64_t value = size.evaluate(*savedDimensions);
        std::memcpy(array.bytes.data() + i * 8, &value, 8);
      }
    } else if (concrete && index >= concrete->inputs.size()) {
      const model::Value &value =
          *saved->value(concrete->captured[index - concrete->inputs.size()]);
      array = {value.dtype, value.shape, value.data};
    } else if (spec.starts_with("random")) {
      // A saved function's input is random at the shape it was saved with,
      // unless told another (its unknown dimensions take any size).
      bool saved = concrete && index < concrete->inputs.size();
      std::vector<int64_t> shape =
          saved ? concrete->inputs[index].shape
                : std::vector<int64_t>(tensorType.getShape());
      if (spec.consume_front("random:")) {
        std::optional<std::vector<int64_t>> parsed = parseShape(spec);
        if (!parsed)
          return fail("argument #" + llvm::Twine(index) + ": bad shape '" +
                      spec + "' (expected e.g. random:4x8)");
        shape = *parsed;
      } else if (!saved && !tensorType.hasStaticShape()) {
        return fail("argument #" + llvm::Twine(index) +
                    " has dynamic dimensions: give a .npy file or "
                    "--input=random:AxB");
      }
      llvm::Expected<size_t> bytes =
          byteSize(shape, *dtype, "argument #" + llvm::Twine(index));
      if (!bytes)
        return fail(llvm::toString(bytes.takeError()));
      array = {*dtype, shape, std::vector<uint8_t>(*bytes)};
      fillRandom(array, engine);
    } else {
      auto read = npy::read(spec, *dtype == DType::BFloat16);
      if (!read)
        return fail(llvm::toString(read.takeError()));
      array = std::move(*read);
      if (array.dtype != *dtype)
        return fail("argument #" + llvm::Twine(index) + ": " + spec +
                    " holds " + std::string(mlirName(array.dtype)) +
                    " data, the function takes " +
                    std::string(mlirName(*dtype)));
    }
    argumentTypes.push_back(
        RankedTensorType::get(array.shape, tensorType.getElementType()));
    arguments.push_back(std::move(array));
    // The sizes a saved function's inputs give its unknown dimensions, which
    // its run-time sizes and its results' shapes follow.
    if (concrete && !concrete->dimensions.empty() &&
        arguments.size() == concrete->inputs.size()) {
      std::vector<std::vector<int64_t>> shapes;
      for (const npy::Array &input : arguments)
        shapes.push_back(input.shape);
      std::string why;
      savedDimensions = concrete->dimensionSizes(shapes, why);
      if (!savedDimensions)
        return fail("the inputs do not fit " + concrete->entry + ": " + why);
    }
  }
  if (inputs.size() > arguments.size())
    return fail("got " + llvm::Twine(inputs.size()) + " inputs for " +
                llvm::Twine(arguments.size()) + " arguments");

  // Specialize to the actual shapes, so every output shape is known. (A
  // saved function with unknown dimensions knows its output shapes from
  // its file, and keeps them dynamic: sizes it reads as data follow them.)
  bool followsDimensions = concrete && !concrete->dimensions.empty();
  if (!followsDimensions &&
      failed(mlir::lazy::refineArgumentTypes(function, argumentTypes)))
    return fail("the inputs' shapes do not fit the function (see above)");
  std::string name = function.getSymName().str();
  // (Read before compiling: the module is lowered in place.)
  std::vector<int64_t> tiedArguments;
  for (unsigned index = 0, e = function.getNumResults(); index < e; ++index) {
    auto tie = function.getResultAttrOfType<IntegerAttr>(
        index, mlir::lazy::kTiedArgumentAttrName);
    tiedArguments.push_back(tie ? tie.getInt() : -1);
  }
  // Arguments the host code reads (a dumped trace's promoted literals and
  // runtime sizes) stay in host memory on every device.
  std::vector<bool> hostArguments;
  for (unsigned index = 0, e = function.getNumArguments(); index < e; ++index)
    hostArguments.push_back(
        function.getArgAttr(index, mlir::lazy::kHostBufferAttr) != nullptr);
  bool onHost = *device == Device::cpu();
  auto compiled = onHost ? jit::CompiledFunction::compile(*module, name)
                         : target.compile(*module, name, *device);
  if (!compiled)
    return fail(llvm::toString(compiled.takeError()));

  // Outputs, allocated once. A saved function's results whose sizes follow
  // its unknown dimensions get them from the file's formulas.
  std::vector<npy::Array> results;
  for (auto [index, spec] : llvm::enumerate((*compiled)->outputs())) {
    std::vector<int64_t> shape(spec.shape.begin(), spec.shape.end());
    if (savedDimensions && index < concrete->resultSizes.size())
      for (auto [axis, size] : llvm::enumerate(concrete->resultSizes[index]))
        shape[axis] = size.evaluate(*savedDimensions);
    llvm::Expected<size_t> bytes =
        byteSize(shape, spec.dtype, "result #" + llvm::Twine(index));
    if (!bytes)
      return fail(llvm::toString(bytes.takeError()));
    results.push_back({spec.dtype, shape, std::vector<uint8_t>(*bytes)});
  }
  // Host buffers, or copies on the device.
  DeviceBuffers deviceBuffers(target, *device);
  auto place = [&](npy::Array &array,
                   bool copyIn) -> llvm::Expected<jit::BufferView> {
    if (onHost)
      return jit::BufferView{array.bytes.data(), array.shape};
    llvm::Expected<void *> block = deviceBuffers.make(
        array.bytes.size(), copyIn ? array.bytes.data() : nullptr);
    if (!block)
      return block.takeError();
    return jit::BufferView{*block, array.shape};
  };
  std::vector<jit::BufferView> inputViews, outputViews;
  for (auto [index, array] : llvm::enumerate(arguments)) {
    if (hostArguments[index]) {
      inputViews.push_back({array.bytes.data(), array.shape});
      continue;
    }
    llvm::Expected<jit::BufferView> view = place(array, /*copyIn=*/true);
    if (!view)
      return fail(llvm::toString(view.takeError()));
    inputViews.push_back(*view);
  }
  for (auto [index, array] : llvm::enumerate(results)) {
    if (tiedArguments[index] >= 0) {
      outputViews.push_back(inputViews[tiedArguments[index]]);
      continue;
    }
    llvm::Expected<jit::BufferView> view = place(array, /*copyIn=*/false);
    if (!view)
      return fail(llvm::toString(view.takeError()));
    outputViews.push_back(*view);
  }

  using Clock = std::chrono::steady_clock;
  std::vector<double> times;
  unsigned count = bench ? std::max(1u, unsigned(runs)) + 1 : 1;
  for (unsigned i = 0; i < count; ++i) {
    auto start = Clock::now();
    if (llvm::Error error = (*compiled)->call(inputViews, outputViews))
      return fail(llvm::toString(std::move(error)));
    // A device's work is queued: a run ends when its stream does.
    if (!onHost)
      if (llvm::Error error = target.synchronize(*device))
        return fail(llvm::toString(std::move(error)));
    times.push_back(
        std::chrono::duration<double, std::milli>(Clock::now() - start)
            .count());
  }

  for (auto [index, array] : llvm::enumerate(results)) {
    if (tiedArguments[index] >= 0) {
      array.bytes = arguments[tiedArguments[index]].bytes;
      if (onHost)
        continue;
    }
    if (!onHost && !array.bytes.empty())
      if (llvm::Error error =
              target.copyToHost(*device, array.bytes.data(),
                                outputViews[index].data, array.bytes.size()))
        return fail(llvm::toString(std::move(error)));
  }

  if (!outputDir.empty()) {
    if (std::error_code error = llvm::sys::fs::create_directories(outputDir))
      return fail("cannot create " + outputDir + ": " + error.message());
    for (auto [index, array] : llvm::enumerate(results)) {
      llvm::SmallString<128> path(outputDir);
      llvm::sys::path::append(path, "out" + std::to_string(index) + ".npy");
      if (llvm::Error error = npy::write(path, array))
        return fail(llvm::toString(std::move(error)));
    }
  }
  if (printOutputs) {
    for (auto [index, array] : llvm::enumerate(results)) {
      llvm::outs() << "out" << index << ": "
                   << (*compiled)->outputs()[index].str() << " ";
      printSummary(llvm::outs(), array);
      llvm::outs() << "\n";
    }
  }
  if (bench) {
    // The first run warms caches and page tables; it is not counted.
    std::vector<double> timed(times.begin() + 1, times.end());
    std::sort(timed.begin(), timed.end());
    const jit::CompileStats &stats = (*compiled)->stats();
    if (stats.loadedFromDiskCache)
      llvm::outs() << llvm::formatv(
          "compile: {0:f1} ms (loaded from the compile cache)\n",
          stats.codegenMs);
    else
      llvm::outs() << llvm::formatv(
          "compile: {0:f1} ms (MLIR pipeline {1:f1} ms, LLVM {2:f1} ms{3})\n",
          stats.pipelineMs + stats.codegenMs, stats.pipelineMs, stats.codegenMs,
          stats.storedToDiskCache ? ", stored in the compile cache" : "");
    llvm::outs() << llvm::formatv(
        "run: median {0:f3} ms over {1} runs (min {2:f3}, max {3:f3})\n",
        timed[timed.size() / 2], timed.size(), timed.front(), timed.back());
  }
  return 0;
}
