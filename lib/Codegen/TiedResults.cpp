//===- TiedResults.cpp - Results tied to a function's arguments -----------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the lookup of a function's results tied to an
// argument (`lazy.tied_argument = i`: the result lives in argument i's
// buffer).
//
//===----------------------------------------------------------------------===//

#include "TiedResults.h"
#include "lazyc/Dialect/Lazy/IR/TiedArgument.h"

using namespace mlir;

func::ReturnOp
lazy::tiedResults(func::FuncOp function,
                  SmallVectorImpl<std::pair<unsigned, BlockArgument>> &ties) {
  if (function.isExternal())
    return nullptr;
  Block &entry = function.front();
  auto ret = dyn_cast<func::ReturnOp>(entry.getTerminator());
  if (!ret)
    return nullptr;
  for (unsigned result = 0, e = function.getNumResults(); result < e; ++result)
    if (auto attr = function.getResultAttrOfType<IntegerAttr>(
            result, lazy::kTiedArgumentAttrName))
      ties.push_back({result, entry.getArgument(attr.getInt())});
  return ret;
}
