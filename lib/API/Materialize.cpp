//===- Materialize.cpp - Requested values, computed -----------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements materialization, the walk of a requested value down
// the layers: extract the trace (lib/Trace), look its structural key up in
// the function cache (FunctionCache.h), compiling on a miss
// (CompileService.h: lib/Import, then the target of the trace's device,
// lib/JIT), promote literals that history shows vary, allocate the outputs
// from the device's allocator, run the compiled function, memoize the
// outputs and release the graph above them. Also the host's view of
// buffers on other devices.
//
// Constant promotion: a cache entry remembers the literal values it was
// compiled with. A trace with the same key but other values marks the
// literals that differ as "promoted" and compiles a second function that
// takes them as rank-0 arguments; later traces use that function whatever
// those literals hold. A loop whose scalars change every iteration thus
// compiles at most twice.
//
//===----------------------------------------------------------------------===//

#include "BackgroundCompiler.h"
#include "CompileService.h"
#include "Convert.h"
#include "Counters.h"
#include "Engine.h"
#include "Explain.h"
#include "FunctionCache.h"
#include "Profiler.h"
#include "ShapeCheck.h"

#include "lazyc/API/Compile.h"
#include "lazyc/JIT/Target.h"
#include "lazyc/Runtime/Runtime.h"
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

using namespace lazyc;
using namespace lazyc::engine;
using namespace lazyc::trace;

namespace {

/// Literal values compare by bits: -0.0 is not 0.0 (x + -0.0 keeps a -0.0
/// that x + 0.0 turns into 0.0), and a NaN equals itself.
bool sameBits(const std::vector<double> &a, const std::vector<double> &b) {
  return a.size() == b.size() &&
         (a.empty() ||
          std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

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

namespace {
/// Sizes function signatures left unknown, per argument node (weakly: a
/// node that died is forgotten; see engine::hintDynamicSizes).
struct SizeHint {
  std::weak_ptr<Node> node;
  std::vector<int64_t> sizes;
};
thread_local llvm::DenseMap<const Node *, SizeHint> sizeHints;
} // namespace

void engine::hintDynamicSizes(const NodePtr &node, std::vector<int64_t> sizes) {
  if (sizeHints.size() >= 256) {
    for (auto it = sizeHints.begin(); it != sizeHints.end();) {
      if (it->second.node.expired())
        sizeHints.erase(it++);
      else
        ++it;
    }
  }
  sizeHints[node.get()] = {node, std::move(sizes)};
}

/// Marks in `dynamic` (numbered as traceSizes()) the sizes of `trace` that a
/// signature said vary: every dimension of that size (it is where the
/// unknown size flows; a dimension equal to it by chance is merely left to
/// the call too). A hinted 1 counts as well: a first batch of 1 must not
/// compile a function for 1 alone, and the 1s broadcasts stretch stay
/// static anyway (trace::stretchedSizes). False if no node of the trace
/// has a hint.
static bool hintedSizes(const Trace &trace, const std::vector<int64_t> &sizes,
                        std::vector<bool> &dynamic) {
  if (sizeHints.empty())
    return false;
  llvm::SmallVector<int64_t, 4> varying;
  for (const Node *node : trace.nodes)
    if (auto it = sizeHints.find(node);
        it != sizeHints.end() && it->second.node.lock().get() == node)
      for (int64_t size : it->second.sizes)
        if (!llvm::is_contained(varying, size))
          varying.push_back(size);
  if (varying.empty())
    return false;
  dynamic.assign(sizes.size(), false);
  for (size_t i = 0; i < sizes.size(); ++i)
    dynamic[i] = llvm::is_contained(varying, sizes[i]);
  return true;
}

/// The shape-generic entry (see CacheEntry) of `trace`'s structure if a
/// trace of it ran before with other sizes, or if a signature said which of
/// its sizes vary, else null; the first trace of a structure records its
/// sizes and literals there.
static CacheEntry *shapeGenericEntry(FunctionCache &functions,
                                     const Trace &trace,
                                     const std::vector<double> &literals) {
  static thread_local std::vector<uint64_t> signature;
  static thread_local std::vector<int64_t> sizes;
  uint64_t key = shapeGenericSignature(trace, signature);
  traceSizes(trace, sizes);
  bool existed;
  CacheEntry &entry = functions.lookup(key, existed);
  if (existed && entry.signature == signature)
    return entry.sizes != sizes || entry.hinted ? &entry : nullptr;
  entry = CacheEntry();
  entry.signature = signature;
  entry.sizes = sizes;
  entry.bakedLiterals = literals;
  if (hintedSizes(trace, sizes, entry.dynamicSizes)) {
    entry.hinted = true;
    return &entry;
  }
  return nullptr;
}

/// Whether `changed` (numbered as traceSizes()) holds a size that a
/// convolution's kernel specializes on: its channels, filter count or
/// kernel size. Its register tiles and layout are chosen for them, and left
/// to the call it runs 2-3x slower (docs/benchmarks.md, "Layers"), so a
/// trace whose convolutions change those compiles for its sizes instead.
static bool changesConvolutionKernel(const Trace &trace,
                                     const std::vector<bool> &changed) {
  static thread_local std::vector<size_t> offsets;
  offsets.assign(trace.nodes.size() + 1, 0);
  for (size_t i = 0; i < trace.nodes.size(); ++i)
    offsets[i + 1] = offsets[i] + trace.nodes[i]->shape.size();
  for (size_t i = 0; i < trace.nodes.size(); ++i) {
    if (trace.nodes[i]->kind != OpKind::Conv2d)
      continue;
    std::span<const int32_t> operands = trace.operands(i);
    size_t images = offsets[operands[0]], filters = offsets[operands[1]];
    for (size_t at : {images + 1, filters, filters + 1, filters + 2,
                      filters + 3, offsets[i] + 1})
      if (changed[at])
        return true;
  }
  return false;
}

/// The function of shape-generic `entry` for `trace`: the cached one if it
/// leaves every size that differs from the entry's first trace to the call
/// and promotes every literal that differs; otherwise a new one that does
/// (automatic dynamic dimensions, then constant promotion). Null if such a
/// function does not compile (the trace then compiles for its sizes).
static std::shared_ptr<jit::CompiledFunction>
shapeGenericFunction(CacheEntry &entry, const Trace &trace,
                     const std::vector<double> &literals,
                     const std::string &cause, const Site &site) {
  if (entry.staticOnly)
    return nullptr;
  static thread_local std::vector<int64_t> sizes;
  traceSizes(trace, sizes);
  std::vector<bool> dynamicSizes = entry.dynamicSizes;
  dynamicSizes.resize(sizes.size());
  std::vector<bool> newSizes(sizes.size());
  bool covered = entry.promoted != nullptr;
  for (size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i] != entry.sizes[i] && !dynamicSizes[i]) {
      newSizes[i] = true;
      dynamicSizes[i] = true;
      covered = false;
    }
  std::vector<bool> promoted = entry.promotedMask;
  promoted.resize(literals.size());
  std::vector<bool> newLiterals(literals.size());
  for (size_t i = 0; i < literals.size(); ++i)
    if (!promoted[i] && !sameBits({literals[i]}, {entry.bakedLiterals[i]})) {
      newLiterals[i] = promoted[i] = true;
      covered = false;
    }
  Counters &c = counters();
  if (covered) {
    ++c.cacheHits;
    return entry.promoted;
  }
  if (changesConvolutionKernel(trace, newSizes)) {
    // This trace compiles for its sizes and becomes the structure's first:
    // later traces with its channels but other sizes share one function.
    if (explain::enabled())
      explain::report(trace, cause,
                      "sizes stay static: a convolution's channels or kernel "
                      "size changed, which its kernel is compiled for");
    CacheEntry first;
    first.signature = std::move(entry.signature);
    first.sizes = sizes;
    first.bakedLiterals = literals;
    entry = std::move(first);
    return nullptr;
  }
  ++c.cacheMisses;
  c.missSites.count(site, explain::missReasonName(
                              llvm::is_contained(newSizes, true)
                                  ? explain::MissReason::SizesChanged
                                  : explain::MissReason::ConstantsChanged));
  if (explain::enabled())
    explain::report(trace, cause,
                    explain::sizeMiss(trace, entry.sizes, newSizes,
                                      entry.bakedLiterals, newLiterals));
  try {
    entry.promoted = engine::compile(trace, promoted, false, dynamicSizes);
  } catch (const Error &error) {
    // A gap in what dynamic sizes support must not fail a program that
    // compiles for its sizes: this structure stays static.
    if (explain::enabled())
      explain::report(trace, cause,
                      std::string("sizes stay static: ") + error.what());
    entry.staticOnly = true;
    return nullptr;
  }
  c.sizesMadeDynamic += std::count(newSizes.begin(), newSizes.end(), true);
  c.constantsPromoted +=
      std::count(newLiterals.begin(), newLiterals.end(), true);
  entry.dynamicSizes = std::move(dynamicSizes);
  entry.promotedMask = std::move(promoted);
  entry.bakedLiterals = literals;
  return entry.promoted;
}

/// Whether `trace` can run op by op while it compiles: not when it has
/// control flow (an op with several results would run once per result).
static bool opByOpRuns(const Trace &trace) {
  for (const Node *node : trace.nodes)
    if (node->kind == OpKind::If || node->kind == OpKind::While ||
        node->kind == OpKind::Result)
      return false;
  return true;
}

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

/// Says on stderr (LAZYC_EXPLAIN) how `trace` is cut, once per structure.
static void explainCut(const Trace &trace, RememberedCut &entry) {
  if (explain::enabled() && !entry.told) {
    entry.told = true;
    std::string line = "lazyc: a trace of " +
                       std::to_string(trace.nodes.size()) + " nodes runs as " +
                       std::to_string(entry.cut.segmentStarts.size()) +
                       " traces, cut at its repeated blocks:";
    for (const RepeatedBlock &block : entry.cut.blocks)
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
  if (!isCuttingRepeatedBlocks() ||
      nodes < size_t(BlockSearchOptions().minTraceNodes))
    return nodes;
  for (const RepeatedBlock &block : blockCutOf(trace).cut.blocks)
    nodes -= size_t(block.count - 1) * block.length;
  return nodes;
}

static void materializeOn(const std::vector<Node *> &requested, Cause cause,
                          SourceLocation where);

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
      c.repeatedBlocks += isCopy[s];
      materializeOn(computes[s], cause, where);
    }
    releaseAfter[s].clear();
  }
}

/// A new buffer for `node`'s value on its device; a lazyc::Error at the
/// node's line if the device is out of memory.
static std::shared_ptr<Buffer> newBufferFor(const Node &node) {
  const jit::Target &target = jit::targetFor(node.device.kind());
  try {
    return std::make_shared<Buffer>(DType(node.dtype), node.numel(),
                                    node.device, target.allocator(node.device));
  } catch (const std::bad_alloc &) {
    throw Error(opName(node.kind),
                "cannot allocate " + std::to_string(node.numel()) +
                    " elements of " + dtypeName(node.dtype) + " for shape " +
                    shapeText(node.shape) + outOfMemory(node.device),
                node.loc.file, node.loc.line);
  }
}

/// Materializes `requested`, which all live on one device.
static void materializeOn(const std::vector<Node *> &requested, Cause cause,
                          SourceLocation where) {
  // Eager mode compiles each op once per rank: every size is left to the
  // call (a broadcast's, reshape's, random op's or literal's as data).
  bool dynamic = cause == Cause::Eager && requested.size() == 1;
  // One trace per thread, reused: extraction allocates nothing once warm.
  static thread_local Trace trace;
  profile::Scope materializing("materialize", "engine");
  {
    profile::Scope extracting("extract trace", "engine");
    extractTrace(requested, dynamic, trace);
  }
  if (trace.outputs.empty())
    return;
  if (!dynamic && !runningSegments && isCuttingRepeatedBlocks() &&
      trace.nodes.size() >= BlockSearchOptions().minTraceNodes)
    if (RememberedCut &entry = blockCutOf(trace);
        !entry.cut.segmentStarts.empty()) {
      explainCut(trace, entry);
      materializeInBlocks(trace, entry.cut, cause, where);
      return;
    }
  std::string traceId;
  if (profile::enabled()) {
    traceId = llvm::utohexstr(trace.key);
    materializing.setArgs(
        profile::arg("trace", traceId) + ", " +
        profile::arg("cause", causeText(cause, where, *requested.front())) +
        ", " + profile::arg("nodes", std::to_string(trace.nodes.size())));
  }

  const jit::Target &target = jit::targetFor(trace.device.kind());
  if (trace.device != Device::cpu())
    if (std::string whyNot; !target.isAvailable(trace.device, whyNot))
      failAtOutput(trace, whyNot);

  Counters &c = counters();
  ++c.materializations;
  ++c.byCause[static_cast<int>(cause)];
  Site site = siteOf(cause, where, *requested.front());
  c.materializationSites.count(site);

  // Per-call lists in per-thread storage: a cached trace's host cost
  // matters (no allocation per materialization once warm). Nothing below
  // materializes recursively, except the op-by-op run while a background
  // compile is under way, after which none of these lists is used.
  static thread_local std::vector<double> literals;
  literals.clear();
  for (int32_t index : trace.literals)
    literals.push_back(trace.nodes[index]->scalar);

  // Outputs are allocated before taking the lock; an output tied to a
  // donated argument is computed in that argument's buffer.
  static thread_local std::vector<std::shared_ptr<Buffer>> results;
  results.clear();
  llvm::scope_exit releaseResults([] { results.clear(); });
  uint64_t inPlace = 0; // Counted once the function has run.
  for (auto [output, index] : llvm::enumerate(trace.outputs)) {
    const Node &node = *trace.nodes[index];
    if (int32_t slot = trace.tiedArguments[output]; slot >= 0) {
      results.push_back(trace.nodes[trace.arguments[slot]]->value);
      ++inPlace;
      continue;
    }
    results.push_back(newBufferFor(node));
  }

  // The cache (and the MLIR context) is locked while looking up and
  // compiling, not while running: threads run their kernels at once, and a
  // function evicted meanwhile lives until its last caller returns.
  std::shared_ptr<jit::CompiledFunction> function;
  std::vector<bool> mask;
  uint64_t missesBefore = c.cacheMisses;
  double lookupStart = profile::enabled() ? profile::now() : 0;
  static thread_local std::vector<bool> dynamicSizes;
  dynamicSizes.clear();
  bool generic = false;
  bool runOpByOp = false;
  {
    FunctionCache &functions = cache();
    std::lock_guard<std::mutex> lock(functions.mutex);
    // A structure that ran before with other sizes runs on one function
    // for all of them.
    if (CacheEntry *exact = functions.find(trace.key);
        !dynamic && (!exact || exact->signature != trace.signature))
      if (CacheEntry *entry = shapeGenericEntry(functions, trace, literals)) {
        function = shapeGenericFunction(
            *entry, trace, literals,
            causeText(cause, where, *requested.front()), site);
        if (function) {
          generic = true;
          mask = entry->promotedMask;
          dynamicSizes = entry->dynamicSizes;
        }
      }
  }
  if (!generic) {
    FunctionCache &functions = cache();
    std::lock_guard<std::mutex> lock(functions.mutex);
    bool existed;
    CacheEntry &entry = functions.lookup(trace.key, existed);
    if (existed && entry.signature != trace.signature) {
      // Another structure with the same key: this one replaces it.
      entry = CacheEntry();
      existed = false;
    }
    // A background compile that finished serves from now on (or, failed,
    // leaves the next miss to compile here and report the error).
    if (entry.pending.valid() && isReady(entry.pending)) {
      entry.baked = entry.pending.get();
      entry.pending = {};
      entry.backgroundFailed = !entry.baked;
    }
    if (existed && !entry.baked && entry.pending.valid()) {
      // Still compiling.
      runOpByOp = true;
    } else if (!existed || !entry.baked) {
      ++c.cacheMisses;
      // Classified (and kept for the next miss's comparison) whether
      // explained or not: metrics() counts misses by reason.
      explain::TraceSummary summary = explain::summarize(trace);
      std::string why;
      explain::MissReason reason = explain::classifyStructuralMiss(
          summary, functions.summaries(), dynamic,
          explain::enabled() ? &why : nullptr);
      c.missSites.count(site, explain::missReasonName(reason));
      if (explain::enabled())
        explain::report(trace, causeText(cause, where, *requested.front()),
                        why);
      entry.summary = std::move(summary);
      if (!dynamic && isCompilingAsync() && !entry.backgroundFailed &&
          opByOpRuns(trace)) {
        entry.pending = compileInBackground(trace);
        runOpByOp = true;
      } else {
        entry.baked = engine::compile(trace, {}, dynamic);
        function = entry.baked;
      }
      entry.bakedLiterals = literals;
      entry.signature = trace.signature;
    } else if (sameBits(literals, entry.bakedLiterals)) {
      ++c.cacheHits;
      function = entry.baked;
    } else {
      // History shows these literals vary: pass them as arguments from now on.
      std::vector<bool> differs(literals.size());
      for (size_t i = 0; i < literals.size(); ++i)
        differs[i] = !sameBits({literals[i]}, {entry.bakedLiterals[i]});
      bool covered = entry.promoted != nullptr;
      for (size_t i = 0; covered && i < literals.size(); ++i)
        covered = !differs[i] || entry.promotedMask[i];
      if (covered) {
        ++c.cacheHits;
      } else {
        ++c.cacheMisses;
        c.missSites.count(site, explain::missReasonName(
                                    explain::MissReason::ConstantsChanged));
        if (explain::enabled())
          explain::report(
              trace, causeText(cause, where, *requested.front()),
              explain::constantMiss(trace, entry.bakedLiterals, differs));
        std::vector<bool> union_ = differs;
        for (size_t i = 0; i < entry.promotedMask.size(); ++i)
          union_[i] = union_[i] || entry.promotedMask[i];
        uint64_t newlyPromoted = 0;
        for (size_t i = 0; i < union_.size(); ++i)
          newlyPromoted += union_[i] && !(i < entry.promotedMask.size() &&
                                          entry.promotedMask[i]);
        entry.promoted = engine::compile(trace, union_, dynamic);
        entry.promotedMask = union_;
        c.constantsPromoted += newlyPromoted;
      }
      function = entry.promoted;
      mask = entry.promotedMask;
    }
  }

  if (profile::enabled())
    profile::complete(
        c.cacheMisses > missesBefore ? "cache miss (compiled)" : "cache hit",
        "cache", lookupStart, profile::now(), profile::arg("trace", traceId));

  if (runOpByOp) {
    // As eager mode would, while the fused function compiles. (The
    // outputs allocated above are not used.)
    for (Node *node : trace.nodes)
      if (!node->value && node->kind != OpKind::Literal)
        materializeOn({node}, Cause::Eager, where);
    // A literal the program reads (`full(...)` on its own) gets its buffer
    // too; the others live on in the ops that read them.
    for (int32_t index : trace.outputs)
      if (Node *node = trace.nodes[index]; !node->value)
        materializeOn({node}, Cause::Eager, where);
    return;
  }

  // Arguments: the trace's buffers, then its promoted literals.
  static thread_local std::vector<jit::BufferView> inputs, outputs;
  inputs.clear();
  outputs.clear();
  for (int32_t index : trace.arguments) {
    const Node &node = *trace.nodes[index];
    inputs.push_back({node.value->data(), node.shape});
  }
  static thread_local std::vector<std::array<uint8_t, 8>> literalStorage;
  literalStorage.resize(literals.size());
  for (size_t i = 0; i < mask.size(); ++i) {
    if (!mask[i])
      continue;
    const Node &node = *trace.nodes[trace.literals[i]];
    convert::storeScalar(node.scalar, node.dtype, literalStorage[i].data());
    inputs.push_back({literalStorage[i].data(), {}});
  }
  // Then the sizes left to the call, if the function reads some as data.
  // Literals and sizes are host memory on every target (the importer marks
  // them `lazy.host_buffer`: a GPU's host code reads them).
  static thread_local std::vector<int64_t> sizes;
  static thread_local int64_t sizeCount;
  if (dynamic || generic) {
    runtimeSizes(trace, dynamicSizes, dynamic, sizes);
    sizeCount = static_cast<int64_t>(sizes.size());
    if (!sizes.empty())
      inputs.push_back({sizes.data(), {&sizeCount, 1}});
  }
  for (size_t i = 0; i < trace.outputs.size(); ++i)
    outputs.push_back(
        {results[i]->data(), trace.nodes[trace.outputs[i]]->shape});
  {
    profile::Scope running("run", "kernel", profile::arg("trace", traceId));
    ScopedTimer timing(c.kernelRuns);
    if (llvm::Error error = function->call(inputs, outputs))
      failRun(trace, llvm::toString(std::move(error)));
  }
  ++c.kernelsRun;
  c.updatedInPlace += inPlace;

  // Memoize, and release the graph above the computed values.
  for (size_t i = 0; i < trace.outputs.size(); ++i) {
    Node &node = *trace.nodes[trace.outputs[i]];
    node.value = std::move(results[i]);
    node.inputs.clear();
  }
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
