//===- lazyc-opt-fuzz.cpp - libFuzzer target: parse, verify, transform ----===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the fuzz target behind lazyc-opt-fuzz (libFuzzer,
// built with -DLAZYC_SANITIZE=fuzzer) and lazyc-opt-fuzz-replay (a plain
// driver that runs saved inputs; the crash regression corpus runs through it
// in every build). One input is the text of a .mlir file. It takes the path
// lazyc-opt takes, with lazyc-opt's dialects and passes:
//
//  1. parse and verify (diagnostics are expected and discarded);
//  2. print, in the custom and the generic form;
//  3. if every op is a lazy, func or builtin op (a trace, the input lazyc's
//     pipelines are written for): print, parse again and verify (the round
//     trip must succeed), then run lazy-decompose, canonicalize and cse (the
//     verifiers, type inference, folders and canonicalization patterns);
//  4. if that succeeded: the whole CPU pipeline, lazy-lower-to-llvm.
//
// Any failure is a diagnostic and fine; a crash, a sanitizer report or a
// failed round trip is a bug. Every input gets a fresh MLIRContext, so a
// reported input reproduces alone.
//
//===----------------------------------------------------------------------===//

#include "lazyc/InitAll.h"
#include "lazyc/Pipelines/Pipelines.h"

#include "lazyc/Dialect/Lazy/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace mlir;

/// The dialects and passes of lazyc-opt, registered once.
static const DialectRegistry &registry() {
  static const DialectRegistry *instance = [] {
    lazyc::registerAllPasses();
    auto *registry = new DialectRegistry();
    lazyc::registerAllDialects(*registry);
    return registry;
  }();
  return *instance;
}

/// Whether every op in `module` is a lazy, func or builtin op.
static bool isTrace(ModuleOp module) {
  bool onlyTraceOps = true;
  module->walk([&](Operation *op) {
    StringRef dialect = op->getName().getDialectNamespace();
    if (dialect != "lazy" && dialect != "func" && dialect != "builtin")
      onlyTraceOps = false;
  });
  return onlyTraceOps;
}

/// Prints `module` in the custom (or generic) form.
static std::string print(ModuleOp module, bool generic) {
  std::string text;
  llvm::raw_string_ostream os(text);
  OpPrintingFlags flags;
  if (generic)
    flags.printGenericOpForm();
  module->print(os, flags);
  return text;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext context(registry(), MLIRContext::Threading::DISABLED);
  // Diagnostics are the expected outcome for most inputs: drop them.
  ScopedDiagnosticHandler quiet(&context,
                                [](Diagnostic &) { return success(); });

  // MLIR's lexer reads up to a NUL after the text (a MemoryBuffer's, as
  // lazyc-opt reads a file): without one it runs past the end of libFuzzer's
  // exact-size copy of the input.
  std::string source(reinterpret_cast<const char *>(data), size);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
  if (!module)
    return 0;
  (void)print(*module, /*generic=*/true);
  std::string printed = print(*module, /*generic=*/false);
  if (!isTrace(*module))
    return 0;

  // A verified trace prints as text that parses and verifies again.
  if (!parseSourceString<ModuleOp>(printed, &context)) {
    llvm::errs() << "lazyc-opt-fuzz: the printed module does not parse "
                    "again:\n"
                 << printed << "\n";
    std::abort();
  }

  PassManager simplify(&context);
  simplify.addPass(lazy::createLazyDecomposePass());
  simplify.addPass(createCanonicalizerPass());
  simplify.addPass(createCSEPass());
  if (failed(simplify.run(*module)))
    return 0;
  (void)print(*module, /*generic=*/false);

  PassManager lower(&context);
  lazyc::buildCpuPipeline(lower);
  (void)lower.run(*module);
  return 0;
}
