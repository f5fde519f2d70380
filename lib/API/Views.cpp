//===- Views.cpp - Looking at the recorded graph --------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lazyc/API/Views.h"
#include "Engine/DotGraph.h"
#include "Engine/Engine.h"
#include "Engine/FunctionCache.h"
#include "TensorAccess.h"

#include "lazyc/Trace/Trace.h"

using namespace lazyc;
using namespace lazyc::trace;
using namespace lazyc::engine;

std::string lazyc::toDot(const std::vector<Tensor> &tensors,
                         SourceLocation where) {
  std::vector<Node *> requested;
  for (const Tensor &tensor : tensors) {
    if (!tensor.defined())
      throw Error("toDot",
                  "a tensor is empty (default-constructed or moved "
                  "from)",
                  where);
    Node *node = detail::TensorAccess::node(tensor).get();
    if (!requested.empty() && node->device != requested.front()->device)
      throw Error("toDot",
                  "the tensors live on different devices, " +
                      requested.front()->device.str() + " and " +
                      node->device.str() + " (one trace runs on one device)",
                  where);
    requested.push_back(node);
  }
  Trace trace = extractTrace(requested);
  // The literals the cache passes as arguments for this structure.
  std::vector<bool> promoted = cache().promotedLiterals(trace);
  return detail::dotOfTrace(trace, promoted);
}
