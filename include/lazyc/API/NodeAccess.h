//===- NodeAccess.h - The recorded node behind a Tensor ---------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// For lazyc's own tools and tests (the reference evaluator, lazyc-fuzz, the
// unit tests): the recorded node a Tensor refers to, and its computed value
// on the host. Tensor.h keeps the node opaque; programs have no use for
// this header, and what a node holds changes with lazyc.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_API_NODEACCESS_H
#define LAZYC_API_NODEACCESS_H

#include "lazyc/API/Tensor.h"
#include "lazyc/Trace/Node.h"

#include <cstdint>
#include <vector>

namespace lazyc::detail {

struct TensorAccess {
  /// The node `tensor` refers to (null for an empty handle).
  static const trace::NodePtr &node(const Tensor &tensor);
  /// A handle on `node`, counted as a live tensor.
  static Tensor wrap(trace::NodePtr node);
};

} // namespace lazyc::detail

namespace lazyc::engine {

/// The computed value of `node` as host memory: its buffer on the CPU, a
/// copy in `staging` from other devices; a lazyc::Error about `op` at
/// `where` if the copy fails.
const void *hostData(const trace::Node &node, std::vector<uint8_t> &staging,
                     const char *op, SourceLocation where);

} // namespace lazyc::engine

#endif // LAZYC_API_NODEACCESS_H
