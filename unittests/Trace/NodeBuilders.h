//===- NodeBuilders.h - Hand-built lazy graphs for tests --------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares small helpers that build trace::Node graphs directly,
// with trace::makeNode() and the node's fields (no lazyc::Tensor API), for
// the tests of trace extraction (unittests/Trace) and of the trace importer
// (unittests/Import).
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_UNITTESTS_TRACE_NODEBUILDERS_H
#define LAZYC_UNITTESTS_TRACE_NODEBUILDERS_H

#include "lazyc/Trace/Node.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <memory>
#include <utility>
#include <vector>

namespace lazyc::trace::build {

using Shape = std::vector<int64_t>;

/// A value for a node that must look computed. Extraction and import only
/// ask whether a node has a value and who shares it, never read its bytes:
/// the handle owns storage the size of a Buffer with no Buffer in it, so the
/// tests do not depend on how a Buffer is constructed (and allocate nothing
/// through the runtime).
inline std::shared_ptr<Buffer> placeholderValue() {
  struct Storage {
    alignas(Buffer) unsigned char bytes[sizeof(Buffer)];
  };
  auto storage = std::make_shared<Storage>();
  auto *pointer = reinterpret_cast<Buffer *>(storage->bytes);
  return std::shared_ptr<Buffer>(std::move(storage), pointer);
}

/// A computed value of `dtype` and `shape`: a trace argument. `kind` is the
/// op that once produced it (a Buffer for user data).
inline NodePtr computed(DType dtype, Shape shape,
                        OpKind kind = OpKind::Buffer) {
  NodePtr node = makeNode();
  node->kind = kind;
  node->dtype = dtype;
  node->shape = std::move(shape);
  node->computeContentHash();
  node->value = placeholderValue();
  return node;
}

/// A literal `value` of `dtype` filling `shape`.
inline NodePtr literal(double value, DType dtype, Shape shape = {}) {
  NodePtr node = makeNode();
  node->kind = OpKind::Literal;
  node->dtype = dtype;
  node->shape = std::move(shape);
  node->scalar = value;
  node->computeContentHash();
  return node;
}

/// A pending op of `kind` over `inputs`, producing `dtype` and `shape`;
/// `setAttributes` fills its attributes before its content hash is taken.
inline NodePtr
pending(OpKind kind, DType dtype, Shape shape, NodeInputs inputs,
        llvm::function_ref<void(Node &)> setAttributes = nullptr) {
  NodePtr node = makeNode();
  node->kind = kind;
  node->dtype = dtype;
  node->shape = std::move(shape);
  node->inputs = std::move(inputs);
  if (setAttributes)
    setAttributes(*node);
  node->computeContentHash();
  return node;
}

/// An elementwise op over `inputs` with the type of the first one.
inline NodePtr elementwise(OpKind kind, NodeInputs inputs) {
  DType dtype = inputs.front()->dtype;
  Shape shape = inputs.front()->shape;
  return pending(kind, dtype, std::move(shape), std::move(inputs));
}

/// Marks `node` as held by `count` Tensor handles.
inline void hold(const NodePtr &node, int count = 1) {
  node->handles.store(count);
}

} // namespace lazyc::trace::build

#endif // LAZYC_UNITTESTS_TRACE_NODEBUILDERS_H
