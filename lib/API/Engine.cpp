//===- Engine.cpp - Materialization: trace, cache, compile, run -----------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements materialization: extract the trace, look its
// structural key up in the function cache (compiling on a miss), promote
// literals that history shows vary, run the compiled function, memoize the
// outputs and release the graph above them. Also the metrics, the modes and
// LAZYC_DUMP_TRACES.
//
// Constant promotion: a cache entry remembers the literal values it was
// compiled with. A trace with the same key but other values marks the
// literals that differ as "promoted" and compiles a second function that
// takes them as rank-0 arguments; later traces use that function whatever
// those literals hold. A loop whose scalars change every iteration thus
// compiles at most twice.
//
//===----------------------------------------------------------------------===//

#include "Engine.h"
#include "Convert.h"
#include "Explain.h"
#include "ShapeCheck.h"

#include "lazyc/API/Metrics.h"
#include "lazyc/Import/TraceImporter.h"
#include "lazyc/InitAll.h"
#include "lazyc/JIT/CompiledFunction.h"
#include "lazyc/Trace/Trace.h"

#include "mlir/IR/MLIRContext.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <cctype>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <list>
#include <mutex>
#include <ostream>
#include <unordered_map>

using namespace lazyc;
using namespace lazyc::trace;

//===----------------------------------------------------------------------===//
// Metrics
//===----------------------------------------------------------------------===//

namespace {
struct Counters {
  std::atomic<uint64_t> opsRecorded{0}, materializations{0}, tracesCompiled{0},
      cacheHits{0}, cacheMisses{0}, kernelsRun{0}, constantsPromoted{0},
      compileMicros{0}, updatedInPlace{0};
  /// Materializations, indexed by Cause.
  std::atomic<uint64_t> byCause[static_cast<int>(Cause::Eager) + 1] = {};
};
Counters &counters() {
  static Counters instance;
  return instance;
}
} // namespace

Metrics lazyc::metrics() {
  Counters &c = counters();
  Metrics m;
  m.opsRecorded = c.opsRecorded;
  m.materializations = c.materializations;
  auto byCause = [&](Cause cause) {
    return c.byCause[static_cast<int>(cause)].load();
  };
  m.byItem = byCause(Cause::Item);
  m.byToVector = byCause(Cause::ToVector);
  m.byPrint = byCause(Cause::Print);
  m.byBool = byCause(Cause::Bool);
  m.bySync = byCause(Cause::Sync);
  m.bySizeLimit = byCause(Cause::SizeLimit);
  m.byEager = byCause(Cause::Eager);
  m.tracesCompiled = c.tracesCompiled;
  m.cacheHits = c.cacheHits;
  m.cacheMisses = c.cacheMisses;
  m.compileMs = c.compileMicros / 1000.0;
  m.kernelsRun = c.kernelsRun;
  m.constantsPromoted = c.constantsPromoted;
  m.updatedInPlace = c.updatedInPlace;
  return m;
}

void lazyc::resetMetrics() {
  Counters &c = counters();
  for (std::atomic<uint64_t> *counter :
       {&c.opsRecorded, &c.materializations, &c.tracesCompiled, &c.cacheHits,
        &c.cacheMisses, &c.kernelsRun, &c.constantsPromoted, &c.compileMicros,
        &c.updatedInPlace})
    *counter = 0;
  for (std::atomic<uint64_t> &counter : c.byCause)
    counter = 0;
}

std::ostream &lazyc::operator<<(std::ostream &os, const Metrics &m) {
  os << "lazyc metrics:\n"
     << "  ops recorded        " << m.opsRecorded << "\n"
     << "  materializations    " << m.materializations << " (item " << m.byItem
     << ", toVector " << m.byToVector << ", print " << m.byPrint << ", bool "
     << m.byBool << ", sync " << m.bySync << ", size limit " << m.bySizeLimit
     << ", eager " << m.byEager << ")\n"
     << "  traces compiled     " << m.tracesCompiled << "\n"
     << "  cache hits / misses " << m.cacheHits << " / " << m.cacheMisses
     << "\n"
     << "  compile time        " << m.compileMs << " ms\n"
     << "  kernels run         " << m.kernelsRun << "\n"
     << "  constants promoted  " << m.constantsPromoted << "\n"
     << "  updated in place    " << m.updatedInPlace;
  return os;
}

void engine::countOp() { ++counters().opsRecorded; }

//===----------------------------------------------------------------------===//
// Modes and the live-node registry
//===----------------------------------------------------------------------===//

static bool eagerByDefault() {
  const char *mode = std::getenv("LAZYC_MODE");
  return mode && std::strcmp(mode, "eager") == 0;
}

static thread_local bool eagerMode = eagerByDefault();

bool lazyc::isEager() { return eagerMode; }

EagerScope::EagerScope() : previous(eagerMode) { eagerMode = true; }
EagerScope::~EagerScope() { eagerMode = previous; }

std::vector<Node *> engine::liveNodes() {
  prunePending();
  return heldPendingNodes();
}

/// Pending nodes past which a trace is cut (LAZYC_MAX_TRACE_NODES).
static size_t maxPendingNodes() {
  static size_t limit = [] {
    const char *value = std::getenv("LAZYC_MAX_TRACE_NODES");
    size_t parsed = value ? std::strtoull(value, nullptr, 10) : 0;
    return parsed ? parsed : size_t(2000);
  }();
  return limit;
}

void engine::recorded(const NodePtr &node, SourceLocation where) {
  countOp();
  if (eagerMode) {
    materialize({node.get()}, Cause::Eager, where);
    return;
  }
  // A node stands for itself and its per-use literal operands, which are
  // not on the list (one literal node may serve many ops).
  size_t traceNodes = 1;
  for (const NodePtr &input : node->inputs)
    traceNodes += isPerUseLiteral(*input);
  addPending(node, traceNodes);
  // Pruning is linear in the list: prune when the list has doubled since
  // the last prune (and has 256 entries), a constant cost per registration.
  static thread_local size_t nextPrune = 0;
  if (pendingEntries() >= nextPrune) {
    prunePending();
    nextPrune = std::max<size_t>(256, 2 * pendingEntries());
  }
  // Checking the size limit prunes too: at least limit / 8 trace nodes
  // apart (a trace may thus exceed the limit by an eighth).
  static thread_local size_t nextCheck = 0;
  size_t limit = maxPendingNodes();
  if (pendingTraceNodes() <= std::max(limit, nextCheck))
    return;
  // Every pending node that still exists is reachable from a handle (or
  // from `node`): together they are what the next trace would compile.
  prunePending();
  if (pendingTraceNodes() > limit) {
    std::vector<Node *> requested = heldPendingNodes();
    requested.push_back(node.get());
    materialize(requested, Cause::SizeLimit, where);
    prunePending();
  }
  nextCheck = pendingTraceNodes() + limit / 8;
}

//===----------------------------------------------------------------------===//
// The function cache
//===----------------------------------------------------------------------===//

namespace {

/// What a cache key maps to.
struct CacheEntry {
  /// The structure compiled (Trace::signature): a trace with the same key
  /// but another signature is a hash collision, not a hit.
  std::vector<uint64_t> signature;
  /// Compiled with every literal baked in, at these values.
  std::vector<double> bakedLiterals;
  std::shared_ptr<jit::CompiledFunction> baked;
  /// Compiled with the literals marked here passed as arguments.
  std::vector<bool> promotedMask;
  std::shared_ptr<jit::CompiledFunction> promoted;
  /// The trace's structure, kept while misses are explained.
  explain::TraceSummary summary;
};

/// A bounded, thread-safe LRU map from trace keys to compiled functions.
class FunctionCache {
public:
  std::mutex mutex; ///< Held while looking up and compiling.

  /// The entry of `key`, created empty if missing; marks it most recent.
  CacheEntry &lookup(uint64_t key, bool &existed) {
    auto it = entries.find(key);
    existed = it != entries.end();
    if (existed) {
      order.splice(order.begin(), order, it->second.second);
      return it->second.first;
    }
    order.push_front(key);
    auto &slot = entries[key];
    slot.second = order.begin();
    evict();
    return slot.first;
  }

  void clear() {
    entries.clear();
    order.clear();
  }

  /// The structure of every cached trace that has one recorded.
  std::vector<const explain::TraceSummary *> summaries() const {
    std::vector<const explain::TraceSummary *> result;
    for (const auto &[key, slot] : entries)
      if (!slot.first.summary.empty())
        result.push_back(&slot.first.summary);
    return result;
  }

private:
  void evict() {
    static size_t capacity = [] {
      const char *value = std::getenv("LAZYC_CACHE_SIZE");
      return value ? std::max<size_t>(1, std::strtoull(value, nullptr, 10))
                   : size_t(1024);
    }();
    while (entries.size() > capacity) {
      entries.erase(order.back());
      order.pop_back();
    }
  }

  std::list<uint64_t> order;
  std::unordered_map<uint64_t,
                     std::pair<CacheEntry, std::list<uint64_t>::iterator>>
      entries;
};

FunctionCache &cache() {
  static FunctionCache *instance = new FunctionCache();
  return *instance;
}

/// The MLIR context compilation uses (guarded by the cache's mutex).
mlir::MLIRContext &compileContext() {
  static mlir::MLIRContext *context = [] {
    mlir::DialectRegistry registry;
    lazyc::registerAllDialects(registry);
    auto *created = new mlir::MLIRContext(registry);
    created->loadAllAvailableDialects();
    return created;
  }();
  return *context;
}

/// Ops whose result shape is an attribute are compiled per shape even in
/// eager mode; the others once per rank.
bool hasShapeAttribute(OpKind kind) {
  return kind == OpKind::Literal || kind == OpKind::Broadcast ||
         kind == OpKind::Reshape || kind == OpKind::Slice ||
         kind == OpKind::RandomUniform || kind == OpKind::RandomNormal;
}


/// The op an error is about: the node a diagnostic names (the importer
/// locates node i as "<op>#i"), else the first output with a user line.
std::pair<std::string, SourceLoc> blame(const Trace &trace,
                                        const std::string &message = "") {
  for (size_t at = message.find('#'); at != std::string::npos;
       at = message.find('#', at + 1)) {
    size_t end = at + 1;
    while (end < message.size() && std::isdigit(message[end]))
      ++end;
    if (end == at + 1 || end >= message.size() || message[end] != '"')
      continue;
    size_t index = std::stoul(message.substr(at + 1, end - at - 1));
    if (index < trace.nodes.size()) {
      const Node &node = *trace.nodes[index];
      return {opName(node.kind), node.loc};
    }
  }
  for (int32_t output : trace.outputs) {
    const Node &node = *trace.nodes[output];
    if (node.loc.line)
      return {opName(node.kind), node.loc};
  }
  return {"", SourceLoc{}};
}

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
  static const char *const names[] = {"item",      "toVector",
                                      "printing",  "a bool conversion",
                                      "sync",      "the trace size limit",
                                      "eager mode"};
  std::string text = names[static_cast<int>(cause)];
  if (where.line()) {
    const char *file = std::strrchr(where.file_name(), '/');
    text += std::string(" at ") + (file ? file + 1 : where.file_name()) + ":" +
            std::to_string(where.line());
  } else if (value.loc.line) {
    const char *file = std::strrchr(value.loc.file, '/');
    text += std::string(" of `") + opName(value.kind) + "` at " +
            (file ? file + 1 : value.loc.file) + ":" +
            std::to_string(value.loc.line);
  }
  return text;
}

/// Compiles `trace` with `mask` literals promoted; records metrics.
std::unique_ptr<jit::CompiledFunction>
compile(const Trace &trace, const std::vector<bool> &mask, bool dynamic) {
  auto start = std::chrono::steady_clock::now();
  import::ImportOptions options;
  options.dynamicShapes = dynamic;
  options.promotedLiterals = mask;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      import::importTrace(trace, compileContext(), options);
  if (const char *dir = std::getenv("LAZYC_DUMP_TRACES")) {
    llvm::sys::fs::create_directories(dir);
    std::string path = std::string(dir) + "/trace-" +
                       llvm::utohexstr(trace.key) +
                       (mask.empty() ? "" : "-promoted") + ".mlir";
    std::error_code error;
    llvm::raw_fd_ostream os(path, error);
    if (!error)
      module->print(os);
  }
  auto compiled = jit::CompiledFunction::compile(*module, "trace");
  if (!compiled) {
    std::string message = llvm::toString(compiled.takeError());
    auto [op, loc] = blame(trace, message);
    throw Error(op, message, loc.line ? loc.file : "", loc.line);
  }
  ++counters().tracesCompiled;
  counters().compileMicros +=
      std::chrono::duration_cast<std::chrono::microseconds>(
          std::chrono::steady_clock::now() - start)
          .count();
  return std::move(*compiled);
}

} // namespace

void lazyc::clearCache() {
  FunctionCache &functions = cache();
  std::lock_guard<std::mutex> lock(functions.mutex);
  functions.clear();
}

//===----------------------------------------------------------------------===//
// Materialization
//===----------------------------------------------------------------------===//

void engine::materialize(const std::vector<Node *> &requested, Cause cause,
                         SourceLocation where) {
  bool dynamic = cause == Cause::Eager && requested.size() == 1 &&
                 !hasShapeAttribute(requested.front()->kind);
  // One trace per thread, reused: extraction allocates nothing once warm.
  static thread_local Trace trace;
  extractTrace(requested, dynamic, trace);
  if (trace.outputs.empty())
    return;

  Counters &c = counters();
  ++c.materializations;
  ++c.byCause[static_cast<int>(cause)];

  // Per-call lists in per-thread storage: a cached trace's host cost
  // matters (no allocation per materialization once warm). Nothing below
  // materializes recursively.
  static thread_local std::vector<double> literals;
  literals.clear();
  for (int32_t index : trace.literals)
    literals.push_back(trace.nodes[index]->scalar);

  // Outputs are allocated before taking the lock; an output tied to a
  // donated argument is computed in that argument's buffer.
  static thread_local std::vector<std::shared_ptr<Buffer>> results;
  results.clear();
  auto releaseResults = llvm::make_scope_exit([] { results.clear(); });
  for (auto [output, index] : llvm::enumerate(trace.outputs)) {
    const Node &node = *trace.nodes[index];
    if (int32_t slot = trace.tiedArguments[output]; slot >= 0) {
      results.push_back(trace.nodes[trace.arguments[slot]]->value);
      ++c.updatedInPlace;
      continue;
    }
    try {
      results.push_back(std::make_shared<Buffer>(node.dtype, node.numel()));
    } catch (const std::bad_alloc &) {
      throw Error(opName(node.kind),
                  "cannot allocate " + std::to_string(node.numel()) +
                      " elements of " + dtypeName(node.dtype) + " for shape " +
                      detail::shapeText(node.shape),
                  node.loc.file, node.loc.line);
    }
  }

  // The cache (and the MLIR context) is locked while looking up and
  // compiling, not while running: threads run their kernels at once, and a
  // function evicted meanwhile lives until its last caller returns.
  std::shared_ptr<jit::CompiledFunction> function;
  std::vector<bool> mask;
  {
    FunctionCache &functions = cache();
    std::lock_guard<std::mutex> lock(functions.mutex);
    bool existed;
    CacheEntry &entry = functions.lookup(trace.key, existed);
    if (existed && entry.signature != trace.signature) {
      // Another structure with the same key: this one replaces it.
      entry = CacheEntry();
      existed = false;
    }
    if (!existed || !entry.baked) {
      ++c.cacheMisses;
      if (explain::enabled()) {
        explain::TraceSummary summary = explain::summarize(trace);
        explain::report(
            trace, causeText(cause, where, *requested.front()),
            explain::structuralMiss(summary, functions.summaries(), dynamic));
        entry.summary = std::move(summary);
      }
      entry.baked = compile(trace, {}, dynamic);
      entry.bakedLiterals = literals;
      entry.signature = trace.signature;
      function = entry.baked;
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
        entry.promoted = compile(trace, union_, dynamic);
        entry.promotedMask = union_;
        c.constantsPromoted += newlyPromoted;
      }
      function = entry.promoted;
      mask = entry.promotedMask;
    }
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
  for (size_t i = 0; i < trace.outputs.size(); ++i)
    outputs.push_back(
        {results[i]->data(), trace.nodes[trace.outputs[i]]->shape});
  if (llvm::Error error = function->call(inputs, outputs)) {
    std::string message = llvm::toString(std::move(error));
    auto [op, loc] = blame(trace, message);
    throw Error(op, message, loc.file, loc.line);
  }
  ++c.kernelsRun;

  // Memoize, and release the graph above the computed values.
  for (size_t i = 0; i < trace.outputs.size(); ++i) {
    Node &node = *trace.nodes[trace.outputs[i]];
    node.value = std::move(results[i]);
    node.inputs.clear();
  }
}
