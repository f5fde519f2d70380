//===- BackgroundCompiler.cpp - Compiles traces off the calling thread ----===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements asynchronous compiles: the switch, the import on the
// calling thread, and the background thread. The thread has an MLIR context
// of its own: a target's compile registers translations in its context,
// which must not race with imports in the engine's.
//
//===----------------------------------------------------------------------===//

#include "BackgroundCompiler.h"
#include "CompileService.h"
#include "Profiler.h"

#include "lazyc/API/Compile.h"
#include "lazyc/Import/TraceImporter.h"
#include "lazyc/JIT/Target.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>

using namespace lazyc;
using namespace lazyc::engine;

static std::atomic<bool> &asyncSwitch() {
  static std::atomic<bool> enabled = [] {
    const char *value = std::getenv("LAZYC_ASYNC_COMPILE");
    return value && *value && std::string(value) != "0";
  }();
  return enabled;
}

void lazyc::setAsyncCompile(bool enable) { asyncSwitch() = enable; }
bool lazyc::isCompilingAsync() { return asyncSwitch(); }

namespace {

/// One thread compiling queued modules in order.
class BackgroundCompiler {
public:
  static BackgroundCompiler &get() {
    static BackgroundCompiler compiler;
    return compiler;
  }

  PendingFunction submit(Device device, std::string bytecode, uint64_t key) {
    std::promise<std::shared_ptr<jit::CompiledFunction>> promise;
    PendingFunction pending = promise.get_future().share();
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (!worker.joinable())
        worker = std::thread([this] { run(); });
      jobs.push_back({device, std::move(bytecode), key, std::move(promise)});
      ++unfinished;
    }
    wake.notify_all();
    return pending;
  }

  void waitUntilIdle() {
    std::unique_lock<std::mutex> lock(mutex);
    idle.wait(lock, [&] { return unfinished == 0; });
  }

  /// Finishes the compile under way; the queued ones are dropped (their
  /// futures then hold no function).
  ~BackgroundCompiler() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping = true;
    }
    wake.notify_all();
    if (worker.joinable())
      worker.join();
  }

private:
  struct Job {
    Device device;
    std::string bytecode;
    uint64_t key;
    std::promise<std::shared_ptr<jit::CompiledFunction>> promise;
  };

  void run() {
    // Never freed: compiled functions may outlive this object.
    mlir::MLIRContext *context = newCompileContext();
    while (true) {
      Job job;
      {
        std::unique_lock<std::mutex> lock(mutex);
        wake.wait(lock, [&] { return stopping || !jobs.empty(); });
        if (stopping)
          return;
        job = std::move(jobs.front());
        jobs.pop_front();
      }
      std::shared_ptr<jit::CompiledFunction> function;
      auto start = std::chrono::steady_clock::now();
      {
        profile::Scope compiling(
            "compile (background)", "compile",
            profile::enabled() ? profile::arg("trace", llvm::utohexstr(job.key))
                               : std::string());
        mlir::OwningOpRef<mlir::ModuleOp> module =
            mlir::parseSourceString<mlir::ModuleOp>(job.bytecode, context);
        if (module) {
          auto compiled = jit::targetFor(job.device.kind())
                              .compile(*module, "trace", job.device);
          if (compiled) {
            function = std::move(*compiled);
            countCompile(function->stats(),
                         std::chrono::steady_clock::now() - start);
          } else {
            llvm::consumeError(compiled.takeError());
          }
        }
      }
      job.promise.set_value(std::move(function));
      {
        std::lock_guard<std::mutex> lock(mutex);
        --unfinished;
      }
      idle.notify_all();
    }
  }

  std::mutex mutex;
  std::condition_variable wake, idle;
  std::deque<Job> jobs;
  size_t unfinished = 0;
  bool stopping = false;
  std::thread worker;
};

} // namespace

bool engine::isReady(const PendingFunction &pending) {
  return pending.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

PendingFunction engine::compileInBackground(const trace::Trace &trace) {
  import::ImportOptions options;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      import::importTrace(trace, compileContext(), options);
  // Locations point into this process's trace (OpaqueLoc): the background
  // compile reports no errors, so they are dropped.
  mlir::Location unknown = mlir::UnknownLoc::get(&compileContext());
  module->walk([&](mlir::Operation *op) { op->setLoc(unknown); });
  std::string bytecode;
  llvm::raw_string_ostream os(bytecode);
  if (mlir::failed(mlir::writeBytecodeToFile(*module, os))) {
    std::promise<std::shared_ptr<jit::CompiledFunction>> failed;
    failed.set_value(nullptr);
    return failed.get_future().share();
  }
  return BackgroundCompiler::get().submit(trace.device, std::move(bytecode),
                                          trace.key);
}

void lazyc::waitForCompiles() { BackgroundCompiler::get().waitUntilIdle(); }
