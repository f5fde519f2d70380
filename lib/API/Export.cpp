//===- Export.cpp - Saving staged functions and loading them --------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// lazyc::save traces each concrete function once more, as a region (the
// way whileLoop traces its body): its Tensor arguments are Parameter leaves,
// what it reads from outside is captured, and its Variable assignments
// become results. That region, with the Parameters and the captured buffers
// as arguments and the literals baked in, is imported like any trace and
// written as MLIR bytecode next to the captured values (lazyc/Model).
// lazyc::load compiles each function with the CPU target and calls it with
// the caller's Tensors followed by the saved values.
//
// A signature's unknown dimensions (-1) stay unknown: the function is
// traced at two more sizes of each (stageSymbolically), the sizes that
// follow them are left to the call in the saved module, and the file says
// how the sizes it reads at run time and its results' shapes follow them.
// A loaded function compiles for the device it is loaded on.
//
//===----------------------------------------------------------------------===//

#include "lazyc/API/Export.h"
#include "Engine/Engine.h"
#include "FunctionState.h"
#include "RegionTracer.h"
#include "TensorAccess.h"
#include "VariableState.h"
#include "lazyc/API/StagedTrace.h"

#include "lazyc/Formats/ModelFile.h"
#include "lazyc/Import/TraceImporter.h"
#include "lazyc/InitAll.h"
#include "lazyc/JIT/CompiledFunction.h"
#include "lazyc/JIT/Target.h"
#include "lazyc/Runtime/Shape.h"
#include "lazyc/Trace/Region.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <map>
#include <memory>
#include <mutex>
#include <optional>

#ifndef LAZYC_VERSION_STRING
#define LAZYC_VERSION_STRING "unknown"
#endif

using namespace lazyc;
using namespace lazyc::trace;
using lazyc::detail::SymbolicStaging;

namespace {

/// The context exported and loaded modules live in (loaded functions keep
/// theirs), and the lock around it.
struct ExportContext {
  std::mutex mutex;
  mlir::MLIRContext context;
  ExportContext() {
    mlir::DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }
};
ExportContext &exportContext() {
  static ExportContext *shared = new ExportContext; // Outlives every user.
  return *shared;
}

NodePtr parameterNode(DType dtype, const std::vector<int64_t> &shape,
                      int64_t index, SourceLocation where) {
  NodePtr node = makeNode();
  node->kind = OpKind::Parameter;
  node->dtype = dtype;
  node->shape = shape;
  node->device = Device::cpu();
  node->integer = index;
  node->loc = {where.file_name(), where.line()};
  node->computeContentHash();
  return node;
}

/// The bytes of a materialized value, little-endian and row-major.
std::vector<uint8_t> bytesOf(const Node &node, const char *op,
                             SourceLocation where) {
  std::vector<uint8_t> staging;
  const void *data = engine::hostData(node, staging, op, where);
  size_t size = static_cast<size_t>(node.numel()) * sizeOf(node.dtype);
  const auto *bytes = static_cast<const uint8_t *>(data);
  return std::vector<uint8_t>(bytes, bytes + size);
}

} // namespace

//===----------------------------------------------------------------------===//
// save
//===----------------------------------------------------------------------===//

std::vector<uint8_t> detail::valueBytes(const Node &node,
                                        SourceLocation where) {
  return bytesOf(node, "save", where);
}

size_t detail::concreteCount(const FunctionState &state) {
  return state.concrete.size();
}

const std::string &detail::functionName(const FunctionState &state) {
  return state.name;
}

std::vector<std::vector<int64_t>>
detail::signatureShapes(const FunctionState &state) {
  std::vector<std::vector<int64_t>> shapes;
  if (state.signature)
    for (const TensorSpec &spec : *state.signature)
      shapes.push_back(spec.shape);
  return shapes;
}

detail::StagedTrace
detail::stageConcrete(const FunctionState &state, size_t k,
                      const std::vector<std::vector<int64_t>> &inputShapes,
                      SourceLocation where) {
  const std::string &op = state.name;
  if (k >= state.concrete.size())
    throw Error(op,
                "has no concrete function to save yet: call it first (each "
                "is saved at the argument types of its first call)",
                where);
  if (!state.replays[k])
    throw Error(op,
                "cannot be saved: its body is not copyable, so lazyc "
                "cannot call it again to trace it",
                where);
  // What the function reads from outside must be values, not pending work.
  lazyc::sync();
  bool wasEager = engine::setEager(false);
  std::vector<const VariableState *> variables;
  collectVariables(&variables);
  auto restore = llvm::scope_exit([&] {
    collectVariables(nullptr);
    engine::setEager(wasEager);
  });
  auto nameOf = [&](const VariableState &variable) {
    return variable.name.empty() ? "variable#" + std::to_string(variable.id)
                                 : variable.name;
  };

  StagedTrace staged;
  // The call, traced as a region over Parameters.
  for (auto [i, type] : llvm::enumerate(state.inputTypes[k])) {
    const std::vector<int64_t> &shape =
        inputShapes.empty() ? type.second : inputShapes[i];
    staged.parameters.push_back(
        detail::TensorAccess::wrap(parameterNode(type.first, shape, i, where)));
    std::string name = state.signature && !(*state.signature)[i].name.empty()
                           ? (*state.signature)[i].name
                           : "arg" + std::to_string(i);
    staged.inputs.push_back({name, type.first, shape});
  }
  RegionTracer tracer("function", where);
  for (const Tensor &parameter : staged.parameters)
    tracer.own(detail::TensorAccess::node(parameter).get());
  std::vector<Tensor> results =
      tracer.trace([&] { return state.replays[k](staged.parameters); });
  std::vector<NodePtr> outputs;
  for (const Tensor &result : results) {
    if (!result.defined())
      throw Error(op, "cannot be saved: it returns an empty Tensor", where);
    outputs.push_back(detail::TensorAccess::node(result));
    staged.results.push_back({"", result.dtype(), result.shape()});
  }
  for (const RegionTracer::Assignment &assignment : tracer.assignments()) {
    outputs.push_back(detail::TensorAccess::node(assignment.after));
    staged.results.push_back({nameOf(*assignment.state),
                              assignment.after.dtype(),
                              assignment.after.shape()});
  }
  Captures captures(/*firstOperand=*/0);
  staged.region = extractRegion(outputs, tracer.recorder(), captures);

  // The region as a trace: Parameters, then captured buffers, are the
  // arguments; captured literals are baked in.
  const Trace &body = staged.region.body;
  Trace &traced = staged.trace;
  traced.nodes = body.nodes;
  traced.operandList = body.operandList;
  traced.operandStart = body.operandStart;
  traced.outputs = body.outputs;
  traced.tiedArguments.assign(traced.outputs.size(), -1);
  traced.device = Device::cpu();
  std::vector<int32_t> parameterAt(staged.parameters.size(), -1);
  for (auto [i, node] : llvm::enumerate(traced.nodes))
    if (node->kind == OpKind::Parameter)
      parameterAt[node->integer] = static_cast<int32_t>(i);
  for (auto [i, at] : llvm::enumerate(parameterAt)) {
    if (at < 0) { // An argument the function does not read.
      at = static_cast<int32_t>(traced.nodes.size());
      traced.nodes.push_back(
          detail::TensorAccess::node(staged.parameters[i]).get());
      traced.operandStart.push_back(traced.operandStart.back());
    }
    traced.arguments.push_back(at);
  }
  for (int32_t index : body.arguments) {
    const Node &node = *body.nodes[index];
    if (node.kind == OpKind::Literal && !node.isMaterialized()) {
      traced.literals.push_back(index);
      continue;
    }
    if (!node.isMaterialized())
      throw Error(op,
                  "cannot be saved: it reads a value computed outside it "
                  "that is not a Variable or an argument (`" +
                      std::string(opName(node.kind)) + "`)",
                  where);
    traced.arguments.push_back(index);
    std::string variableName;
    for (const VariableState *variable : variables)
      if (detail::TensorAccess::node(variable->value).get() == &node)
        variableName = nameOf(*variable);
    staged.capturedVariables.push_back(variableName);
  }
  return staged;
}

/// The sizes of `symbolic`'s trace (numbered as traceSizes()) that follow
/// the signature's unknown dimensions, left to the call of the saved
/// function; fills in `concrete` how they (and its inputs, run-time sizes
/// and results) follow them. An Error naming the function `name` where
/// the module could not follow them: a size that is no affine function of
/// one dimension, a literal or slice bound computed from one, a broadcast
/// stretching one from 1.
static std::vector<bool>
followDimensions(const detail::SymbolicStaging &symbolic,
                 const std::vector<std::vector<int64_t>> &spec,
                 model::Concrete &concrete, const std::string &name,
                 SourceLocation where) {
  const Trace &traced = symbolic.base.trace;
  auto fail = [&](const Node &node, const std::string &why) {
    throw Error("save",
                name + " cannot be saved with its unknown dimensions: " +
                    std::string(opName(node.kind)) + " (recorded at " +
                    engine::fileAndLine(node.loc.file, node.loc.line) + ") " +
                    why + "; give the dimensions sizes in the signature",
                where);
  };
  auto shapeEntry = [](const Node &node, size_t i) { return node.shape[i]; };
  auto formula = [&](int32_t position, size_t i,
                     const detail::SymbolicStaging::Entry &entry) {
    detail::SizeExpression e = symbolic.expression(position, entry, i);
    if (!e.affine)
      fail(*traced.nodes[position],
           "has a size that follows the unknown dimensions in a way lazyc "
           "cannot write (several of them, or not an affine function of one)");
    return model::SizeFormula{e.dimension, e.scale, e.offset, e.divisor};
  };

  for (const detail::UnknownDimension &dimension : symbolic.dimensions)
    concrete.dimensions.push_back(dimension.name);
  for (auto [i, input] : llvm::enumerate(concrete.inputs)) {
    concrete.inputDimensions.emplace_back(input.shape.size(), -1);
    for (size_t axis = 0; axis < input.shape.size(); ++axis)
      if (i < spec.size() && spec[i][axis] == -1)
        for (auto [d, dimension] : llvm::enumerate(symbolic.dimensions))
          if (dimension.size == input.shape[axis])
            concrete.inputDimensions[i][axis] = static_cast<int32_t>(d);
  }

  std::vector<bool> dynamic;
  for (auto [position, node] : llvm::enumerate(traced.nodes)) {
    for (size_t i = 0; i < node->shape.size(); ++i)
      dynamic.push_back(formula(int32_t(position), i, shapeEntry).dimension >=
                        0);
    if (node->kind != OpKind::Slice)
      continue;
    // The importer writes a slice's bounds as they are.
    auto start = [](const Node &n, size_t i) { return n.ints[i]; };
    auto limit = [](const Node &n, size_t i) { return n.ints2[i]; };
    for (size_t i = 0; i < node->ints.size(); ++i)
      if (symbolic.expression(int32_t(position), start, i).dimension >= 0 ||
          symbolic.expression(int32_t(position), limit, i).dimension >= 0)
        fail(*node, "has bounds computed from an unknown dimension's size");
  }
  for (int32_t index : traced.literals)
    if (symbolic.literalVaries(index))
      fail(*traced.nodes[index],
           "holds a value computed from an unknown dimension's size (compute "
           "it with tensor ops: mean rather than sum / size)");
  std::vector<bool> stretched;
  stretchedSizes(traced, stretched);
  size_t offset = 0;
  for (const Node *node : traced.nodes)
    for (size_t i = 0; i < node->shape.size(); ++i, ++offset)
      if (stretched[offset] && dynamic[offset])
        fail(*node, "stretches an unknown dimension from its first call's "
                    "size 1; call the function first with another size");

  std::vector<std::pair<int32_t, size_t>> positions;
  runtimeSizePositions(traced, dynamic, positions);
  for (auto [position, i] : positions)
    concrete.runtimeSizes.push_back(formula(position, i, shapeEntry));
  for (int32_t output : traced.outputs) {
    concrete.resultSizes.emplace_back();
    for (size_t i = 0; i < traced.nodes[output]->shape.size(); ++i)
      concrete.resultSizes.back().push_back(formula(output, i, shapeEntry));
  }
  return dynamic;
}

void detail::saveFunction(const FunctionState &state, const std::string &path,
                          SourceLocation where) {
  const std::string &op = state.name;
  if (state.concrete.empty())
    throw Error(op,
                "has no concrete function to save yet: call it first (each "
                "is saved at the argument types of its first call)",
                where);
  ExportContext &shared = exportContext();
  std::lock_guard<std::mutex> lock(shared.mutex);

  model::ModelFile file;
  file.name = state.name;
  file.lazycVersion = LAZYC_VERSION_STRING;
  mlir::OwningOpRef<mlir::ModuleOp> combined =
      mlir::ModuleOp::create(mlir::UnknownLoc::get(&shared.context));
  std::map<const Node *, std::string> valueNames;

  std::vector<std::vector<int64_t>> spec = signatureShapes(state);
  bool unknownDimensions = llvm::any_of(
      spec, [](const auto &shape) { return llvm::is_contained(shape, -1); });
  for (size_t k = 0; k < state.concrete.size(); ++k) {
    // With unknown dimensions, traced at other sizes too: how each size
    // follows them.
    std::optional<SymbolicStaging> symbolic;
    StagedTrace plain;
    if (unknownDimensions)
      symbolic = stageSymbolically(state, k, "save", where);
    else
      plain = stageConcrete(state, k, {}, where);
    const StagedTrace &staged = symbolic ? symbolic->base : plain;
    model::Concrete concrete;
    concrete.entry = state.name + "_" + std::to_string(k);
    concrete.signature = state.concrete[k].signature();
    for (const StagedTrace::Value &input : staged.inputs)
      concrete.inputs.push_back({input.name, input.dtype, input.shape});
    for (const StagedTrace::Value &result : staged.results)
      concrete.results.push_back({result.name, result.dtype, result.shape});
    import::ImportOptions options;
    if (symbolic)
      options.dynamicSizes =
          followDimensions(*symbolic, spec, concrete, state.name, where);

    const Trace &traced = staged.trace;
    for (auto [i, variableName] : llvm::enumerate(staged.capturedVariables)) {
      const Node &node =
          *traced.nodes[traced.arguments[staged.inputs.size() + i]];
      auto [it, inserted] = valueNames.try_emplace(&node);
      if (inserted) {
        it->second = variableName;
        if (it->second.empty())
          it->second = "constant#" + std::to_string(valueNames.size() - 1);
        else if (file.value(it->second))
          throw Error(op,
                      "cannot be saved: two Variables it uses are named '" +
                          it->second + "'",
                      where);
        model::Value value;
        value.name = it->second;
        value.dtype = node.dtype;
        value.shape = node.shape;
        value.data = bytesOf(node, "save", where);
        file.values.push_back(std::move(value));
      }
      concrete.captured.push_back(it->second);
    }
    mlir::OwningOpRef<mlir::ModuleOp> module =
        import::importTrace(traced, shared.context, options, concrete.entry);
    for (mlir::func::FuncOp function :
         llvm::make_early_inc_range(module->getOps<mlir::func::FuncOp>())) {
      function->remove();
      combined->push_back(function);
    }
    file.functions.push_back(std::move(concrete));
  }

  llvm::raw_string_ostream os(file.module);
  if (mlir::failed(mlir::writeBytecodeToFile(combined.get(), os)))
    throw Error(op, "cannot be saved: writing MLIR bytecode failed", where);
  os.flush();
  if (std::string why; !model::write(file, path, why))
    throw Error(op, "'" + path + "' " + why, where);
}

//===----------------------------------------------------------------------===//
// load
//===----------------------------------------------------------------------===//

namespace lazyc::detail {
struct LoadedState {
  model::ModelFile file;
  /// Where the functions run, their values live and their results go.
  Device device = Device::cpu();
  struct Function {
    const model::Concrete *concrete;
    mlir::OwningOpRef<mlir::ModuleOp> module;
    std::unique_ptr<jit::CompiledFunction> compiled;
  };
  std::vector<Function> functions;
  std::map<std::string, std::unique_ptr<Variable>> variables;
  std::map<std::string, Tensor> constants;
};
} // namespace lazyc::detail

/// The functions of `file` compiled for `device`, and its values there.
/// `source` names the file in errors.
static std::unique_ptr<detail::LoadedState> prepare(model::ModelFile file,
                                                    Device device,
                                                    const std::string &source,
                                                    SourceLocation where) {
  engine::checkAvailable(device, "load", where);
  auto state = std::make_unique<detail::LoadedState>();
  state->file = std::move(file);
  state->device = device;
  const model::ModelFile &saved = state->file;
  const jit::Target &target = jit::targetFor(device.kind());

  ExportContext &shared = exportContext();
  {
    std::lock_guard<std::mutex> lock(shared.mutex);
    llvm::SourceMgr sources;
    sources.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBuffer(saved.module, source,
                                         /*RequiresNullTerminator=*/false),
        llvm::SMLoc());
    mlir::ParserConfig config(&shared.context);
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceFile<mlir::ModuleOp>(sources, config);
    if (!module)
      throw Error("load", "'" + source + "': its MLIR module does not parse",
                  where);
    for (const model::Concrete &concrete : saved.functions) {
      auto function = module->lookupSymbol<mlir::func::FuncOp>(concrete.entry);
      if (!function)
        throw Error("load",
                    "'" + source + "' is malformed: no function @" +
                        concrete.entry,
                    where);
      // Compiling lowers a module in place: one module per function.
      detail::LoadedState::Function loaded{&concrete, nullptr, nullptr};
      loaded.module = mlir::ModuleOp::create(function.getLoc());
      loaded.module->push_back(function.clone());
      auto compiled = jit::CompiledFunction::compile(
          *loaded.module, concrete.entry, target, device.index());
      if (!compiled)
        throw Error("load",
                    "'" + source + "': " + concrete.entry +
                        " does not compile for " + device.str() + ": " +
                        llvm::toString(compiled.takeError()),
                    where);
      loaded.compiled = std::move(*compiled);
      state->functions.push_back(std::move(loaded));
    }
  }
  for (const model::Value &value : saved.values) {
    Tensor tensor = detail::TensorAccess::wrap(engine::newValue(
        value.dtype, value.shape, value.data.data(), "load", where, device));
    if (llvm::StringRef(value.name).starts_with("constant#"))
      state->constants.emplace(value.name, tensor);
    else
      state->variables.emplace(
          value.name, std::make_unique<Variable>(tensor, value.name, where));
  }
  return state;
}

LoadedFunction lazyc::load(const std::string &path, Device device,
                           SourceLocation where) {
  std::string why;
  std::optional<model::ModelFile> read = model::read(path, why);
  if (!read)
    throw Error("load", "'" + path + "' " + why, where);
  return LoadedFunction(
      prepare(std::move(*read), device, path, where).release());
}

LoadedFunction LoadedFunction::to(Device device, SourceLocation where) const {
  std::unique_ptr<detail::LoadedState> moved =
      prepare(state->file, device, state->file.name, where);
  // The Variables as calls left them, not as saved.
  for (const auto &[name, variable] : state->variables)
    moved->variables.at(name)->assign(variable->read(where).to(device, where),
                                      where);
  return LoadedFunction(moved.release());
}

Device LoadedFunction::device() const { return state->device; }

LoadedFunction::LoadedFunction(LoadedFunction &&other) noexcept
    : state(other.state) {
  other.state = nullptr;
}

LoadedFunction &LoadedFunction::operator=(LoadedFunction &&other) noexcept {
  if (this != &other) {
    delete state;
    state = other.state;
    other.state = nullptr;
  }
  return *this;
}

LoadedFunction::~LoadedFunction() { delete state; }

const std::string &LoadedFunction::name() const { return state->file.name; }

std::vector<std::string> LoadedFunction::signatures() const {
  std::vector<std::string> signatures;
  for (const model::Concrete &concrete : state->file.functions)
    signatures.push_back(concrete.signature);
  return signatures;
}

Variable &LoadedFunction::variable(const std::string &name) {
  auto found = state->variables.find(name);
  if (found == state->variables.end())
    throw Error(state->file.name, "has no Variable named '" + name + "'");
  return *found->second;
}

std::vector<std::string> LoadedFunction::variableNames() const {
  std::vector<std::string> names;
  for (const auto &[name, variable] : state->variables)
    names.push_back(name);
  return names;
}

LoadedResults::operator Tensor() const {
  if (values.size() != 1)
    throw Error(function,
                "returns " + std::to_string(values.size()) +
                    " results, not one: take them as a std::vector<Tensor>",
                where);
  return values.front();
}

std::vector<Tensor>
LoadedFunction::operator()(const std::vector<Tensor> &inputs,
                           SourceLocation where) {
  const std::string &op = state->file.name;
  std::vector<std::vector<int64_t>> shapes;
  for (const Tensor &input : inputs)
    shapes.push_back(input.defined() ? input.shape() : std::vector<int64_t>{});
  detail::LoadedState::Function *chosen = nullptr;
  std::vector<int64_t> dimensionSizes;
  for (detail::LoadedState::Function &function : state->functions) {
    const model::Concrete &concrete = *function.concrete;
    bool matches = concrete.inputs.size() == inputs.size();
    for (size_t i = 0; matches && i < inputs.size(); ++i)
      matches =
          inputs[i].defined() && inputs[i].dtype() == concrete.inputs[i].dtype;
    std::string why;
    std::optional<std::vector<int64_t>> sizes;
    if (matches)
      sizes = concrete.dimensionSizes(shapes, why);
    if (sizes) {
      chosen = &function;
      dimensionSizes = std::move(*sizes);
      break;
    }
  }
  if (!chosen) {
    std::vector<std::string> given;
    for (const Tensor &input : inputs)
      given.push_back(input.defined() ? typeText(input.dtype(), input.shape())
                                      : "(empty)");
    throw Error(op,
                "no saved concrete function takes (" + llvm::join(given, ", ") +
                    "); it was saved for " + llvm::join(signatures(), "; "),
                where);
  }
  for (auto [i, input] : llvm::enumerate(inputs))
    if (input.device() != state->device)
      throw Error(op,
                  "runs on " + state->device.str() + ", but input " +
                      std::to_string(i + 1) + " is on " + input.device().str() +
                      " (move it with .to(), or the function with "
                      "LoadedFunction::to)",
                  where);
  const model::Concrete &concrete = *chosen->concrete;

  // Arguments: the caller's, then the saved values, all computed, then
  // the sizes the function reads (host memory on every device).
  std::vector<Tensor> arguments = inputs;
  for (const std::string &name : concrete.captured) {
    auto variable = state->variables.find(name);
    arguments.push_back(variable != state->variables.end()
                            ? variable->second->read(where)
                            : state->constants.at(name));
  }
  lazyc::sync();
  std::vector<jit::BufferView> views;
  for (const Tensor &argument : arguments) {
    const Node &node = *detail::TensorAccess::node(argument);
    views.push_back({node.value->data(), node.shape});
  }
  std::vector<int64_t> runtimeSizes;
  int64_t runtimeSizeCount = 0;
  for (const model::SizeFormula &size : concrete.runtimeSizes)
    runtimeSizes.push_back(size.evaluate(dimensionSizes));
  if (!runtimeSizes.empty()) {
    runtimeSizeCount = static_cast<int64_t>(runtimeSizes.size());
    views.push_back({runtimeSizes.data(), {&runtimeSizeCount, 1}});
  }
  std::vector<Tensor> outputs;
  std::vector<jit::BufferView> outputViews;
  for (auto [result, sizes] :
       llvm::zip(concrete.results, concrete.resultSizes)) {
    std::vector<int64_t> shape;
    for (const model::SizeFormula &size : sizes)
      shape.push_back(size.evaluate(dimensionSizes));
    outputs.push_back(detail::TensorAccess::wrap(engine::newOutput(
        result.dtype, std::move(shape), state->device, op.c_str(), where)));
    const Node &node = *detail::TensorAccess::node(outputs.back());
    outputViews.push_back({node.value->data(), node.shape});
  }
  if (llvm::Error error = chosen->compiled->call(views, outputViews))
    throw Error(op, llvm::toString(std::move(error)), where);

  std::vector<Tensor> results;
  for (auto [result, output] : llvm::zip(concrete.results, outputs)) {
    if (result.name.empty())
      results.push_back(output);
    else
      state->variables.at(result.name)->assign(output, where);
  }
  return results;
}
