//===- Materialize.cpp - Requested values, computed -----------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements materialization, the walk of a requested value down
// the layers: extract the trace (lib/Trace), cut it at its CompileBlock
// bounds and its repeated blocks, ask the function cache which compiled
// function serves it (FunctionCache::select, which compiles on a miss
// through CompileService.h: lib/Import, then the target of the trace's
// device, lib/JIT), allocate the outputs from the device's allocator, bind
// the arguments, run the function, memoize the outputs and release the
// graph above them. Also the host's view of buffers on other devices.
//
//===----------------------------------------------------------------------===//

#include "CompileService.h"
#include "Convert.h"
#include "Counters.h"
#include "Engine.h"
#include "Explain.h"
#include "FunctionCache.h"
#include "Profiler.h"

#include "lazyc/API/Compile.h"
#include "lazyc/JIT/Target.h"
#include "lazyc/Runtime/Runtime.h"
#include "lazyc/Runtime/Shape.h"
#include "lazyc/Trace/Blocks.h"
#include "lazyc/Trace/Trace.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <unordered_map>
#include <unordered_set>

using namespace lazyc;
using namespace lazyc::engine;
using namespace lazyc::trace;

namespace {

/// "toVector at tour.cpp:35": what asked for a trace, for explanations.
/// Printing and bool conversions cannot see the user's line: they name the
/// op that made the value instead.
std::string causeText(Cause cause, SourceLocation where, const Node &value) {
  static const char *const names[] = {
      "item",       "toVector",
      "printing",   "a bool conversion",
      "sync",       "the trace size limit",
      "eager mode", "Variables' initial values"};
  static_assert(std::size(names) ==
                    static_cast<size_t>(Cause::InitialValues) + 1,
                "a name for every Cause");
  std::string text = names[static_cast<int>(cause)];
  if (where.line())
    text += " at " + fileAndLine(where.file_name(), where.line());
  else if (value.loc.line)
    text += std::string(" of `") + opName(value.kind) + "` at " +
            fileAndLine(value.loc.file, value.loc.line);
  return text;
}

/// The line that asked for a trace, as metrics() counts it (causeText's
/// parts, without building the text).
Site siteOf(Cause cause, SourceLocation where, const Node &value) {
  if (where.line())
    return {cause, where.file_name(), where.line(), nullptr};
  if (value.loc.line)
    return {cause, value.loc.file, value.loc.line, opName(value.kind)};
  return {cause, "", 0, nullptr};
}

} // namespace

/// " on cuda:0: out of memory ... (N bytes free of M)": where an allocation
/// failed and, from the device's allocator (which emptied its cache and
/// tried again first), how much it asked for and how much was free.
static std::string outOfMemory(Device device) {
  std::string text = " on " + device.str();
  const char *why = lazyrt_get_last_error();
  if (why && *why)
    text += std::string(": ") + why;
  return text;
}

static std::atomic<bool> &repeatedBlocksSwitch() {
  static std::atomic<bool> enabled = [] {
    const char *value = std::getenv("LAZYC_REPEATED_BLOCKS");
    return !value || std::strcmp(value, "0") != 0;
  }();
  return enabled;
}

void lazyc::setRepeatedBlocks(bool enable) { repeatedBlocksSwitch() = enable; }
bool lazyc::isCuttingRepeatedBlocks() { return repeatedBlocksSwitch(); }

namespace {
/// A trace structure's cut, and whether it was explained.
struct RememberedCut {
  std::vector<uint64_t> signature;
  BlockCut cut;
  /// Whether LAZYC_EXPLAIN has told it (when the trace first ran cut).
  bool told = false;
};
} // namespace

/// The cut of `trace` at its repeated blocks (findRepeatedBlocks),
/// remembered per structure: a step that runs every iteration searches
/// once.
static RememberedCut &blockCutOf(const Trace &trace) {
  static thread_local std::unordered_map<uint64_t, RememberedCut> cuts;
  auto it = cuts.find(trace.key);
  if (it != cuts.end() && it->second.signature == trace.signature)
    return it->second;
  if (cuts.size() >= 64)
    cuts.clear();
  RememberedCut &entry = cuts[trace.key];
  entry.signature = trace.signature;
  entry.cut = findRepeatedBlocks(trace);
  return entry;
}

/// Says on stderr (LAZYC_EXPLAIN) how `trace` is cut as `cut`, once per
/// structure (`told`).
static void explainCut(const Trace &trace, const BlockCut &cut, bool &told) {
  if (explain::enabled() && !told) {
    told = true;
    std::string line =
        "lazyc: a trace of " + std::to_string(trace.nodes.size()) +
        " nodes runs as " + std::to_string(cut.segmentStarts.size()) +
        " traces, cut at " + (cut.atBlockBounds ? "CompileBlock bounds" : "") +
        (cut.atBlockBounds && !cut.blocks.empty() ? " and " : "") +
        (cut.blocks.empty() ? "." : "its repeated blocks:");
    for (const RepeatedBlock &block : cut.blocks)
      line += " " + std::to_string(block.count) + " copies of " +
              std::to_string(block.length) + " nodes from node " +
              std::to_string(block.start) + ";";
    line.back() = '\n';
    std::fputs(line.c_str(), stderr);
  }
}

size_t engine::nodesToCompile(const std::vector<Node *> &requested) {
  static thread_local Trace trace;
  if (requested.empty())
    return 0;
  for (const Node *node : requested)
    if (node->device != requested.front()->device)
      return SIZE_MAX;
  extractTrace(requested, false, trace);
  size_t nodes = trace.nodes.size();
  if (isCuttingRepeatedBlocks() &&
      nodes >= size_t(BlockSearchOptions().minTraceNodes))
    for (const RepeatedBlock &block : blockCutOf(trace).cut.blocks)
      nodes -= size_t(block.count - 1) * block.length;
  if (pendingSpansBlocks())
    if (BlockCut marked = cutAtBlockBounds(trace);
        !marked.segmentStarts.empty())
      nodes = std::min(nodes, nodesOfDistinctSegments(trace, marked));
  return nodes;
}

static void materializeOn(const std::vector<Node *> &requested, Cause cause,
                          SourceLocation where);

/// How `trace` is cut: at the CompileBlock bounds its nodes were recorded
/// between and at its repeated blocks; null to run it whole.
static const BlockCut *cutOf(const Trace &trace) {
  RememberedCut *searched = nullptr;
  if (isCuttingRepeatedBlocks() &&
      trace.nodes.size() >= size_t(BlockSearchOptions().minTraceNodes))
    searched = &blockCutOf(trace);
  static thread_local BlockCut marked;
  static thread_local std::unordered_set<uint64_t> toldMarked;
  if (pendingSpansBlocks()) {
    marked = cutAtBlockBounds(trace);
    if (!marked.segmentStarts.empty()) {
      if (searched && !searched->cut.segmentStarts.empty())
        marked = mergeCuts(marked, searched->cut);
      if (toldMarked.size() >= 64)
        toldMarked.clear();
      bool told = !toldMarked.insert(trace.key).second;
      explainCut(trace, marked, told);
      return &marked;
    }
  }
  if (!searched || searched->cut.segmentStarts.empty())
    return nullptr;
  explainCut(trace, searched->cut, searched->told);
  return &searched->cut;
}

/// Whether this thread is running the segments of a cut trace.
static thread_local bool runningSegments = false;

/// Materializes `trace` segment by segment, as `cut` says: each segment is
/// a trace of its own, and the copies of a repeated block share one
/// compiled function.
static void materializeInBlocks(const Trace &trace, const BlockCut &cut,
                                Cause cause, SourceLocation where) {
  std::vector<CutValue> values = valuesAcrossCuts(trace, cut);
  const size_t segments = cut.segmentStarts.size();
  // Each segment's values, and the owners of those only later nodes own
  // (released as earlier segments run), dropped after their last reader.
  std::vector<std::vector<Node *>> computes(segments);
  std::vector<std::vector<NodePtr>> releaseAfter(segments);
  for (const CutValue &value : values) {
    computes[value.segment].push_back(trace.nodes[value.position]);
    if (value.reader >= 0)
      releaseAfter[value.lastReader].push_back(
          trace.nodes[value.reader]->inputs[value.slot]);
  }
  std::vector<char> isCopy(segments, 0);
  for (const RepeatedBlock &block : cut.blocks)
    for (size_t s = 0; s < segments; ++s)
      isCopy[s] = isCopy[s] || (cut.segmentStarts[s] >= block.start &&
                                cut.segmentStarts[s] <
                                    block.start + block.count * block.length);
  runningSegments = true;
  llvm::scope_exit done([] { runningSegments = false; });
  Counters &c = counters();
  for (size_t s = 0; s < segments; ++s) {
    if (!computes[s].empty()) {
      // Copies of a block the search found, else blocks between
      // CompileBlock bounds.
      c.repeatedBlocks += isCopy[s];
      c.compileBlocks += !isCopy[s] && cut.atBlockBounds;
      materializeOn(computes[s], cause, where);
    }
    releaseAfter[s].clear();
  }
}

/// A new buffer for `node`'s value on its device; a lazyc::Error about
/// `op` (the node's own unless given) at the node's line if the device is
/// out of memory.
static std::shared_ptr<Buffer> newBufferFor(const Node &node,
                                            const char *op = nullptr) {
  const jit::Target &target = jit::targetFor(node.device.kind());
  try {
    return std::make_shared<Buffer>(DType(node.dtype), node.numel(),
                                    node.device, target.allocator(node.device));
  } catch (const std::bad_alloc &) {
    throw Error(op ? op : opName(node.kind),
                "cannot allocate " + std::to_string(node.numel()) +
                    " elements of " + dtypeName(node.dtype) + " for shape " +
                    shapeText(node.shape) + outOfMemory(node.device),
                node.loc.file, node.loc.line);
  }
}

/// Counts a materialization of `requested`'s trace in metrics(); returns
/// the line that asked for it.
static Site countMaterialization(Cause cause, SourceLocation where,
                                 const Node &value) {
  Counters &c = counters();
  ++c.materializations;
  ++c.byCause[static_cast<int>(cause)];
  Site site = siteOf(cause, where, value);
  c.materializationSites.count(site);
  return site;
}

/// New buffers for the outputs of `trace`, in `results`; an output tied to
/// a donated argument is computed in that argument's buffer. Returns how
/// many are (counted once the function has run).
static uint64_t allocateOutputs(const Trace &trace,
                                std::vector<std::shared_ptr<Buffer>> &results) {
  uint64_t inPlace = 0;
  for (auto [output, index] : llvm::enumerate(trace.outputs)) {
    if (int32_t slot = trace.tiedArguments[output]; slot >= 0) {
      results.push_back(trace.nodes[trace.arguments[slot]]->value);
      ++inPlace;
      continue;
    }
    results.push_back(newBufferFor(*trace.nodes[index]));
  }
  return inPlace;
}

/// Runs `trace` op by op, as eager mode would, while its fused function
/// compiles in the background.
static void runOpByOp(const Trace &trace, SourceLocation where) {
  // Copied first: each op's materialization extracts its own trace into
  // the thread's trace, which `trace` is.
  std::vector<Node *> nodes = trace.nodes, outputs;
  for (int32_t index : trace.outputs)
    outputs.push_back(trace.nodes[index]);
  for (Node *node : nodes)
    if (!node->value && node->kind != OpKind::Literal)
      materializeOn({node}, Cause::Eager, where);
  // A literal the program reads (`full(...)` on its own) gets its buffer
  // too; the others live on in the ops that read them.
  for (Node *node : outputs)
    if (!node->value)
      materializeOn({node}, Cause::Eager, where);
}

/// The inputs of `selection`'s function for `trace`: its buffers, then the
/// promoted literals (stored in `literalStorage`), then the sizes left to
/// the call if it reads some (in `sizes`). Literals and sizes are host
/// memory on every target (the importer marks them `lazy.host_buffer`: a
/// GPU's host code reads them).
static void bindInputs(const Trace &trace, const Selection &selection,
                       std::vector<jit::BufferView> &inputs) {
  for (int32_t index : trace.arguments) {
    const Node &node = *trace.nodes[index];
    inputs.push_back({node.value->data(), node.shape});
  }
  static thread_local std::vector<std::array<uint8_t, 8>> literalStorage;
  literalStorage.resize(trace.literals.size());
  for (size_t i = 0; i < selection.promoted.size(); ++i) {
    if (!selection.promoted[i])
      continue;
    const Node &node = *trace.nodes[trace.literals[i]];
    convert::storeScalar(node.scalar, node.dtype, literalStorage[i].data());
    inputs.push_back({literalStorage[i].data(), {}});
  }
  static thread_local std::vector<int64_t> sizes;
  static thread_local int64_t sizeCount;
  if (selection.readsSizes) {
    bool allSizes = selection.dynamicSizes.empty();
    runtimeSizes(trace, selection.dynamicSizes, allSizes, sizes);
    sizeCount = static_cast<int64_t>(sizes.size());
    if (!sizes.empty())
      inputs.push_back({sizes.data(), {&sizeCount, 1}});
  }
}

/// Gives each output node of `trace` its computed buffer, and releases the
/// graph above them.
static void memoize(const Trace &trace,
                    std::vector<std::shared_ptr<Buffer>> &results) {
  for (size_t i = 0; i < trace.outputs.size(); ++i) {
    Node &node = *trace.nodes[trace.outputs[i]];
    node.value = std::move(results[i]);
    node.inputs.clear();
  }
}

/// Materializes `requested`, which all live on one device.
static void materializeOn(const std::vector<Node *> &requested, Cause cause,
                          SourceLocation where) {
  // Eager mode compiles each op once per rank: every size is left to the
  // call (a broadcast's, reshape's, random op's or literal's as data).
  const bool eager = cause == Cause::Eager && requested.size() == 1;
  const Node &first = *requested.front();
  // Per-call lists in per-thread storage: a cached trace's host cost
  // matters (no allocation per materialization once warm). Nothing below
  // materializes recursively, except the op-by-op run while a background
  // compile is under way, after which none of these lists is used.
  static thread_local Trace trace;
  static thread_local std::vector<double> literals;
  static thread_local std::vector<std::shared_ptr<Buffer>> results;
  static thread_local std::vector<jit::BufferView> inputs, outputs;

  profile::Scope materializing("materialize", "engine");
  {
    profile::Scope extracting("extract trace", "engine");
    extractTrace(requested, eager, trace);
  }
  if (trace.outputs.empty())
    return;
  if (!eager && !runningSegments)
    if (const BlockCut *cut = cutOf(trace)) {
      materializeInBlocks(trace, *cut, cause, where);
      return;
    }
  std::string traceId;
  if (profile::enabled()) {
    traceId = llvm::utohexstr(trace.key);
    materializing.setArgs(
        profile::arg("trace", traceId) + ", " +
        profile::arg("cause", causeText(cause, where, first)) + ", " +
        profile::arg("nodes", std::to_string(trace.nodes.size())));
  }
  if (trace.device != Device::cpu())
    if (std::string whyNot;
        !jit::targetFor(trace.device.kind()).isAvailable(trace.device, whyNot))
      failAtOutput(trace, whyNot);
  Site site = countMaterialization(cause, where, first);

  literals.clear();
  for (int32_t index : trace.literals)
    literals.push_back(trace.nodes[index]->scalar);
  // Outputs are allocated before the cache's lock is taken: a thread that
  // compiles holds it, the others run.
  results.clear();
  llvm::scope_exit releaseResults([] { results.clear(); });
  uint64_t inPlace = allocateOutputs(trace, results);

  double lookupStart = profile::enabled() ? profile::now() : 0;
  Selection selection = cache().select(
      trace, literals, eager ? SelectMode::Eager : SelectMode::Lazy,
      {site, [&] { return causeText(cause, where, first); }});
  if (profile::enabled())
    profile::complete(selection.miss ? "cache miss (compiled)" : "cache hit",
                      "cache", lookupStart, profile::now(),
                      profile::arg("trace", traceId));
  if (!selection.function) {
    // The outputs allocated above are not used.
    runOpByOp(trace, where);
    return;
  }

  inputs.clear();
  outputs.clear();
  bindInputs(trace, selection, inputs);
  for (size_t i = 0; i < trace.outputs.size(); ++i)
    outputs.push_back(
        {results[i]->data(), trace.nodes[trace.outputs[i]]->shape});
  Counters &c = counters();
  {
    profile::Scope running("run", "kernel", profile::arg("trace", traceId));
    ScopedTimer timing(c.kernelRuns);
    if (llvm::Error error = selection.function->call(inputs, outputs))
      failRun(trace, llvm::toString(std::move(error)));
  }
  ++c.kernelsRun;
  c.updatedInPlace += inPlace;
  memoize(trace, results);
}

namespace {
/// New Variables' initial values not computed yet (weakly: a Variable that
/// died is forgotten).
thread_local std::vector<std::weak_ptr<Node>> pendingInitialValues;
} // namespace

void engine::initialValue(const NodePtr &node) {
  if (!node->value)
    pendingInitialValues.push_back(node);
}

/// Materializes `requested` with one trace per device: an op's operands
/// share its device, so one trace never spans two, and values on several
/// devices (a sync()) are computed a device at a time.
static void materializeByDevice(const std::vector<Node *> &requested,
                                Cause cause, SourceLocation where) {
  bool oneDevice = true;
  for (const Node *node : requested)
    oneDevice = oneDevice && node->device == requested.front()->device;
  if (oneDevice) {
    materializeOn(requested, cause, where);
    return;
  }
  std::vector<Node *> remaining = requested;
  while (!remaining.empty()) {
    Device device = remaining.front()->device;
    std::vector<Node *> here, elsewhere;
    for (Node *node : remaining)
      (node->device == device ? here : elsewhere).push_back(node);
    materializeOn(here, cause, where);
    remaining = std::move(elsewhere);
  }
}

/// Computes the pending initial values of Variables in a trace of their own.
/// Left in the first trace that reads them, they would make it differ from
/// every later one, which reads the Variables' values as arguments: a
/// training step compiled twice (Adam's zero moments literals in the first,
/// random initial weights computed in it).
/// Computes literal `node` (zeros, ones, a `full`) by filling its buffer:
/// a Variable's zeros need no compiled function (a model's biases, norms
/// and optimizer moments are a thousand of them).
static void fillLiteral(Node &node, SourceLocation where) {
  int64_t elements = node.numel();
  std::shared_ptr<Buffer> buffer = newBufferFor(node);
  const size_t width = sizeOf(node.dtype);
  std::array<uint8_t, 8> pattern{};
  convert::storeScalar(node.scalar, node.dtype, pattern.data());
  bool zero = std::all_of(pattern.begin(), pattern.begin() + width,
                          [](uint8_t byte) { return byte == 0; });
  std::vector<uint8_t> staging;
  uint8_t *bytes = static_cast<uint8_t *>(buffer->data());
  if (node.device != Device::cpu()) {
    staging.resize(static_cast<size_t>(elements) * width);
    bytes = staging.data();
  }
  if (zero)
    std::memset(bytes, 0, static_cast<size_t>(elements) * width);
  else
    for (int64_t i = 0; i < elements; ++i)
      std::memcpy(bytes + i * width, pattern.data(), width);
  if (!staging.empty())
    if (llvm::Error error = jit::targetFor(node.device.kind())
                                .copyFromHost(node.device, buffer->data(),
                                              staging.data(), staging.size()))
      throw Error(opName(node.kind), llvm::toString(std::move(error)), where);
  node.value = std::move(buffer);
}

bool engine::computeInitialValues(SourceLocation where) {
  if (pendingInitialValues.empty())
    return false;
  std::vector<NodePtr> alive;
  for (std::weak_ptr<Node> &pending : pendingInitialValues)
    if (NodePtr node = pending.lock(); node && !node->value)
      alive.push_back(std::move(node));
  pendingInitialValues.clear();
  if (alive.empty())
    return false;
  std::vector<Node *> nodes;
  for (const NodePtr &node : alive) {
    if (node->kind == OpKind::Literal)
      fillLiteral(*node, where);
    else
      nodes.push_back(node.get());
  }
  if (!nodes.empty())
    materializeByDevice(nodes, Cause::InitialValues, where);
  // Computed, they leave the pending count (which the size limit reads).
  prunePending();
  return true;
}

void engine::materialize(const std::vector<Node *> &requested, Cause cause,
                         SourceLocation where) {
  if (!tracedRegions().empty()) {
    const TracedRegion &region = *tracedRegions().back();
    throw Error(
        region.op,
        std::string("a value was read while tracing a ") +
            (std::strcmp(region.op, "cond") == 0 ? "branch" : "loop region") +
            " (the " + region.op + " at " +
            fileAndLine(region.where.file_name(), region.where.line()) +
            "): it is traced once, not run, so its values are not "
            "known yet; decide with cond or whileLoop inside it "
            "instead",
        where);
  }
  computeInitialValues(where);
  materializeByDevice(requested, cause, where);
  // The computed values leave the pending list now, so that its count of
  // trace nodes is exact and the size limit cuts every step at the same
  // ops, whenever the list was last pruned.
  prunePending();
  restartSizeChecks();
}

//===----------------------------------------------------------------------===//
// Buffers and the host
//===----------------------------------------------------------------------===//

void engine::checkAvailable(Device device, const char *op,
                            SourceLocation where) {
  if (device == Device::cpu())
    return;
  if (std::string whyNot;
      !jit::targetFor(device.kind()).isAvailable(device, whyNot))
    throw Error(op, whyNot, where);
}

std::string engine::fileAndLine(const char *file, unsigned line) {
  const char *base = std::strrchr(file, '/');
  return std::string(base ? base + 1 : file) + ":" + std::to_string(line);
}

/// A transfer's timeline arguments: the device, the bytes and the op that
/// asked for it.
static std::string transferArgs(Device device, size_t bytes, const char *op) {
  return profile::arg("device", device.str()) + ", " +
         profile::arg("bytes", std::to_string(bytes)) + ", " +
         profile::arg("op", op);
}

NodePtr engine::newBufferNode(DType dtype, std::vector<int64_t> shape,
                              Device device, const char *op,
                              SourceLocation where) {
  NodePtr node = makeNode();
  node->kind = OpKind::Buffer;
  node->dtype = dtype;
  node->device = device;
  node->shape = std::move(shape);
  node->loc = {where.file_name(), where.line()};
  node->computeContentHash();
  checkAvailable(node->device, op, where);
  return node;
}

NodePtr engine::newOutput(DType dtype, std::vector<int64_t> shape,
                          Device device, const char *op, SourceLocation where) {
  NodePtr node = newBufferNode(dtype, std::move(shape), device, op, where);
  node->value = newBufferFor(*node, op);
  countOp();
  return node;
}

NodePtr engine::newValue(DType dtype, std::vector<int64_t> shape,
                         const void *host, const char *op, SourceLocation where,
                         Device device) {
  NodePtr node = newBufferNode(dtype, std::move(shape), device, op, where);
  const jit::Target &target = jit::targetFor(node->device.kind());
  int64_t elements = node->numel();
  try {
    node->value = std::make_shared<Buffer>(dtype, elements, node->device,
                                           target.allocator(node->device));
  } catch (const std::bad_alloc &) {
    throw Error(op,
                "cannot allocate " + std::to_string(elements) +
                    " elements of " + dtypeName(dtype) +
                    outOfMemory(node->device),
                where);
  }
  // An empty vector's data() may be null.
  if (size_t bytes = static_cast<size_t>(elements) * sizeOf(dtype)) {
    Counters &c = counters();
    ScopedTimer timing(c.transfersToDevice);
    c.bytesToDevice += bytes;
    profile::Scope transfer("copy from host", "transfer",
                            profile::enabled()
                                ? transferArgs(node->device, bytes, op)
                                : std::string());
    if (llvm::Error error =
            target.copyFromHost(node->device, node->value->data(), host, bytes))
      throw Error(op, llvm::toString(std::move(error)), where);
  }
  countOp();
  return node;
}

const void *engine::hostData(const Node &node, std::vector<uint8_t> &staging,
                             const char *op, SourceLocation where) {
  const Buffer &buffer = *node.value;
  if (buffer.device() == Device::cpu())
    return buffer.data();
  staging.resize(static_cast<size_t>(buffer.size()) * sizeOf(buffer.dtype()));
  Counters &c = counters();
  ScopedTimer timing(c.transfersToHost);
  c.bytesToHost += staging.size();
  profile::Scope transfer(
      "copy to host", "transfer",
      profile::enabled() ? transferArgs(buffer.device(), staging.size(), op)
                         : std::string());
  if (llvm::Error error = jit::targetFor(buffer.device().kind())
                              .copyToHost(buffer.device(), staging.data(),
                                          buffer.data(), staging.size()))
    throw Error(op, llvm::toString(std::move(error)), where);
  return staging.data();
}
