//===- CompileService.cpp - Traces to compiled functions ------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements compiling a trace: import into the shared MLIR
// context, the optional dump (LAZYC_DUMP_TRACES), the compile by the
// target of the trace's device, and errors: a CompileError's diagnostics
// carry the locations the importer gave the ops, which name trace nodes.
//
//===----------------------------------------------------------------------===//

#include "CompileService.h"
#include "Counters.h"
#include "DotGraph.h"
#include "Profiler.h"

#include "lazyc/API/Compile.h"
#include "lazyc/API/Error.h"
#include "lazyc/Import/TraceImporter.h"
#include "lazyc/InitAll.h"
#include "lazyc/JIT/Target.h"
#include "lazyc/Runtime/Runtime.h"

#include "mlir/IR/MLIRContext.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include <unistd.h>

using namespace lazyc;
using namespace lazyc::trace;

mlir::MLIRContext *engine::newCompileContext() {
  mlir::DialectRegistry registry;
  lazyc::registerAllDialects(registry);
  auto *context = new mlir::MLIRContext(registry);
  context->loadAllAvailableDialects();
  return context;
}

mlir::MLIRContext &engine::compileContext() {
  static mlir::MLIRContext *context = newCompileContext();
  return *context;
}

[[noreturn]] static void failAt(const Node &node, const std::string &message) {
  throw Error(opName(node.kind), message, node.loc.line ? node.loc.file : "",
              node.loc.line);
}

void engine::failRun(const Trace &trace, const std::string &message) {
  // The runtime names a failed collective "collective #<n> (...)": blame
  // the trace's first collective, under the name the user called.
  if (message.find("collective #") != std::string::npos)
    for (const Node *node : trace.nodes)
      if (node->kind == OpKind::Collective && node->loc.line) {
        static const char *const names[] = {"allReduce", "broadcast",
                                            "allGather", "reduceScatter"};
        throw Error(names[node->integer], message, node->loc.file,
                    node->loc.line);
      }
  failAtOutput(trace, message);
}

void engine::failAtOutput(const Trace &trace, const std::string &message) {
  for (int32_t output : trace.outputs)
    if (trace.nodes[output]->loc.line)
      failAt(*trace.nodes[output], message);
  throw Error("", message, "", 0);
}

/// Writes the imported module to
/// LAZYC_DUMP_TRACES/trace-<key>[-promoted|-dynamic].mlir.
static void dump(const Trace &trace, mlir::ModuleOp module, const char *variant,
                 const std::vector<bool> &promoted) {
  if (const char *dir = std::getenv("LAZYC_DUMP_DOT")) {
    llvm::sys::fs::create_directories(dir);
    std::string path = std::string(dir) + "/trace-" +
                       llvm::utohexstr(trace.key) + variant + ".dot";
    std::error_code error;
    llvm::raw_fd_ostream os(path, error);
    if (!error)
      os << detail::dotOfTrace(trace, promoted);
  }
  const char *dir = std::getenv("LAZYC_DUMP_TRACES");
  if (!dir)
    return;
  llvm::sys::fs::create_directories(dir);
  std::string path = std::string(dir) + "/trace-" + llvm::utohexstr(trace.key) +
                     variant + ".mlir";
  std::error_code error;
  llvm::raw_fd_ostream os(path, error);
  if (!error)
    module.print(os);
}

namespace {
/// Shows a long compile's progress on stderr: once the compile has run for
/// LAZYC_PROGRESS seconds (default 1, and only when stderr is a terminal;
/// 0 turns it off), each stage as it starts, then the total. On a terminal
/// one line is rewritten; elsewhere each stage gets a line.
class CompileProgress final : public jit::StageObserver {
public:
  explicit CompileProgress(size_t nodes)
      : nodes(nodes), threshold(thresholdSeconds()) {
    if (threshold >= 0)
      previous = jit::observeStages(this);
  }
  ~CompileProgress() override {
    if (threshold < 0)
      return;
    jit::observeStages(previous);
    if (shown)
      std::fprintf(stderr, "%slazyc: compiled a trace of %zu nodes in %.1f s\n",
                   terminal ? "\r\033[K" : "", nodes, elapsed());
  }
  CompileProgress(const CompileProgress &) = delete;
  CompileProgress &operator=(const CompileProgress &) = delete;

  void stageStarted(llvm::StringRef stage) override {
    double seconds = elapsed();
    if (seconds < threshold)
      return;
    shown = true;
    std::fprintf(
        stderr, "%slazyc: compiling a trace of %zu nodes: %.*s (%.1f s)%s",
        terminal ? "\r\033[K" : "", nodes, static_cast<int>(stage.size()),
        stage.data(), seconds, terminal ? "" : "\n");
    std::fflush(stderr);
  }

private:
  /// Seconds a compile runs before its progress shows; negative: never.
  double thresholdSeconds() const {
    const char *value = std::getenv("LAZYC_PROGRESS");
    if (!value || !*value)
      return terminal ? 1.0 : -1.0;
    double seconds = std::strtod(value, nullptr);
    return seconds > 0 ? seconds : -1.0;
  }

  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  }

  size_t nodes;
  bool terminal = isatty(STDERR_FILENO);
  std::chrono::steady_clock::time_point start =
      std::chrono::steady_clock::now();
  double threshold;
  jit::StageObserver *previous = nullptr;
  bool shown = false;
};
} // namespace

std::unique_ptr<jit::CompiledFunction>
engine::compile(const Trace &trace, const std::vector<bool> &promoted,
                bool dynamicShapes, const std::vector<bool> &dynamicSizes) {
  // A loop's carried value outside its loop: a tensor a loop region left
  // through a C++ variable instead of returning it.
  for (const Node *node : trace.nodes)
    if (node->kind == OpKind::Parameter)
      throw Error("whileLoop",
                  "a value computed inside this loop's condition or body is "
                  "used outside the loop; only the loop's results leave it "
                  "(carry the value and use the result)",
                  node->loc.file, node->loc.line);
  auto start = std::chrono::steady_clock::now();
  CompileProgress progress(trace.nodes.size());
  profile::Scope compiling(
      "compile", "compile",
      profile::enabled()
          ? profile::arg("trace", llvm::utohexstr(trace.key)) + ", " +
                profile::arg("nodes", std::to_string(trace.nodes.size()))
          : std::string());
  import::ImportOptions options;
  options.dynamicShapes = dynamicShapes;
  options.promotedLiterals = promoted;
  options.dynamicSizes = dynamicSizes;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      import::importTrace(trace, compileContext(), options);
  const char *variant = !promoted.empty()                        ? "-promoted"
                        : llvm::is_contained(dynamicSizes, true) ? "-dynamic"
                                                                 : "";
  dump(trace, *module, variant, promoted);
  // LAZYC_PERF_MAP names the code by the dump file's name.
  jit::PerfMapLabel label("trace-" + llvm::utohexstr(trace.key) + variant);

  const jit::Target &target = jit::targetFor(trace.device.kind());
  double lowering = profile::enabled() ? profile::now() : 0;
  auto compiled = target.compile(*module, "trace", trace.device);
  if (compiled && profile::enabled()) {
    // The target times its two halves, which ran back to back, and each
    // step inside them.
    const jit::CompileStats &stats = (*compiled)->stats();
    double pipelineEnd = lowering + stats.pipelineMs * 1000;
    profile::complete("MLIR pipeline", "compile", lowering, pipelineEnd);
    profile::complete("code generation", "compile", pipelineEnd,
                      pipelineEnd + stats.codegenMs * 1000);
    for (const jit::CompileStats::Phase &phase : stats.phases)
      profile::complete(phase.name.c_str(), "compile stage",
                        profile::at(phase.start), profile::at(phase.end));
  }
  if (!compiled) {
    // A pipeline failure blames the node its first diagnostic is about;
    // anything else (code generation, loading) the trace's output.
    const Node *blamed = nullptr;
    std::string message;
    llvm::handleAllErrors(
        compiled.takeError(),
        [&](const jit::CompileError &error) {
          llvm::raw_string_ostream os(message);
          error.log(os);
          for (const jit::CompileError::Diagnostic &diagnostic :
               error.diagnostics)
            if (std::optional<size_t> position =
                    import::tracePosition(diagnostic.location);
                position && *position < trace.nodes.size()) {
              blamed = trace.nodes[*position];
              break;
            }
        },
        [&](const llvm::ErrorInfoBase &error) { message = error.message(); });
    if (blamed)
      failAt(*blamed, message);
    failAtOutput(trace, message);
  }
  countCompile((*compiled)->stats(), std::chrono::steady_clock::now() - start);
  return std::move(*compiled);
}

void engine::countCompile(const jit::CompileStats &stats,
                          std::chrono::steady_clock::duration elapsed) {
  // A function loaded from the disk cache still counts as compiled: it is
  // an in-memory miss that produced a function; the disk counters split it.
  Counters &c = counters();
  ++c.tracesCompiled;
  c.compileMicros +=
      std::chrono::duration_cast<std::chrono::microseconds>(elapsed).count();
  c.compiles.record(
      std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count());
  if (!stats.loadedFromDiskCache) // Then no pipeline ran.
    c.compilePipeline.recordMs(stats.pipelineMs);
  c.compileCodegen.recordMs(stats.codegenMs);
  c.diskCacheHits += stats.loadedFromDiskCache;
  c.diskCacheWrites += stats.storedToDiskCache;
  c.diskCacheRejected += stats.rejectedDiskCacheEntry;
}

//===----------------------------------------------------------------------===//
// Threads
//===----------------------------------------------------------------------===//

void lazyc::setNumThreads(int threads, SourceLocation where) {
  if (threads < 1)
    throw Error("setNumThreads",
                "needs at least 1 thread, not " + std::to_string(threads),
                where);
  jit::setCpuThreads(threads);
  lazyrt_set_num_threads(threads);
}

int lazyc::numThreads() { return jit::cpuThreads(); }
