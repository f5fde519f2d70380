//===- SplitModule.cpp - Parts of a module for parallel codegen -----------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "SplitModule.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include "llvm/ADT/StringMap.h"

#include <algorithm>

using namespace mlir;

/// Below this many ops (counted by codegenWeight) per part, starting a
/// thread and cloning the module cost more than compiling the part on the
/// calling thread saves.
static constexpr size_t kMinOpsPerPart = 200;

/// About how many machine instructions LLVM makes of `op`: a vector wider
/// than a 512-bit register is split into one op per register (<32 x float>
/// into two), and LLVM's time follows the instructions.
static size_t codegenWeight(Operation *op) {
  size_t weight = 1;
  for (Type type : op->getResultTypes())
    if (auto vector = dyn_cast<VectorType>(type);
        vector && vector.getElementType().isIntOrFloat())
      weight = std::max<size_t>(
          weight, vector.getNumElements() *
                      vector.getElementType().getIntOrFloatBitWidth() / 512);
  return weight;
}

static bool isLocal(LLVM::Linkage linkage) {
  return linkage == LLVM::Linkage::Private ||
         linkage == LLVM::Linkage::Internal;
}

llvm::SmallVector<OwningOpRef<ModuleOp>>
lazyc::jit::splitModule(ModuleOp module, unsigned parts) {
  struct Definition {
    StringRef name;
    size_t ops;
  };
  llvm::SmallVector<Definition> definitions;
  size_t totalOps = 0;
  for (Operation &op : *module.getBody()) {
    if (auto function = dyn_cast<LLVM::LLVMFuncOp>(op)) {
      if (function.isExternal())
        continue;
      size_t ops = 0;
      function.walk([&](Operation *inner) { ops += codegenWeight(inner); });
      definitions.push_back({function.getName(), ops});
      totalOps += ops;
      continue;
    }
    // Constants are copied into every part; anything whose address or
    // contents other code may see or change stays whole.
    auto global = dyn_cast<LLVM::GlobalOp>(op);
    if (!global || !global.getConstant() || !isLocal(global.getLinkage()))
      return {};
  }
  parts = std::min<size_t>({parts, definitions.size(),
                            std::max<size_t>(1, totalOps / kMinOpsPerPart)});
  if (parts < 2)
    return {};

  // Largest first, each to the part with the fewest ops so far.
  llvm::stable_sort(definitions, [](const Definition &a, const Definition &b) {
    return a.ops > b.ops;
  });
  llvm::SmallVector<size_t> load(parts, 0);
  llvm::StringMap<unsigned> partOf;
  for (const Definition &definition : definitions) {
    unsigned part = std::min_element(load.begin(), load.end()) - load.begin();
    load[part] += definition.ops;
    partOf[definition.name] = part;
  }

  llvm::SmallVector<OwningOpRef<ModuleOp>> split;
  for (unsigned part = 0; part < parts; ++part) {
    OwningOpRef<ModuleOp> copy = module.clone();
    for (auto function : copy->getOps<LLVM::LLVMFuncOp>()) {
      if (function.isExternal())
        continue;
      // Another part may call it: every function is an external definition
      // in one part (LLVM would drop an unused linkonce_odr helper from it)
      // and an external declaration in the others.
      function.setLinkage(LLVM::Linkage::External);
      if (partOf.lookup(function.getName()) == part)
        continue;
      Region &body = function.getBody();
      body.dropAllReferences();
      body.getBlocks().clear();
    }
    split.push_back(std::move(copy));
  }
  return split;
}
