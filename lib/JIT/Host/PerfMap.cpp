//===- PerfMap.cpp - Names of JIT'd code for perf -------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "PerfMap.h"
#include "lazyc/JIT/CompiledFunction.h"

#include "llvm/ExecutionEngine/JITLink/JITLink.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unistd.h>
#include <utility>

using namespace llvm;
using namespace llvm::orc;

bool lazyc::jit::perfMapRequested() {
  static const bool requested = [] {
    const char *setting = std::getenv("LAZYC_PERF_MAP");
    return setting && *setting && std::strcmp(setting, "0") != 0;
  }();
  return requested;
}

/// This thread's PerfMapLabel (empty: none).
static thread_local std::string perfMapLabel;

lazyc::jit::PerfMapLabel::PerfMapLabel(std::string label)
    : previous(std::exchange(perfMapLabel, std::move(label))) {}

lazyc::jit::PerfMapLabel::~PerfMapLabel() {
  perfMapLabel = std::move(previous);
}

namespace {
/// Appends each linked graph's code symbols (local ones included: a thread
/// loop's outlined body) to /tmp/perf-<pid>.map.
class PerfMapPlugin final : public ObjectLinkingLayer::Plugin {
public:
  PerfMapPlugin(StringRef label, StringRef function, StringRef entry)
      : label(label.str()), function(function.str()), entry(entry.str()) {}

  void modifyPassConfig(MaterializationResponsibility &, jitlink::LinkGraph &,
                        jitlink::PassConfiguration &config) override {
    // A local function (a loop nest's outlined body) is called through
    // its section's symbol; pruning would drop its own, named one.
    config.PrePrunePasses.push_back([](jitlink::LinkGraph &graph) {
      for (jitlink::Symbol *symbol : graph.defined_symbols())
        if (isCode(*symbol))
          symbol->setLive(true);
      return Error::success();
    });
    config.PostFixupPasses.push_back([this](jitlink::LinkGraph &graph) {
      write(graph);
      return Error::success();
    });
  }
  Error notifyFailed(MaterializationResponsibility &) override {
    return Error::success();
  }
  Error notifyRemovingResources(JITDylib &, ResourceKey) override {
    return Error::success();
  }
  void notifyTransferringResources(JITDylib &, ResourceKey,
                                   ResourceKey) override {}

private:
  static bool isCode(const jitlink::Symbol &symbol) {
    return symbol.hasName() && symbol.getSize() > 0 &&
           (symbol.getSection().getMemProt() & MemProt::Exec) != MemProt::None;
  }

  void write(jitlink::LinkGraph &graph) const {
    // Several JITs (threads, background compiles) share the file.
    static std::mutex fileMutex;
    std::string lines;
    raw_string_ostream os(lines);
    for (jitlink::Symbol *symbol : graph.defined_symbols()) {
      if (!isCode(*symbol))
        continue;
      StringRef name = *symbol->getName();
      os << format_hex_no_prefix(symbol->getAddress().getValue(), 1) << " "
         << format_hex_no_prefix(symbol->getSize(), 1) << " lazyc:" << label
         << ":" << (name == entry ? StringRef(function) : name) << "\n";
    }
    std::lock_guard<std::mutex> lock(fileMutex);
    std::error_code error;
    raw_fd_ostream file(("/tmp/perf-" + Twine(::getpid()) + ".map").str(),
                        error, sys::fs::OF_Append);
    if (!error)
      file << lines;
  }

  /// The names' prefix: this thread's PerfMapLabel, else `function`.
  std::string label, function, entry;
};
} // namespace

void lazyc::jit::writePerfMapEntries(LLJITBuilder &builder, StringRef function,
                                     StringRef entry) {
  builder.setObjectLinkingLayerCreator(
      [label = perfMapLabel.empty() ? function.str() : perfMapLabel,
       function = function.str(), entry = entry.str()](
          ExecutionSession &session) -> Expected<std::unique_ptr<ObjectLayer>> {
        auto linker = std::make_unique<ObjectLinkingLayer>(session);
        linker->addPlugin(
            std::make_unique<PerfMapPlugin>(label, function, entry));
        return std::move(linker);
      });
}
